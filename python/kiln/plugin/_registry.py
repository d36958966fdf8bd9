# SPDX-License-Identifier: Apache-2.0
"""The decorators ``register``, ``impl`` and ``autotune``, the plugin definitions they fill (``QDP_REGISTRY``), the
creators registered for them (``QDP_CREATORS``) and ``op``, through which a network gets an instance:
``network.add_plugin(op.ns.name(x, attr=value))``."""

from __future__ import annotations

import inspect
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .. import _kiln
from ._attrs import AttrType, attr_type
from ._desc import TensorDesc
from ._tensor import Tensor

QDP_REGISTRY: Dict[str, "PluginDef"] = {}
"""``"ns::name"`` -> the plugin's definition."""

QDP_CREATORS: Dict[str, Any] = {}
"""``"ns::name"`` -> the creator registered in ``get_plugin_registry()`` for it."""

_RESERVED_NAMESPACES = ("", "trt", "tensorrt", "std")
_RESERVED_ATTRS = ("outputs", "stream", "tactic")


def _split_id(plugin_id: str) -> Tuple[str, str]:
    if not isinstance(plugin_id, str) or plugin_id.count("::") != 1:
        raise ValueError(f"plugin id {plugin_id!r}: expected \"namespace::name\"")
    namespace, name = plugin_id.split("::")
    if not name:
        raise ValueError(f"plugin id {plugin_id!r}: the name is empty")
    if "." in namespace or "." in name:
        raise ValueError(f"plugin id {plugin_id!r}: neither the namespace nor the name may contain '.'")
    if namespace in _RESERVED_NAMESPACES:
        raise ValueError(f"plugin id {plugin_id!r}: the namespace {namespace!r} is reserved "
                         f"({', '.join(repr(n) for n in _RESERVED_NAMESPACES)})")
    return namespace, name


def _hints(func: Callable[..., Any]) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except Exception:  # noqa: BLE001  (unresolvable forward references: keep the raw annotations)
        return dict(getattr(func, "__annotations__", {}))


def _parameters(func: Callable[..., Any], what: str, plugin_id: str) -> List[inspect.Parameter]:
    params = list(inspect.signature(func).parameters.values())
    for p in params:
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            raise ValueError(f"{what} of {plugin_id!r}: parameter {p.name!r} must be positional-or-keyword or "
                             "keyword-only (no *args, **kwargs or positional-only)")
    return params


def _is_tensor_desc(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, TensorDesc)


def _output_count(annotation: Any, plugin_id: str) -> int:
    if _is_tensor_desc(annotation):
        return 1
    origin = typing.get_origin(annotation)
    if origin in (tuple, Tuple):
        args = typing.get_args(annotation)
        if args and all(_is_tensor_desc(a) for a in args):
            return len(args)
    raise ValueError(f"register of {plugin_id!r}: the return annotation must be TensorDesc or Tuple[TensorDesc, ...] "
                     f"with one entry per output (got {annotation!r})")


