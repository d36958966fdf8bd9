# SPDX-License-Identifier: Apache-2.0
"""Legacy V2 plugins written in Python (trt.IPluginV2DynamicExt with a trt.IPluginCreator) for
test_python_plugins_v2.py, in a module of their own so that a second process can import it, register the creator and
load a plan built by the first.

* CircPad: circular padding written the way TensorRT's python_plugin samples write theirs: an INT32 field "pads"
  holds (before, after) pairs from the last axis backwards; get_output_dimensions adds them to the input's extents
  with DimensionOperation.SUM; serialize() gives a JSON str that deserialize_plugin reads back from the plan's bytes.
* FailingV2: an identity that raises from the method named by FailingV2Plugin.fail_in, to check how failures are
  reported.

Every plugin object is recorded in LIVE (weak references) and every call in EVENTS, so tests can check the call order
and that nothing outlives the engines and networks that used it.
"""

import json
import weakref

import numpy as np

import kiln as trt

LIVE = weakref.WeakSet()
EVENTS = []

NAMESPACE = "kiln_test"


def _init_plugin(plugin, name):
    trt.IPluginV2DynamicExt.__init__(plugin)
    plugin.num_outputs = 1
    plugin.plugin_type = name
    plugin.plugin_version = "1"
    plugin.plugin_namespace = NAMESPACE
    LIVE.add(plugin)


def pad_widths(pads, rank):
    """np.pad's widths for pads given as (before, after) pairs from the last axis backwards."""
    widths = [(0, 0)] * rank
    for i in range(len(pads) // 2):
        widths[rank - 1 - i] = (int(pads[2 * i]), int(pads[2 * i + 1]))
    return widths


class CircPadPlugin(trt.IPluginV2DynamicExt):
    def __init__(self, fc=None):
        _init_plugin(self, "CircPadV2")
        self.pads = []
        if fc is not None:
            assert fc[0].name == "pads"
            self.pads = fc[0].data  # kept as the samples keep it: the field's numpy array
            EVENTS.append(("pads_owndata", bool(self.pads.flags.owndata)))

    def get_output_datatype(self, index, input_types):
        EVENTS.append(("get_output_datatype", index))
        return input_types[0]

    def get_output_dimensions(self, output_index, inputs, expr_builder):
        out = trt.DimsExprs(inputs[0])
        for i in range(len(self.pads) // 2):
            axis = len(out) - 1 - i
            out[axis] = expr_builder.operation(trt.DimensionOperation.SUM, inputs[0][axis],
                                               expr_builder.constant(self.pads[2 * i] + self.pads[2 * i + 1]))
        return out

    def supports_format_combination(self, pos, in_out, num_inputs):
        assert num_inputs == 1 and pos < len(in_out)
        desc = in_out[pos]
        if desc.format != trt.TensorFormat.LINEAR:
            return False
        if pos == 0:
            return desc.type in (trt.DataType.FLOAT, trt.DataType.HALF)
        return desc.type == in_out[0].type

    def configure_plugin(self, inp, out):
        EVENTS.append(("configure_plugin", tuple(inp[0].desc.dims)))
        self.input_shape = tuple(inp[0].desc.dims)

    def initialize(self):
        EVENTS.append(("initialize",))
        return 0

    def terminate(self):
        EVENTS.append(("terminate",))

    def serialize(self):
        return json.dumps({"pads": [int(p) for p in self.pads]})

    def destroy(self):
        EVENTS.append(("destroy",))

    def clone(self):
        copy = type(self)()
        copy.__dict__.update(self.__dict__)
        return copy

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        raise RuntimeError("the host backend calls enqueue_host, not enqueue")

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        EVENTS.append(("enqueue_host", tuple(input_desc[0].dims)))
        assert inputs[0].shape == tuple(input_desc[0].dims) and not inputs[0].flags.writeable
        np.copyto(outputs[0], np.pad(inputs[0], pad_widths(self.pads, inputs[0].ndim), mode="wrap"))


class CircPadCreator(trt.IPluginCreator):
    plugin_class = CircPadPlugin

    def __init__(self):
        trt.IPluginCreator.__init__(self)
        self.name = "CircPadV2"
        self.plugin_namespace = NAMESPACE
        self.plugin_version = "1"
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array([]), trt.PluginFieldType.INT32)])

    def create_plugin(self, name, fc):
        EVENTS.append(("create_plugin", name))
        return self.plugin_class(fc)

    def deserialize_plugin(self, name, data):
        EVENTS.append(("deserialize_plugin", name, type(data).__name__))
        state = json.loads(data.decode("utf-8"))
        plugin = self.plugin_class()
        plugin.__dict__.update(state)
        return plugin


def pads_field(pads):
    return trt.PluginFieldCollection(
        [trt.PluginField("pads", np.array(pads, dtype=np.int32), trt.PluginFieldType.INT32)])


class FailingV2Plugin(trt.IPluginV2DynamicExt):
    """An identity that raises ValueError("boom in <method>") from the method named by the class attribute fail_in."""

    fail_in = None

    def __init__(self):
        _init_plugin(self, "FailingV2")

    @staticmethod
    def _check(method):
        if FailingV2Plugin.fail_in == method:
            raise ValueError(f"boom in {method}")

    def get_output_datatype(self, index, input_types):
        self._check("get_output_datatype")
        return input_types[0]

    def get_output_dimensions(self, output_index, inputs, expr_builder):
        self._check("get_output_dimensions")
        return trt.DimsExprs(inputs[0])

    def supports_format_combination(self, pos, in_out, num_inputs):
        self._check("supports_format_combination")
        return in_out[pos].format == trt.TensorFormat.LINEAR and in_out[pos].type == trt.DataType.FLOAT

    def configure_plugin(self, inp, out):
        self._check("configure_plugin")

    def get_workspace_size(self, input_desc, output_desc):
        self._check("get_workspace_size")
        return 0

    def initialize(self):
        self._check("initialize")

    def terminate(self):
        self._check("terminate")

    def serialize(self):
        self._check("serialize")
        return b"{}"

    def get_serialization_size(self):
        self._check("get_serialization_size")
        return 2

    def destroy(self):
        self._check("destroy")

    def clone(self):
        self._check("clone")
        copy = FailingV2Plugin()
        copy.__dict__.update(self.__dict__)
        return copy

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        raise RuntimeError("the host backend calls enqueue_host, not enqueue")

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        self._check("enqueue_host")
        np.copyto(outputs[0], inputs[0])


class FailingV2Creator(trt.IPluginCreator):
    def __init__(self):
        trt.IPluginCreator.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "FailingV2", "1", NAMESPACE
        self.field_names = trt.PluginFieldCollection([])

    def create_plugin(self, name, fc):
        FailingV2Plugin._check("create_plugin")
        return FailingV2Plugin()

    def deserialize_plugin(self, name, data):
        FailingV2Plugin._check("deserialize_plugin")
        assert data == b"{}", data
        return FailingV2Plugin()
