# SPDX-License-Identifier: Apache-2.0
"""The ahead-of-time (AOT) part of ``tensorrt.plugin``: ``aot_impl`` and the types its functions return
(``KernelLaunchParams``, ``SymExprs``, ``SymIntExprs``, ``SymInt32``, ``SymInt16``, ``SymInt8``), and the plugin
class that hands the kernel to kiln's builder.

An ``aot_impl`` function gets the inputs' and outputs' ``TensorDesc``s (concrete type and format, symbolic
``shape_expr``), the attributes it names and the chosen tactic, and returns ``(kernel name, PTX, KernelLaunchParams,
SymIntExprs)``. kiln's builder keeps the kernel name, the PTX and the launch values and scalar arguments as
expressions of the input extents in the plan (``AotPlugin.get_aot_kernel``, called through kiln's C++ capability
``kiln::IPluginV3AotBuild``); the engine evaluates them for each run's shapes and launches the kernel itself with
(input pointers, the int32 scalars, output pointers). The plan keeps no attribute and needs no Python to load or
run: only the CUDA backend runs it (the host backend refuses, naming the plugin).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, List, Optional, Tuple, Union

from .. import _kiln
from ._desc import TensorDesc
from ._expr import ShapeExpr, ShapeExprs
from ._plugin import JitPlugin, _raise_from_user


class _SymInt:
    """A symbolic integer scalar of one width: an int or a ``ShapeExpr`` (or an ``IDimensionExpr`` kiln gave)."""

    _bits = 32

    def __init__(self, value: Union[int, ShapeExpr, "_SymInt", Any]):
        if isinstance(value, _SymInt):
            value = value._value
        if isinstance(value, bool):
            raise ValueError(f"{type(self).__name__}: a bool is not a scalar")
        if isinstance(value, int):
            limit = 1 << (self._bits - 1)
            if not -limit <= value < limit:
                raise ValueError(f"{type(self).__name__}: {value} does not fit in int{self._bits}")
        elif not isinstance(value, (ShapeExpr, _kiln.IDimensionExpr)):
            raise ValueError(f"{type(self).__name__}: expected an int or a ShapeExpr, got a {type(value).__name__}")
        self._value = value

    def _materialize(self, builder: Any) -> Any:
        """The IDimensionExpr of the value in builder's expressions."""
        if isinstance(self._value, _kiln.IDimensionExpr):
            return self._value
        if isinstance(self._value, int):
            return builder.constant(self._value)
        return self._value._materialize(builder)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._value!r})"


class SymInt32(_SymInt):
    """A symbolic int32 scalar: a launch value or an extra kernel argument."""

    _bits = 32


class SymInt16(_SymInt):
    """A symbolic int16 scalar. kiln's AOT kernels take int32 arguments only: ``SymIntExprs`` refuses it."""

    _bits = 16


class SymInt8(_SymInt):
    """A symbolic int8 scalar. kiln's AOT kernels take int32 arguments only: ``SymIntExprs`` refuses it."""

    _bits = 8


class SymExprs:
    """A fixed-length list of symbolic scalars (``len``, iteration, ``[i]``, ``[i] = value``)."""

    def __init__(self, length: int):
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise ValueError(f"{type(self).__name__}: the length must be an int >= 0, got {length!r}")
        self._items: List[Optional[_SymInt]] = [None] * length

    @classmethod
    def from_tuple(cls, values: Iterable[Any]) -> "SymExprs":
        items = list(values)
        made = cls(len(items))
        for index, value in enumerate(items):
            made[index] = value
        return made

    def _convert(self, value: Any) -> _SymInt:
        return value if isinstance(value, _SymInt) else SymInt32(value)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(list(self._items))

    def __getitem__(self, index: int) -> Optional[_SymInt]:
        return self._items[index]

    def __setitem__(self, index: int, value: Any) -> None:
        if not -len(self._items) <= index < len(self._items):
            raise IndexError(f"{type(self).__name__}: index {index} out of range for {len(self._items)} entries")
        self._items[index] = self._convert(value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._items!r})"


class SymIntExprs(SymExprs):
    """The extra scalar arguments of an AOT kernel, each a ``SymInt32`` (ints and ``ShapeExpr``s are converted;
    ``SymInt16``/``SymInt8`` are refused: kiln passes int32 scalars). The kernel receives the input pointers, then
    these, then the output pointers."""

    def _convert(self, value: Any) -> _SymInt:
        if isinstance(value, _SymInt) and not isinstance(value, SymInt32):
            raise ValueError(f"SymIntExprs: {type(value).__name__} is not supported; kiln's AOT kernels take int32 "
                             "scalar arguments (SymInt32)")
        return SymInt32(value)


_LAUNCH_FIELDS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "shared_mem")


class KernelLaunchParams:
    """An AOT kernel's launch: grid and block extents and the dynamic shared memory in bytes, each an int,
    ``ShapeExpr`` or ``SymInt32`` (kept as ``SymInt32``)."""

    def __init__(self, grid_x: Any = 1, grid_y: Any = 1, grid_z: Any = 1, block_x: Any = 1, block_y: Any = 1,
                 block_z: Any = 1, shared_mem: Any = 0):
        values = (grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem)
        for name, value in zip(_LAUNCH_FIELDS, values):
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _LAUNCH_FIELDS:
            raise AttributeError(f"KernelLaunchParams has no attribute {name!r} (it has {', '.join(_LAUNCH_FIELDS)})")
        if isinstance(value, _SymInt) and not isinstance(value, SymInt32):
            raise ValueError(f"KernelLaunchParams.{name}: expected an int, ShapeExpr or SymInt32, got a "
                             f"{type(value).__name__}")
        object.__setattr__(self, name, SymInt32(value))

    def __repr__(self) -> str:
        return "KernelLaunchParams(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in _LAUNCH_FIELDS) + ")"