class PluginDef:
    """One registered plugin: its id, its functions and its attributes. ``trtp.op.ns.name`` is this object; calling
    it with the input tensors and the attributes gives what ``network.add_plugin`` takes."""

    def __init__(self, plugin_id: str, register_func: Callable[..., Any], lazy: bool):
        self.plugin_id = plugin_id
        self.namespace, self.name = _split_id(plugin_id)
        self.register_func = register_func
        self.lazy = lazy
        self.input_names: List[str] = []
        self.attrs: List[str] = []  # in registration order
        self.attr_types: Dict[str, AttrType] = {}
        self.num_outputs = 0
        self.impl_func: Optional[Callable[..., Any]] = None
        self.impl_attrs: List[str] = []
        self.impl_tactic = False
        self.autotune_func: Optional[Callable[..., Any]] = None
        self.autotune_attrs: List[str] = []
        self.aot_func: Optional[Callable[..., Any]] = None
        self.aot_attrs: List[str] = []
        self.creator: Any = None
        self._parse_register()

    def _parse_register(self) -> None:
        func, pid = self.register_func, self.plugin_id
        hints = _hints(func)
        params = _parameters(func, "register", pid)
        seen_attr = False
        for p in params:
            if p.name not in hints:
                raise ValueError(f"register of {pid!r}: parameter {p.name!r} has no annotation; every parameter "
                                 "must be annotated")
            if p.default is not inspect.Parameter.empty:
                raise ValueError(f"register of {pid!r}: parameter {p.name!r} has a default; defaults are not allowed")
            annotation = hints[p.name]
            if _is_tensor_desc(annotation):
                if seen_attr:
                    raise ValueError(f"register of {pid!r}: input {p.name!r} comes after an attribute; the "
                                     "TensorDesc inputs come first, then the attributes")
                self.input_names.append(p.name)
                continue
            seen_attr = True
            if p.name in _RESERVED_ATTRS:
                raise ValueError(f"register of {pid!r}: {p.name!r} cannot name an attribute")
            self.attrs.append(p.name)
            self.attr_types[p.name] = attr_type(p.name, annotation, self.lazy)
        if not self.input_names or params[0].name != self.input_names[0]:
            raise ValueError(f"register of {pid!r}: the first parameter must be a TensorDesc input")
        if "return" not in hints:
            raise ValueError(f"register of {pid!r}: the return annotation is required (TensorDesc or "
                             "Tuple[TensorDesc, ...])")
        self.num_outputs = _output_count(hints["return"], pid)

    # ---- impl and autotune ----
    def _attr_subset(self, names: List[str], hints: Dict[str, Any], what: str) -> List[str]:
        order = {name: i for i, name in enumerate(self.attrs)}
        previous = -1
        for name in names:
            if name not in order:
                raise ValueError(f"{what} of {self.plugin_id!r}: {name!r} is not an attribute of the plugin "
                                 f"(attributes: {self.attrs})")
            if order[name] < previous:
                raise ValueError(f"{what} of {self.plugin_id!r}: the attributes must come in registration order "
                                 f"{self.attrs}")
            previous = order[name]
            if name in hints:
                registered = self.attr_types[name]
                given = attr_type(name, hints[name], True)
                if given.kind is not registered.kind or (given.dtype is not None and given.dtype != registered.dtype):
                    raise ValueError(f"{what} of {self.plugin_id!r}: attribute {name!r} is annotated "
                                     f"{given.describe()}; register says {registered.describe()}")
        return names

    def _check_inputs(self, params: List[inspect.Parameter], hints: Dict[str, Any], what: str,
                      expected: type) -> List[str]:
        names = [p.name for p in params]
        count = len(self.input_names)
        if names[:count] != self.input_names:
            raise ValueError(f"{what} of {self.plugin_id!r}: the parameters must start with the inputs "
                             f"{self.input_names}, as in register (got {names[:count]})")
        for name in self.input_names:
            if name in hints and not (isinstance(hints[name], type) and issubclass(hints[name], expected)):
                raise ValueError(f"{what} of {self.plugin_id!r}: input {name!r} must be annotated "
                                 f"{expected.__name__}")
        return names[count:]

    def set_impl(self, func: Callable[..., Any]) -> None:
        if self.impl_func is not None:
            raise ValueError(f"impl of {self.plugin_id!r} is already defined")
        hints = _hints(func)
        params = _parameters(func, "impl", self.plugin_id)
        rest = self._check_inputs(params, hints, "impl", Tensor)
        tactic = bool(rest) and rest[-1] == "tactic"
        tail = ["outputs", "stream"] + (["tactic"] if tactic else [])
        if rest[-len(tail):] != tail:
            raise ValueError(f"impl of {self.plugin_id!r}: the parameters must be the inputs, some attributes, then "
                             f"outputs, stream and an optional tactic (got {[p.name for p in params]})")
        for name in ("stream", "tactic"):
            if name in tail and name in hints and hints[name] is not int:
                raise ValueError(f"impl of {self.plugin_id!r}: {name!r} must be annotated int")
        self.impl_attrs = self._attr_subset(rest[: -len(tail)], hints, "impl")
        self.impl_tactic = tactic
        self.impl_func = func

    def set_autotune(self, func: Callable[..., Any]) -> None:
        if self.autotune_func is not None:
            raise ValueError(f"autotune of {self.plugin_id!r} is already defined")
        hints = _hints(func)
        params = _parameters(func, "autotune", self.plugin_id)
        rest = self._check_inputs(params, hints, "autotune", TensorDesc)
        if not rest or rest[-1] != "outputs":
            raise ValueError(f"autotune of {self.plugin_id!r}: the parameters must be the inputs, some attributes, "
                             f"then outputs (got {[p.name for p in params]})")
        self.autotune_attrs = self._attr_subset(rest[:-1], hints, "autotune")
        self.autotune_func = func

    def set_aot_impl(self, func: Callable[..., Any]) -> None:
        if self.aot_func is not None:
            raise ValueError(f"aot_impl of {self.plugin_id!r} is already defined")
        hints = _hints(func)
        params = _parameters(func, "aot_impl", self.plugin_id)
        rest = self._check_inputs(params, hints, "aot_impl", TensorDesc)
        if rest[-2:] != ["outputs", "tactic"]:
            raise ValueError(f"aot_impl of {self.plugin_id!r}: the parameters must be the inputs, some attributes, "
                             f"then outputs and tactic (got {[p.name for p in params]})")
        if "tactic" in hints and hints["tactic"] is not int:
            raise ValueError(f"aot_impl of {self.plugin_id!r}: 'tactic' must be annotated int")
        if "return" not in hints:
            raise ValueError(f"aot_impl of {self.plugin_id!r}: the return annotation is required: Tuple[str | bytes, "
                             "str | bytes, KernelLaunchParams, SymExprs]")
        _check_aot_return(hints["return"], self.plugin_id)
        self.aot_attrs = self._attr_subset(rest[:-2], hints, "aot_impl")
        self.aot_func = func

    def require_impl(self) -> None:
        if self.impl_func is None:
            raise ValueError(f"tensorrt.plugin {self.plugin_id!r} has no @impl function; define one with "
                             "@tensorrt.plugin.impl (JIT) before creating the plugin")

    def choose(self, request: Any) -> bool:
        """Whether an instance asked for with request (a QuickPluginCreationRequest name, or None) is AOT: None is
        JIT; STRICT_* gives that kind or ValueError; with one implementation defined, that one; with both,
        PREFER_* decides and anything else is a ValueError."""
        pid = self.plugin_id
        text = "" if request is None else str(getattr(request, "name", request))
        has_jit, has_aot = self.impl_func is not None, self.aot_func is not None
        if request is None:
            self.require_impl()
            return False
        if "STRICT_AOT" in text:
            if not has_aot:
                from ._aot import aot_missing

                raise aot_missing(pid)
            return True
        if "STRICT_JIT" in text:
            self.require_impl()
            return False
        if has_jit != has_aot:
            return has_aot
        if not has_jit:
            raise ValueError(f"tensorrt.plugin {pid!r} has no @impl function and no @aot_impl function; define one "
                             "of them (JIT or AOT) before creating the plugin")
        if "PREFER_AOT" in text:
            return True
        if "PREFER_JIT" in text:
            return False
        raise ValueError(f"tensorrt.plugin {pid!r} has both JIT (@impl) and AOT (@aot_impl) implementations: create "
                         "the network with NetworkDefinitionCreationFlag.PREFER_AOT_PYTHON_PLUGINS or "
                         "NetworkDefinitionCreationFlag.PREFER_JIT_PYTHON_PLUGINS should be specified, or pass "
                         "add_plugin(..., aot=True/False)")

    def instance(self, attrs: Dict[str, Any], phase: Any, aot: bool) -> Any:
        """A new plugin object of the chosen kind."""
        if aot:
            from ._aot import AotPlugin

            return AotPlugin(self, attrs, phase)
        from ._plugin import JitPlugin

        return JitPlugin(self, attrs, phase)

    # ---- the creator ----
    def register_creator(self) -> None:
        from ._plugin import JitCreator

        if self.creator is not None:
            return
        creator = JitCreator(self)
        if not _kiln.get_plugin_registry().register_creator(creator, self.namespace):
            raise ValueError(f"tensorrt.plugin {self.plugin_id!r}: the plugin registry refused the creator (is a "
                             f"creator {self.name!r} version \"1\" namespace {self.namespace!r} already registered?)")
        self.creator = creator
        QDP_CREATORS[self.plugin_id] = creator

    # ---- creating instances ----
    def __call__(self, *inputs: Any, **attrs: Any) -> Callable[..., Tuple[List[Any], List[Any], Any]]:
        pid = self.plugin_id
        if len(inputs) != len(self.input_names):
            raise ValueError(f"op {pid!r}: expected {len(self.input_names)} input tensors "
                             f"({', '.join(self.input_names)}), got {len(inputs)}")
        for name, tensor in zip(self.input_names, inputs):
            if not isinstance(tensor, _kiln.ITensor):
                raise ValueError(f"op {pid!r}: input {name!r} must be a tensorrt.ITensor, got a "
                                 f"{type(tensor).__name__}")
        unknown = [name for name in attrs if name not in self.attr_types]
        missing = [name for name in self.attrs if name not in attrs]
        if unknown or missing:
            problems = (f"; unknown: {unknown}" if unknown else "") + (f"; missing: {missing}" if missing else "")
            raise ValueError(f"op {pid!r}: attributes are given by keyword, exactly {self.attrs}{problems}")
        values = {name: self.attr_types[name].check(attrs[name], pid) for name in self.attrs}
        if self.lazy:
            for name, attr in self.attr_types.items():
                if attr.kind is np.ndarray and attr.dtype is None:
                    attr.dtype = values[name].dtype
        self.register_creator()
        ranks = [_rank(tensor) for tensor in inputs]
        tensors = list(inputs)

        def create(request: Any = None) -> Tuple[List[Any], List[Any], Any]:
            """The (inputs, shape inputs, plugin) triple network.add_plugin takes: JIT or AOT as request asks
            (PluginDef.choose)."""
            plugin = self.instance(values, _kiln.TensorRTPhase.BUILD, self.choose(request))
            if None not in ranks:
                plugin._input_ranks = ranks
            return tensors, [], plugin

        return create

    def __repr__(self) -> str:
        return f"<tensorrt.plugin {self.plugin_id!r}: inputs {self.input_names}, attributes {self.attrs}>"


