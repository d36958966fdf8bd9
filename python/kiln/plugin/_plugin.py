# SPDX-License-Identifier: Apache-2.0
"""The plugin and the creator behind every ``tensorrt.plugin`` registration, written on kiln's class-based Python
plugins (``IPluginV3`` with ``IPluginV3OneCore``, ``IPluginV3OneBuildV2`` and ``IPluginV3OneRuntime``;
``IPluginCreatorV3One``). Each method turns kiln's call into a call of the user's functions:

* ``get_output_data_types(input_types)`` calls ``register`` with fake extents (only the types are known then);
* ``get_output_shapes(inputs, shape_inputs, expr_builder)`` calls ``register`` with extents bound to
  ``expr_builder``, and declares the size tensors;
* ``supports_format_combination``, ``configure_plugin`` and ``get_valid_tactics`` call ``autotune`` with concrete
  shapes (without one: the network's types, LINEAR, no custom tactics);
* ``get_fields_to_serialize()`` gives the attributes ``impl`` names, as fields;
* ``enqueue_host(...)`` (kiln's host backend) and ``enqueue(...)`` (GPU engines) call ``impl`` with host or device
  :class:`Tensor`s.

An exception in a user function is raised again as a ``RuntimeError`` that names the plugin (``"ns::name"``) and
the function; kiln's bindings report it with the plugin's name, version and namespace and fail the step.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import _kiln
from ._autotune import merge
from ._desc import Shape, SizeTensorDesc, TensorDesc
from ._expr import MAX_DIMS, ShapeExpr, ShapeExprs, _UnknownRank, _UnknownRankShapeExprs
from ._tensor import _address, _device_tensor, _host_tensor


def _raise_from_user(pdef: Any, kind: str, func: Any, error: BaseException) -> None:
    name = getattr(func, "__qualname__", repr(func))
    raise RuntimeError(f"tensorrt.plugin {pdef.plugin_id!r}: the @{kind} function {name}() raised "
                       f"{type(error).__name__}: {error}") from error


class JitPlugin(_kiln.IPluginV3, _kiln.IPluginV3OneCore, _kiln.IPluginV3OneBuildV2, _kiln.IPluginV3OneRuntime):
    """One instance of a ``tensorrt.plugin`` plugin with ``impl`` (JIT): its definition and attribute values."""

    def __init__(self, pdef: Any, attrs: Dict[str, Any], phase: Any = None):
        for base in (_kiln.IPluginV3, _kiln.IPluginV3OneCore, _kiln.IPluginV3OneBuildV2, _kiln.IPluginV3OneRuntime):
            base.__init__(self)
        self.plugin_name = pdef.name
        self.plugin_version = "1"
        self.plugin_namespace = pdef.namespace
        self.num_outputs = pdef.num_outputs
        self._pdef = pdef
        self._attrs = dict(attrs)
        self._phase = phase
        self._input_ranks: Optional[List[int]] = None
        self._input_types: Optional[List[Any]] = None
        self._output_types: Optional[List[Any]] = None
        # The types of the first get_output_data_types call (the network's): without an autotune function the plugin
        # supports these only, though the builder asks for others too (kFP16 or kBF16 offer reduced input types).
        self._network_types: Optional[Tuple[List[Any], List[Any]]] = None
        self._aliases: List[int] = [-1] * pdef.num_outputs
        self._combos: Optional[List[Tuple[Tuple[int, ...], Tuple[int, ...], Tuple[int, ...]]]] = None
        self._combos_key: Any = None
        self._chosen: Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]] = None
        self._tactic = 0
        self._fields = None

    # ---- core ----
    def get_capability_interface(self, type: Any) -> "JitPlugin":  # noqa: A002
        return self

    def clone(self) -> "JitPlugin":
        copy = JitPlugin(self._pdef, self._attrs, self._phase)
        copy.__dict__.update(self.__dict__)
        copy._fields = None
        return copy

    # ---- register: output types and shapes ----
    def _register_attrs(self) -> Dict[str, Any]:
        missing = [name for name in self._pdef.attrs if name not in self._attrs]
        if missing:
            raise ValueError(f"tensorrt.plugin {self._pdef.plugin_id!r}: the register function needs the attributes "
                             f"{missing}, which this instance was not created with (a plan keeps only the attributes "
                             "impl names)")
        return {name: self._attrs[name] for name in self._pdef.attrs}

    def _call_register(self, descs: Sequence[TensorDesc]) -> Tuple[TensorDesc, ...]:
        pdef = self._pdef
        attrs = self._register_attrs()
        try:
            result = pdef.register_func(*descs, **attrs)
        except _UnknownRank:
            raise
        except Exception as error:  # noqa: BLE001  (reported with the plugin's name)
            _raise_from_user(pdef, "register", pdef.register_func, error)
        outputs = (result,) if isinstance(result, TensorDesc) else result
        if not isinstance(outputs, (tuple, list)) or not all(isinstance(o, TensorDesc) for o in outputs):
            raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: the register function returned "
                             f"{type(result).__name__}; it must return a TensorDesc or a tuple of them")
        if len(outputs) != pdef.num_outputs:
            raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: the register function returned {len(outputs)} "
                             f"outputs; its return annotation declares {pdef.num_outputs}")
        for index, output in enumerate(outputs):
            if output.dtype is None:
                raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: output {index} has no dtype")
            if not output.has_shape_expr:
                raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: output {index} has no shape_expr")
        return tuple(outputs)

    def _record_aliases(self, outputs: Sequence[TensorDesc]) -> None:
        aliases = []
        for output in outputs:
            source = output.get_aliased()
            aliases.append(source._index if source is not None else -1)
        self._aliases = aliases

    def _fake_outputs(self, input_types: Sequence[Any]) -> Tuple[TensorDesc, ...]:
        def descs(ranks: Optional[Sequence[int]]) -> List[TensorDesc]:
            made = []
            for index, dtype in enumerate(input_types):
                desc = TensorDesc(dtype=dtype)
                desc._shape_expr = _UnknownRankShapeExprs() if ranks is None else ShapeExprs(ranks[index], _fake=True)
                desc._index = index
                made.append(desc._freeze())
            return made

        if self._input_ranks is not None:
            return self._call_register(descs(self._input_ranks))
        # The ranks are unknown when the ONNX parser made the plugin: first without them, then (when the function
        # needs them) with each rank in turn; get_output_shapes checks the types again with the real ranks.
        try:
            return self._call_register(descs(None))
        except _UnknownRank:
            pass
        for rank in range(1, MAX_DIMS + 1):
            try:
                return self._call_register(descs([rank] * len(input_types)))
            except Exception:  # noqa: BLE001  (a guess that did not fit)
                continue
        raise ValueError(f"tensorrt.plugin {self._pdef.plugin_id!r}: the register function needs the inputs' ranks "
                         "to give the output types, and kiln does not know them when the ONNX parser adds the plugin "
                         "(no rank from 1 to 8 worked for every input)")

    def get_output_data_types(self, input_types: List[Any]) -> List[Any]:
        self._input_types = list(input_types)
        outputs = self._fake_outputs(self._input_types)
        self._record_aliases(outputs)
        self._output_types = [output.dtype for output in outputs]
        if self._network_types is None:
            self._network_types = (list(self._input_types), list(self._output_types))
        return list(self._output_types)

    def get_output_shapes(self, inputs: List[Any], shape_inputs: List[Any], expr_builder: Any) -> List[Any]:
        pdef = self._pdef
        if len(shape_inputs) != 0:
            raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: shape inputs are not supported")
        self._input_ranks = [len(dims) for dims in inputs]
        types = self._input_types if self._input_types is not None else [None] * len(inputs)
        descs = []
        for index, dims in enumerate(inputs):
            desc = TensorDesc(dtype=types[index])
            desc._shape_expr = ShapeExprs.from_tuple(
                ShapeExpr._bound(dims[axis], expr_builder) for axis in range(len(dims)))
            desc._index = index
            descs.append(desc._freeze())
        outputs = self._call_register(descs)
        if self._output_types is not None:
            got = [output.dtype for output in outputs]
            if got != self._output_types:
                raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: with the inputs' real ranks the register "
                                 f"function gives the output types {got}, not {self._output_types} as before")
        self._record_aliases(outputs)
        for index, output in enumerate(outputs):
            if isinstance(output, SizeTensorDesc):
                output._index_out = index
                output._declared = expr_builder.declare_size_tensor(
                    index, output.opt._materialize(expr_builder), output.upper_bound._materialize(expr_builder))
        shapes = []
        for output in outputs:
            if isinstance(output, SizeTensorDesc):
                shapes.append(_kiln.DimsExprs(0))
            else:
                shapes.append(_kiln.DimsExprs([extent._materialize(expr_builder) for extent in output.shape_expr]))
        return shapes

    def get_aliased_input(self, output_index: int) -> int:
        return self._aliases[output_index] if 0 <= output_index < len(self._aliases) else -1

    # ---- autotune: formats and tactics ----
    def _combinations(self, in_out: Sequence[Any], num_inputs: int) -> List[Tuple[Tuple[int, ...], ...]]:
        key = tuple((tuple(d.desc.dims), tuple(d.min), tuple(d.opt), tuple(d.max)) for d in in_out)
        if self._combos is not None and key == self._combos_key:
            return self._combos
        pdef = self._pdef
        in_types = self._input_types or [d.desc.type for d in in_out[:num_inputs]]
        out_types = self._output_types or [d.desc.type for d in in_out[num_inputs:]]
        if pdef.autotune_func is None and self._network_types is not None:
            in_types, out_types = self._network_types
        types = list(in_types) + list(out_types)
        if pdef.autotune_func is None:
            linear = int(_kiln.TensorFormat.LINEAR)
            combos = [(tuple(int(t) for t in types), (linear,) * len(in_out), ())]
        else:
            descs = []
            for index, dynamic in enumerate(in_out):
                desc = TensorDesc(dtype=types[index], format=dynamic.desc.format, scale=dynamic.desc.scale)
                dims = tuple(dynamic.desc.dims)
                desc._shape = Shape(dims, tuple(dynamic.min), tuple(dynamic.opt), tuple(dynamic.max))
                if index < num_inputs:
                    desc._index = index
                    desc._freeze()
                descs.append(desc)
            attrs = {name: self._attrs[name] for name in pdef.autotune_attrs}
            try:
                result = pdef.autotune_func(*descs[:num_inputs], **attrs, outputs=tuple(descs[num_inputs:]))
            except Exception as error:  # noqa: BLE001
                _raise_from_user(pdef, "autotune", pdef.autotune_func, error)
            if not isinstance(result, (list, tuple)):
                raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: the autotune function returned a "
                                 f"{type(result).__name__}; it must return a list of AutoTuneCombination")
            combos = merge(result, len(in_out))
        self._combos, self._combos_key = combos, key
        return combos

    def supports_format_combination(self, pos: int, in_out: List[Any], num_inputs: int) -> bool:
        combos = self._combinations(in_out, num_inputs)
        wanted = [(int(in_out[i].desc.type), int(in_out[i].desc.format)) for i in range(pos + 1)]
        return any(all(types[i] == t and formats[i] == f for i, (t, f) in enumerate(wanted))
                   for types, formats, _ in combos)

    def configure_plugin(self, inp: List[Any], out: List[Any]) -> None:
        in_out = list(inp) + list(out)
        self._combinations(in_out, len(inp))
        self._chosen = (tuple(int(d.desc.type) for d in in_out), tuple(int(d.desc.format) for d in in_out))

    def get_valid_tactics(self) -> List[int]:
        if self._chosen is None or self._combos is None:
            return []
        for types, formats, tactics in self._combos:
            if (types, formats) == self._chosen:
                return list(tactics)
        return []

    def get_workspace_size(self, inp: List[Any], out: List[Any]) -> int:
        return 0

    def get_fields_to_serialize(self) -> Any:
        fields = [self._pdef.attr_types[name].field(self._attrs[name]) for name in self._pdef.impl_attrs]
        self._fields = _kiln.PluginFieldCollection(fields)
        return self._fields

    # ---- runtime ----
    def set_tactic(self, tactic: int) -> None:
        self._tactic = int(tactic)

    def on_shape_change(self, inp: List[Any], out: List[Any]) -> None:
        pass

    def attach_to_context(self, context: Any) -> "JitPlugin":
        return self.clone()

    def _call_impl(self, inputs: List[Any], outputs: List[Any], stream: int) -> None:
        pdef = self._pdef
        kwargs = {name: self._attrs[name] for name in pdef.impl_attrs}
        kwargs["outputs"] = tuple(outputs)
        kwargs["stream"] = stream
        if pdef.impl_tactic:
            kwargs["tactic"] = self._tactic
        try:
            pdef.impl_func(*inputs, **kwargs)
        except Exception as error:  # noqa: BLE001
            _raise_from_user(pdef, "impl", pdef.impl_func, error)

    def enqueue_host(self, input_desc: List[Any], output_desc: List[Any], inputs: List[Any], outputs: List[Any],
                     workspace: Any) -> None:
        """kiln's host backend: impl runs on Tensors over host memory (numpy views)."""
        out_tensors = [_host_tensor(view, desc, read_only=False) for view, desc in zip(outputs, output_desc)]
        # An input is written in place when an output shares its memory (the plan keeps the aliasing, not this
        # object: at run time it is recognised by the addresses).
        shared = {tensor.data_ptr for tensor in out_tensors}
        in_tensors = [_host_tensor(view, desc, read_only=_address(view) not in shared)
                      for view, desc in zip(inputs, input_desc)]
        self._call_impl(in_tensors, out_tensors, 0)

    def enqueue(self, input_desc: List[Any], output_desc: List[Any], inputs: List[int], outputs: List[int],
                workspace: int, stream: int) -> None:
        """GPU engines: impl runs on Tensors over device memory, on the engine's stream."""
        in_tensors = [_device_tensor(address, desc, stream) for address, desc in zip(inputs, input_desc)]
        out_tensors = [_device_tensor(address, desc, stream) for address, desc in zip(outputs, output_desc)]
        self._call_impl(in_tensors, out_tensors, stream)


