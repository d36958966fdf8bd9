# SPDX-License-Identifier: Apache-2.0
"""Class-based Python plugins for test_python_plugins.py, in a module of their own so that a second process can
import it, register the creators and load a plan built by the first.

* CircPad: circular padding of the last two axes of an NCHW tensor, with dynamic shapes (the pattern of TensorRT's
  class-based Python plugin example).
* NonZero: the indices of the non-zero elements of a 2-D tensor, a data-dependent shape with a size tensor.
* TacticScale: multiplies by a factor, with two custom tactics, a timing-cache ID and a workspace
  (IPluginV3OneBuildV2).
* Failing: raises from the method named by Failing.fail_in, to check how failures are reported.

Every plugin object is recorded in LIVE (weak references) and every call in EVENTS, so tests can check the call order
and that nothing outlives the engines and networks that used it.
"""

import weakref

import numpy as np

import kiln as trt

LIVE = weakref.WeakSet()
EVENTS = []

NAMESPACE = "kiln_test"


def _init_plugin(plugin, name, num_outputs, build=trt.IPluginV3OneBuild):
    for base in (trt.IPluginV3, trt.IPluginV3OneCore, build, trt.IPluginV3OneRuntime):
        base.__init__(plugin)
    plugin.plugin_name = name
    plugin.plugin_version = "1"
    plugin.plugin_namespace = NAMESPACE
    plugin.num_outputs = num_outputs
    LIVE.add(plugin)


def _fields(collection):
    """The fields of a PluginFieldCollection_ as {name: numpy array}."""
    return {field.name: field.data for field in collection}


class _Base:
    """What the test plugins share: get_capability_interface returns self, clone copies __dict__, destroy and the
    runtime calls are recorded."""

    def get_capability_interface(self, type):
        return self

    def clone(self):
        copy = type(self)(**self.arguments())
        copy.__dict__.update(self.__dict__)
        copy.destroyed = False
        return copy

    def destroy(self):
        EVENTS.append((self.plugin_name, "destroy"))
        self.destroyed = True

    def configure_plugin(self, inp, out):
        EVENTS.append((self.plugin_name, "configure_plugin"))
        self.configured = True

    def set_tactic(self, tactic):
        EVENTS.append((self.plugin_name, "set_tactic", tactic))
        self.tactic = tactic

    def on_shape_change(self, inp, out):
        EVENTS.append((self.plugin_name, "on_shape_change", tuple(tuple(d.dims) for d in inp)))

    def attach_to_context(self, context):
        assert isinstance(context, trt.IPluginResourceContext)
        EVENTS.append((self.plugin_name, "attach_to_context"))
        return self.clone()

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        raise RuntimeError("the host backend calls enqueue_host, not enqueue")


class CircPadPlugin(_Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    def __init__(self, pads=(1, 1), phase=None):
        _init_plugin(self, "CircPad", 1)
        self.pads = tuple(int(p) for p in pads)
        self.phase = phase

    def arguments(self):
        return {"pads": self.pads, "phase": self.phase}

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        out = trt.DimsExprs(inputs[0])
        for axis, pad in ((2, self.pads[0]), (3, self.pads[1])):
            out[axis] = expr_builder.operation(trt.DimensionOperation.SUM, inputs[0][axis],
                                               expr_builder.constant(2 * pad))
        return [out]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        if desc.format != trt.TensorFormat.LINEAR:
            return False
        return desc.type == trt.DataType.FLOAT if pos == 0 else desc.type == in_out[0].desc.type

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array(self.pads, np.int32), trt.PluginFieldType.INT32)])

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        EVENTS.append((self.plugin_name, "enqueue_host"))
        ph, pw = self.pads
        assert inputs[0].shape == tuple(input_desc[0].dims) and not inputs[0].flags.writeable
        np.copyto(outputs[0], np.pad(inputs[0], ((0, 0), (0, 0), (ph, ph), (pw, pw)), mode="wrap"))


class CircPadCreator(trt.IPluginCreatorV3One):
    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name = "CircPad"
        self.plugin_version = "1"
        self.plugin_namespace = NAMESPACE
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array([], np.int32), trt.PluginFieldType.INT32)])

    def create_plugin(self, name, field_collection, phase):
        EVENTS.append(("CircPad", "create_plugin", phase))
        fields = _fields(field_collection)
        return CircPadPlugin(tuple(int(v) for v in fields.get("pads", (1, 1))), phase)


