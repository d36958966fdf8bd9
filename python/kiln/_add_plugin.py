# SPDX-License-Identifier: Apache-2.0
"""``INetworkDefinition.add_plugin``: adds a plugin given as ``(inputs, shape_inputs, plugin)`` or as the callable
``tensorrt.plugin.op.ns.name(...)`` returns, through ``add_plugin_v3``.

* ``add_plugin(op.ns.name(x, a=1))`` asks the callable for ``QuickPluginCreationRequest.PREFER_JIT`` or
  ``PREFER_AOT`` after the network's creation flags, else ``UNKNOWN``;
* ``add_plugin(op.ns.name(x, a=1), aot=False)`` / ``aot=True`` asks for ``STRICT_JIT`` / ``STRICT_AOT``
  (``tensorrt.plugin.aot_impl`` plugins; the rules are ``PluginDef.choose``'s, or those of TensorRT's own package's
  creator when that package made the callable);
* ``add_plugin(op.ns.name(x, a=1)(None))`` adds the triple as it is (JIT).
"""

from __future__ import annotations

from typing import Any, Optional

from . import _kiln


def _request(network: Any, aot: Optional[bool]) -> Any:
    request = _kiln.QuickPluginCreationRequest
    if aot is not None:
        return request.STRICT_AOT if aot else request.STRICT_JIT
    flags = _kiln.NetworkDefinitionCreationFlag
    prefer_aot = network.get_flag(flags.PREFER_AOT_PYTHON_PLUGINS)
    prefer_jit = network.get_flag(flags.PREFER_JIT_PYTHON_PLUGINS)
    if prefer_aot and prefer_jit:
        raise ValueError("add_plugin: the network has both PREFER_AOT_PYTHON_PLUGINS and PREFER_JIT_PYTHON_PLUGINS; "
                         "set one of them")
    return request.PREFER_AOT if prefer_aot else request.PREFER_JIT if prefer_jit else request.UNKNOWN


def add_plugin(self: Any, plugin: Any, aot: Optional[bool] = None) -> Any:
    """Adds a plugin layer: ``plugin`` is ``(inputs, shape_inputs, plugin)`` or a callable that gives that triple
    (``tensorrt.plugin.op.ns.name(inputs, attr=value)``). Returns the IPluginV3Layer, or None (the logger says why)."""
    if callable(plugin) and not isinstance(plugin, tuple):
        plugin = plugin(_request(self, aot))
    elif aot is not None:
        raise TypeError("add_plugin: aot= applies only to the callable tensorrt.plugin.op gives, not to a tuple")
    if not isinstance(plugin, tuple) or len(plugin) != 3:
        raise TypeError("add_plugin: expected (inputs, shape_inputs, plugin) or the callable tensorrt.plugin.op.ns.name"
                        f"(...) gives, got a {type(plugin).__name__}")
    inputs, shape_inputs, instance = plugin
    return self.add_plugin_v3(list(inputs), list(shape_inputs), instance)


def install() -> None:
    _kiln.INetworkDefinition.add_plugin = add_plugin