def _check_aot_return(annotation: Any, plugin_id: str) -> None:
    """aot_impl's return annotation: a Tuple of 4 entries, the last two KernelLaunchParams and a SymExprs."""
    from ._aot import KernelLaunchParams, SymExprs

    args = typing.get_args(annotation) if typing.get_origin(annotation) in (tuple, Tuple) else ()
    if len(args) != 4 or args[2] is not KernelLaunchParams or not (isinstance(args[3], type)
                                                                   and issubclass(args[3], SymExprs)):
        raise ValueError(f"aot_impl of {plugin_id!r}: the return annotation must be Tuple[str | bytes, str | bytes, "
                         f"KernelLaunchParams, SymExprs] (got {annotation!r})")


def _rank(tensor: Any) -> Optional[int]:
    """The tensor's rank, or None when the network does not know it yet."""
    try:
        rank = len(tensor.shape)
    except Exception:  # noqa: BLE001
        return None
    return rank if rank >= 0 else None


class _Namespace:
    """``op.<namespace>``: the plugins registered in one namespace, as attributes."""

    def __init__(self, name: str):
        self._name = name
        self._plugins: Dict[str, PluginDef] = {}

    def __getattr__(self, name: str) -> PluginDef:
        try:
            return self.__dict__["_plugins"][name]
        except KeyError:
            raise AttributeError(f"no plugin {self._name}::{name} is registered with tensorrt.plugin") from None

    def __dir__(self) -> List[str]:
        return sorted(self._plugins)