class NonZeroPlugin(_Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """Output 0: the indices [K, 2] (int32) of the non-zero elements of a 2-D float input; output 1: K, a size
    tensor (0-D int64)."""

    def __init__(self):
        _init_plugin(self, "NonZero", 2)

    def arguments(self):
        return {}

    def get_output_data_types(self, input_types):
        return [trt.DataType.INT32, trt.DataType.INT64]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        x = inputs[0]
        upper = expr_builder.operation(trt.DimensionOperation.PROD, x[0], x[1])
        opt = expr_builder.operation(trt.DimensionOperation.FLOOR_DIV, upper, expr_builder.constant(2))
        k = expr_builder.declare_size_tensor(1, opt, upper)
        assert k.is_size_tensor() and not k.is_constant()
        return [trt.DimsExprs([k, expr_builder.constant(2)]), trt.DimsExprs(0)]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        wanted = (trt.DataType.FLOAT, trt.DataType.INT32, trt.DataType.INT64)[pos]
        return desc.format == trt.TensorFormat.LINEAR and desc.type == wanted

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection([])

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        indices = np.argwhere(inputs[0] != 0).astype(np.int32)
        assert isinstance(outputs[0], trt.PluginHostBuffer) and tuple(outputs[0].dims) == (-1, 2)
        outputs[0].as_array(indices.shape)[...] = indices
        outputs[1][...] = len(indices)


class NonZeroCreator(trt.IPluginCreatorV3One):
    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "NonZero", "1", NAMESPACE
        self.field_names = trt.PluginFieldCollection([])

    def create_plugin(self, name, field_collection, phase):
        return NonZeroPlugin()


class TacticScalePlugin(_Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuildV2,
                        trt.IPluginV3OneRuntime):
    """y = factor * x with two custom tactics (1: numpy.multiply, 2: a slower Python loop over rows)."""

    ENQUEUES = []  # the tactic of every enqueue_host call

    def __init__(self, factor=2.0):
        _init_plugin(self, "TacticScale", 1, build=trt.IPluginV3OneBuildV2)
        self.factor = float(factor)
        self.timing_cache_id = f"factor={self.factor}"
        self.configured = False

    def arguments(self):
        return {"factor": self.factor}

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(inputs[0])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        return desc.format == trt.TensorFormat.LINEAR and desc.type == trt.DataType.FLOAT

    def get_valid_tactics(self):
        assert self.configured, "configure_plugin comes before get_valid_tactics"
        return [1, 2]

    def get_workspace_size(self, input_desc, output_desc):
        return 256

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("factor", np.array([self.factor], np.float32), trt.PluginFieldType.FLOAT32)])

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        TacticScalePlugin.ENQUEUES.append(self.tactic)
        scratch = workspace.as_array((256,))
        scratch[...] = 0
        if self.tactic == 1:
            np.multiply(inputs[0], np.float32(self.factor), out=outputs[0])
        else:
            for i in range(inputs[0].shape[0]):
                outputs[0][i] = inputs[0][i] * np.float32(self.factor)


class TacticScaleCreator(trt.IPluginCreatorV3One):
    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "TacticScale", "1", NAMESPACE
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("factor", np.array([], np.float32), trt.PluginFieldType.FLOAT32)])

    def create_plugin(self, name, field_collection, phase):
        return TacticScalePlugin(float(_fields(field_collection)["factor"][0]))


class FailingPlugin(_Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """An identity that raises ValueError("boom in <method>") from the method named by the class attribute
    fail_in."""

    fail_in = None

    def __init__(self):
        _init_plugin(self, "Failing", 1)

    def arguments(self):
        return {}

    @staticmethod
    def _check(method):
        if FailingPlugin.fail_in == method:
            raise ValueError(f"boom in {method}")

    def get_capability_interface(self, type):
        self._check("get_capability_interface")
        return self

    def clone(self):
        self._check("clone")
        return _Base.clone(self)

    def destroy(self):
        self._check("destroy")

    def get_output_data_types(self, input_types):
        self._check("get_output_data_types")
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        self._check("get_output_shapes")
        return [trt.DimsExprs(inputs[0])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        self._check("supports_format_combination")
        desc = in_out[pos].desc
        return desc.format == trt.TensorFormat.LINEAR and desc.type == trt.DataType.FLOAT

    def configure_plugin(self, inp, out):
        self._check("configure_plugin")

    def get_workspace_size(self, input_desc, output_desc):
        self._check("get_workspace_size")
        return 0

    def get_valid_tactics(self):
        self._check("get_valid_tactics")
        return []

    def get_timing_cache_id(self):
        self._check("get_timing_cache_id")
        return None

    def set_tactic(self, tactic):
        self._check("set_tactic")

    def on_shape_change(self, inp, out):
        self._check("on_shape_change")

    def attach_to_context(self, context):
        self._check("attach_to_context")
        return self.clone()

    def get_fields_to_serialize(self):
        self._check("get_fields_to_serialize")
        return trt.PluginFieldCollection([])

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        self._check("enqueue_host")
        np.copyto(outputs[0], inputs[0])


class FailingCreator(trt.IPluginCreatorV3One):
    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "Failing", "1", NAMESPACE
        self.field_names = trt.PluginFieldCollection([])

    def create_plugin(self, name, field_collection, phase):
        FailingPlugin._check("create_plugin")
        return FailingPlugin()