def aot_missing(plugin_id: str) -> ValueError:
    """The error for an AOT request of a plugin without ``aot_impl``."""
    return ValueError(f"tensorrt.plugin {plugin_id!r}: an AOT plugin was asked for, but no @tensorrt.plugin.aot_impl "
                      "function is defined for it")


def aot_impl(plugin_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Defines the ahead-of-time implementation of a registered plugin: ``(inputs..., <attributes>, outputs, tactic)
    -> Tuple[str | bytes, str | bytes, KernelLaunchParams, SymExprs]`` giving the kernel name, its PTX, its launch
    and its extra int32 arguments. The return annotation is required."""
    from ._registry import _lookup

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _lookup(plugin_id, "aot_impl").set_aot_impl(func)
        return func

    return decorator


def _text(value: Any, what: str, pid: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl returned a {type(value).__name__} as the {what}; it must be "
                     "a str or bytes")


class AotPlugin(JitPlugin):
    """One instance of a ``tensorrt.plugin`` plugin built ahead of time: the same build methods as the JIT plugin
    (output types and shapes from ``register``, formats and tactics from ``autotune``), no fields in the plan, and
    ``get_aot_kernel``, which kiln's bindings turn into the C++ capability ``kiln::IPluginV3AotBuild``. The engine
    never runs the plugin itself."""

    def clone(self) -> "AotPlugin":
        copy = AotPlugin(self._pdef, self._attrs, self._phase)
        copy.__dict__.update(self.__dict__)
        copy._fields = None
        return copy

    def get_fields_to_serialize(self) -> Any:
        self._fields = _kiln.PluginFieldCollection([])
        return self._fields

    def attach_to_context(self, context: Any) -> "AotPlugin":
        return self.clone()

    def get_aot_kernel(self, inputs: List[Any], in_out: List[Any], num_inputs: int, tactic: int,
                       expr_builder: Any) -> Tuple[str, bytes, List[Any], List[Any]]:
        """Calls ``aot_impl`` for the chosen types, formats and tactic; gives (kernel name, PTX, the 7 launch values
        as IDimensionExprs, the scalar arguments as IDimensionExprs)."""
        pdef = self._pdef
        pid = pdef.plugin_id
        descs = []
        for index, dims in enumerate(inputs):
            chosen = in_out[index].desc
            desc = TensorDesc(dtype=chosen.type, format=chosen.format, scale=chosen.scale)
            desc._shape_expr = ShapeExprs.from_tuple(
                ShapeExpr._bound(dims[axis], expr_builder) for axis in range(len(dims)))
            desc._index = index
            descs.append(desc._freeze())
        registered = self._call_register(descs)
        outputs = []
        for index, output in enumerate(registered):
            chosen = in_out[num_inputs + index].desc
            desc = TensorDesc(dtype=chosen.type, format=chosen.format, scale=chosen.scale)
            desc._shape_expr = output.shape_expr._copy()
            outputs.append(desc)
        attrs = {name: self._attrs[name] for name in pdef.aot_attrs}
        try:
            result = pdef.aot_func(*descs, **attrs, outputs=tuple(outputs), tactic=int(tactic))
        except Exception as error:  # noqa: BLE001  (reported with the plugin's name)
            _raise_from_user(pdef, "aot_impl", pdef.aot_func, error)
        if not isinstance(result, (tuple, list)) or len(result) != 4:
            got = f"a {type(result).__name__}" + (f" of {len(result)} items" if isinstance(result, (tuple, list))
                                                  else "")
            raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl returned {got}; it must return (kernel name, "
                             "compiled kernel (PTX), KernelLaunchParams, SymExprs)")
        name, ptx, launch, scalars = result
        name_bytes = _text(name, "kernel name", pid)
        ptx_bytes = _text(ptx, "compiled kernel (PTX)", pid)
        if not name_bytes:
            raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl returned an empty kernel name")
        if not ptx_bytes.strip(b"\0 \n\t"):
            raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl returned an empty compiled kernel (PTX)")
        if not isinstance(launch, KernelLaunchParams):
            raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl returned a {type(launch).__name__} as the launch "
                             "parameters; it must be a KernelLaunchParams")
        if not isinstance(scalars, SymExprs):
            raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl returned a {type(scalars).__name__} as the extra "
                             "arguments; it must be a SymExprs (SymIntExprs)")
        args = []
        for index, scalar in enumerate(scalars):
            if scalar is None:
                raise ValueError(f"tensorrt.plugin {pid!r}: aot_impl left extra argument {index} unset")
            if not isinstance(scalar, SymInt32):
                raise ValueError(f"tensorrt.plugin {pid!r}: extra argument {index} is a {type(scalar).__name__}; "
                                 "kiln's AOT kernels take int32 arguments (SymInt32)")
            args.append(scalar._materialize(expr_builder))
        values = [getattr(launch, field)._materialize(expr_builder) for field in _LAUNCH_FIELDS]
        return name_bytes.decode("utf-8"), ptx_bytes, values, args

    def enqueue_host(self, *args: Any) -> None:  # pragma: no cover  (kiln never runs an AOT plugin object)
        raise RuntimeError(f"tensorrt.plugin {self._pdef.plugin_id!r}: an AOT plugin is run by the engine, not here")

    def enqueue(self, *args: Any) -> None:  # pragma: no cover
        raise RuntimeError(f"tensorrt.plugin {self._pdef.plugin_id!r}: an AOT plugin is run by the engine, not here")