class _Op:
    """``op``: ``op.ns.name(inputs..., attr=value)`` gives what ``network.add_plugin`` takes."""

    def __init__(self) -> None:
        self._namespaces: Dict[str, _Namespace] = {}

    def __getattr__(self, name: str) -> _Namespace:
        try:
            return self.__dict__["_namespaces"][name]
        except KeyError:
            raise AttributeError(f"no plugin namespace {name!r} is registered with tensorrt.plugin") from None

    def __dir__(self) -> List[str]:
        return sorted(self._namespaces)

    def _add(self, pdef: PluginDef) -> None:
        namespace = self._namespaces.setdefault(pdef.namespace, _Namespace(pdef.namespace))
        if pdef.name in namespace._plugins:
            raise ValueError(f"register: {pdef.plugin_id!r} is already registered")
        namespace._plugins[pdef.name] = pdef


op = _Op()


def _lookup(plugin_id: str, what: str) -> PluginDef:
    if plugin_id not in QDP_REGISTRY:
        raise ValueError(f"{what}: {plugin_id!r} is not registered; decorate its description with "
                         f"@tensorrt.plugin.register({plugin_id!r}) first")
    return QDP_REGISTRY[plugin_id]


def register(plugin_id: str, lazy_register: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers the plugin ``"namespace::name"`` whose outputs the decorated function describes from its inputs'
    ``TensorDesc``s and its typed attributes. Unless ``lazy_register``, its creator (version ``"1"``) enters
    ``tensorrt.get_plugin_registry()`` now; lazily, at the first ``op.ns.name(...)`` call. Returns the function
    unchanged."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        if plugin_id in QDP_REGISTRY:
            raise ValueError(f"register: {plugin_id!r} is already registered")
        pdef = PluginDef(plugin_id, func, lazy_register)
        op._add(pdef)
        QDP_REGISTRY[plugin_id] = pdef
        if not lazy_register:
            try:
                pdef.register_creator()
            except Exception:
                del QDP_REGISTRY[plugin_id]
                del op._namespaces[pdef.namespace]._plugins[pdef.name]
                raise
        return func

    return decorator


def impl(plugin_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Defines the JIT implementation of a registered plugin: ``(inputs..., <attributes>, outputs, stream[,
    tactic]) -> None``, run at every enqueue with :class:`Tensor`s (host memory on kiln's host backend). Only the
    attributes it names are kept in the plan."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _lookup(plugin_id, "impl").set_impl(func)
        return func

    return decorator


def autotune(plugin_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Defines the type/format combinations and custom tactics of a registered plugin: ``(inputs..., <attributes>,
    outputs) -> List[AutoTuneCombination]``."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _lookup(plugin_id, "autotune").set_autotune(func)
        return func

    return decorator
