# SPDX-License-Identifier: Apache-2.0
"""The ahead-of-time (AOT) part of ``tensorrt.plugin``, which kiln does not implement: ``aot_impl`` and the types
its functions return (``KernelLaunchParams``, ``SymExprs``, ``SymIntExprs``, ``SymInt32``, ``SymInt16``,
``SymInt8``). The names exist so that modules that mention them import; using them raises
:class:`NotImplementedError`, which names what kiln lacks."""

from __future__ import annotations

from typing import Any, Callable

_MISSING = (
    "kiln does not implement ahead-of-time (AOT) tensorrt.plugin plugins: it cannot keep a compiled kernel (PTX), "
    "its symbolic launch parameters and its extra scalar arguments in a plan, nor launch such a kernel without Python "
    "(TensorRT's IPluginV3QuickAOTBuild and getLaunchParams/getKernel are not implemented). Use @tensorrt.plugin.impl "
    "(JIT) instead"
)


def aot_missing(plugin_id: str = "") -> NotImplementedError:
    where = f"tensorrt.plugin {plugin_id!r}: " if plugin_id else "tensorrt.plugin: "
    return NotImplementedError(where + _MISSING)


def aot_impl(plugin_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Not implemented in kiln: raises NotImplementedError (AOT plugins need a kernel stored in the plan)."""
    raise aot_missing(plugin_id)


class _AotOnly:
    def __init__(self, *args: Any, **kwargs: Any):
        raise NotImplementedError(f"tensorrt.plugin.{type(self).__name__}: " + _MISSING)


class KernelLaunchParams(_AotOnly):
    """AOT only (not implemented in kiln)."""


class SymExprs(_AotOnly):
    """AOT only (not implemented in kiln)."""

    @classmethod
    def from_tuple(cls, *args: Any) -> "SymExprs":
        return cls(*args)


class SymIntExprs(SymExprs):
    """AOT only (not implemented in kiln)."""


class SymInt32(_AotOnly):
    """AOT only (not implemented in kiln)."""


class SymInt16(_AotOnly):
    """AOT only (not implemented in kiln)."""


class SymInt8(_AotOnly):
    """AOT only (not implemented in kiln)."""