class JitCreator(_kiln.IPluginCreatorV3One):
    """The creator registered for a ``tensorrt.plugin`` plugin: name and namespace from its id, version ``"1"``,
    one field per attribute."""

    def __init__(self, pdef: Any):
        _kiln.IPluginCreatorV3One.__init__(self)
        self._pdef = pdef
        self.name = pdef.name
        self.plugin_version = "1"
        self.plugin_namespace = pdef.namespace
        self.field_names = _kiln.PluginFieldCollection([pdef.attr_types[name].empty_field() for name in pdef.attrs])

    def create_plugin(self, name: str, field_collection: Any, phase: Any) -> JitPlugin:
        """A JIT or AOT instance. At run time (a plan being loaded) always JIT: an AOT plan holds no plugin. At build
        time (the ONNX parser) an int field ``aot`` that is not an attribute asks for STRICT_AOT (non-zero) or
        STRICT_JIT (0); without it, the one implementation defined, or JIT when both are."""
        pdef = self._pdef
        fields = list(field_collection)
        request = None
        if phase != _kiln.TensorRTPhase.RUNTIME:
            request = "PREFER_JIT"
            for field in fields:
                if field.name == "aot" and "aot" not in pdef.attr_types:
                    request = "STRICT_AOT" if int(field.data.reshape(-1)[0]) != 0 else "STRICT_JIT"
        aot = pdef.choose(request) if request is not None else (pdef.require_impl() or False)
        attrs = {}
        for field in fields:
            attr = pdef.attr_types.get(field.name)
            if attr is not None:
                try:
                    attrs[field.name] = attr.decode(field)
                except Exception as error:  # noqa: BLE001
                    raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: cannot read attribute {field.name!r} "
                                     f"({attr.describe()}): {error}") from error
        needed = pdef.impl_attrs if phase == _kiln.TensorRTPhase.RUNTIME else pdef.attrs
        missing = [attr for attr in needed if attr not in attrs]
        if missing:
            raise ValueError(f"tensorrt.plugin {pdef.plugin_id!r}: create_plugin() got no value for the attributes "
                             f"{missing}")
        return pdef.instance(attrs, phase, aot)
