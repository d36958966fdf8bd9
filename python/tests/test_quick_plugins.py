# SPDX-License-Identifier: Apache-2.0
"""Plugins written directly on TensorRT's Quick interfaces (trt.IPluginV3QuickCore, IPluginV3QuickBuild,
IPluginV3QuickRuntime, IPluginCreatorV3Quick), the way TensorRT's own tensorrt.plugin package writes its template
plugin: get_output_data_types(input_types, ranks), get_supported_format_combinations(in_out, num_inputs) returning a
flat list, get_valid_tactics() for the combination of configure_plugin(), clone() copying __dict__, a creator called
with (name, namespace, fc, phase, request). On kiln's host backend the plugin runs through enqueue_host(input_desc,
output_desc, inputs, outputs, in_strides, out_strides) on numpy views; the output is checked against numpy. Also: the
registry gives back the Quick creator, plan loading creates the plugin with RUNTIME and a STRICT_JIT request, an AOT
Quick plugin (IPluginV3QuickAOTBuild) builds into a plan that keeps its kernel and loads without Python, and methods
that raise give an error naming the plugin and the method, not a crash."""

import gc

import numpy as np
import pytest

import kiln as trt

from conftest import CollectingLogger, build_plan

NAMESPACE = "kiln_quick_test"
CALLS = []


class AddPlugin(trt.IPluginV3, trt.IPluginV3QuickCore, trt.IPluginV3QuickBuild, trt.IPluginV3QuickRuntime):
    """y = x + k, FP32 or FP16 (in and out alike), with two custom tactics; raise_in names a method that raises."""

    def __init__(self, k=1.0, raise_in=None):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3QuickCore.__init__(self)
        trt.IPluginV3QuickBuild.__init__(self)
        trt.IPluginV3QuickRuntime.__init__(self)
        self.plugin_name, self.plugin_version, self.plugin_namespace = "quick_add", "1", NAMESPACE
        self.num_outputs = 1
        self.k = float(k)
        self.raise_in = raise_in
        self.curr_comb = None
        self._tactic = None

    def _check(self, method):
        CALLS.append(method)
        if self.raise_in == method:
            raise RuntimeError(f"{method} failed on purpose")

    def get_capability_interface(self, type):
        return self

    def clone(self):
        copy = AddPlugin(self.k)
        copy.__dict__.update(self.__dict__)
        return copy

    def get_num_outputs(self):
        return self.num_outputs

    def get_output_data_types(self, input_types, ranks):
        self._check("get_output_data_types")
        self.ranks = list(ranks)
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        self._check("get_output_shapes")
        assert len(shape_inputs) == 0
        return [trt.DimsExprs(inputs[0])]

    def get_supported_format_combinations(self, in_out, num_inputs):
        self._check("get_supported_format_combinations")
        combos = []
        for dtype in (trt.float32, trt.float16):
            for _ in range(len(in_out)):
                desc = trt.PluginTensorDesc()
                desc.type = dtype
                desc.format = trt.TensorFormat.LINEAR
                combos.append(desc)
        return combos

    def configure_plugin(self, inp, out):
        self._check("configure_plugin")
        self.curr_comb = (inp[0].desc.type, out[0].desc.type)

    def get_valid_tactics(self):
        assert self.curr_comb is not None  # configure_plugin() came first, as TensorRT's package needs
        return [1, 2]

    def set_tactic(self, tactic):
        self._check("set_tactic")
        self._tactic = tactic

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection([trt.PluginField("k", np.array([self.k], np.float64),
                                                          trt.PluginFieldType.FLOAT64)])

    def enqueue(self, input_desc, output_desc, inputs, outputs, in_strides, out_strides, stream):
        raise AssertionError("the host backend calls enqueue_host")

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, in_strides, out_strides):
        self._check("enqueue_host")
        assert self._tactic in (1, 2)
        self.strides = [tuple(s) for s in in_strides]
        np.add(inputs[0], inputs[0].dtype.type(self.k), out=outputs[0])


class AddCreator(trt.IPluginCreatorV3Quick):
    def __init__(self, raise_in=None):
        trt.IPluginCreatorV3Quick.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "quick_add", "1", NAMESPACE
        self.field_names = trt.PluginFieldCollection([trt.PluginField("k", np.array([]), trt.PluginFieldType.FLOAT64)])
        self.raise_in = raise_in
        self.requests = []

    def create_plugin(self, name, namespace, fc, phase, qpcr=None):
        self.requests.append((name, namespace, phase, qpcr))
        if self.raise_in == "create_plugin":
            raise ValueError("create_plugin failed on purpose")
        fields = {f.name: f.data for f in fc}
        return AddPlugin(float(fields["k"][0]) if "k" in fields else 0.0)


class _QuickBase(trt.IPluginV3, trt.IPluginV3QuickCore, trt.IPluginV3QuickBuild):
    def __init__(self):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3QuickCore.__init__(self)
        trt.IPluginV3QuickBuild.__init__(self)


class AotAddPlugin(_QuickBase, trt.IPluginV3QuickAOTBuild):
    """add_k(x, n, y) as an AOT Quick plugin, laid out as TensorRT's package lays out its AOT template plugin (a base
    with the core and build classes, then IPluginV3QuickAOTBuild)."""

    def __init__(self):
        _QuickBase.__init__(self)
        trt.IPluginV3QuickAOTBuild.__init__(self)
        self.plugin_name, self.plugin_version, self.plugin_namespace = "quick_add_aot", "1", NAMESPACE
        self.kernel_map = {}
        self._tactic = None

    def get_capability_interface(self, type):
        assert type != trt.PluginCapabilityType.RUNTIME, "an AOT plugin is never asked for its runtime capability"
        return self

    def clone(self):
        copy = AotAddPlugin()
        copy.__dict__.update(self.__dict__)
        return copy

    def get_num_outputs(self):
        return 1

    def get_output_data_types(self, input_types, ranks):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(inputs[0])]

    def get_supported_format_combinations(self, in_out, num_inputs):
        combos = []
        for _ in range(len(in_out)):
            desc = trt.PluginTensorDesc()
            desc.type = trt.float32
            desc.format = trt.TensorFormat.LINEAR
            combos.append(desc)
        return combos

    def configure_plugin(self, inp, out):
        pass

    def set_tactic(self, tactic):
        self._tactic = tactic

    def get_launch_params(self, in_dims, in_out, num_inputs, launch, extra, builder):
        n = in_dims[0][0]
        for axis in range(1, len(in_dims[0])):
            n = builder.operation(trt.DimensionOperation.PROD, n, in_dims[0][axis])
        launch.grid_x = Sym(builder.operation(trt.DimensionOperation.CEIL_DIV, n, builder.constant(128)))
        launch.block_x = Sym(builder.constant(128))
        extra.nbSymExprs = 1
        extra[0] = Sym(n)
        key = (tuple(d.desc.type for d in in_out), self._tactic)
        self.kernel_map[key] = ("add_k", b"// add_k's PTX\n")

    def get_kernel(self, input_desc, output_desc):
        key = (tuple(d.type for d in list(input_desc) + list(output_desc)), self._tactic)
        return self.kernel_map[key]

    def get_timing_cache_id(self):
        return ""


class Sym(trt.ISymExpr):
    def __init__(self, expr):
        trt.ISymExpr.__init__(self)
        self.type = trt.PluginArgType.INT
        self.dtype = trt.PluginArgDataType.INT32
        self.expr = expr


@pytest.fixture(autouse=True)
def clean():
    CALLS.clear()
    yield
    gc.collect()


@pytest.fixture
def registered():
    registry = trt.get_plugin_registry()
    creators = []

    def add(creator):
        assert registry.register_creator(creator, NAMESPACE)
        creators.append(creator)
        return creator

    yield add
    for creator in creators:
        registry.deregister_creator(creator)


def network_with(builder, plugin, dtype=trt.float32):
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED))
    x = network.add_input("x", dtype, (-1, 4))
    layer = network.add_plugin_v3([x], [], plugin)
    assert layer is not None
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return network


def config_for(builder, rows=(1, 3, 8)):
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (rows[0], 4), (rows[1], 4), (rows[2], 4))
    config.add_optimization_profile(profile)
    return config


def run(engine, x):
    context = engine.create_execution_context()
    y = np.zeros_like(x)
    context.set_input_shape("x", x.shape)
    context.set_tensor_address("x", x.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    assert context.execute_async_v3(0)
    return y


def test_the_quick_classes_and_enums_are_there():
    assert int(trt.QuickPluginCreationRequest.STRICT_AOT) == 4
    assert int(trt.QuickPluginCreationRequest.PREFER_JIT) == 1
    assert int(trt.PluginArgDataType.INT32) == 2
    assert int(trt.PluginArgType.INT) == 0
    for name in ("IPluginV3QuickCore", "IPluginV3QuickBuild", "IPluginV3QuickAOTBuild", "IPluginV3QuickRuntime",
                 "IPluginCreatorV3Quick", "KernelLaunchParams", "ISymExpr", "ISymExprs"):
        assert hasattr(trt, name), name
    assert issubclass(trt.IPluginV3QuickAOTBuild, trt.IPluginV3QuickBuild)
    sym = Sym(None)
    assert sym.dtype == trt.PluginArgDataType.INT32 and sym.expr is None


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_jit_quick_plugin_builds_saves_loads_and_runs_on_the_host(registered, rng, dtype):
    creator = registered(AddCreator())
    assert trt.get_plugin_registry().get_creator("quick_add", "1", NAMESPACE) is creator
    assert creator in trt.get_plugin_registry().all_creators
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = network_with(builder, AddPlugin(2.5), trt.float32 if dtype == np.float32 else trt.float16)
    plan = build_plan(builder, network, config_for(builder))
    assert logger.errors() == []
    assert "enqueue_host" in CALLS  # the two tactics were timed on the host
    del network

    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.error_text()
    assert creator.requests == [("quick_add", NAMESPACE, trt.TensorRTPhase.RUNTIME,
                                 trt.QuickPluginCreationRequest.STRICT_JIT)]
    for rows in (3, 1, 8):
        x = rng.standard_normal((rows, 4)).astype(dtype)
        np.testing.assert_allclose(run(engine, x), x + dtype(2.5), rtol=1e-3)


class StridesSeen(AddPlugin):
    """AddPlugin that records the strides enqueue_host received in a list shared by its clones."""

    seen = []

    def clone(self):
        copy = StridesSeen(self.k)
        copy.__dict__.update(self.__dict__)
        return copy

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, in_strides, out_strides):
        super().enqueue_host(input_desc, output_desc, inputs, outputs, in_strides, out_strides)
        StridesSeen.seen.append(([tuple(s) for s in in_strides], [tuple(s) for s in out_strides]))


def test_the_build_sees_ranks_and_the_run_sees_strides(registered, rng):
    class Creator(AddCreator):
        def create_plugin(self, name, namespace, fc, phase, qpcr=None):
            return StridesSeen(float({f.name: f.data for f in fc}["k"][0]))

    registered(Creator())
    builder = trt.Builder(CollectingLogger())
    network = network_with(builder, StridesSeen(1.0))
    assert network.get_layer(0).plugin.ranks == [2]
    engine = trt.Runtime(trt.Logger()).deserialize_cuda_engine(build_plan(builder, network, config_for(builder)))
    context = engine.create_execution_context()
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = np.zeros_like(x)
    context.set_input_shape("x", x.shape)
    context.set_tensor_address("x", x.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    StridesSeen.seen.clear()
    assert context.execute_async_v3(0)
    np.testing.assert_allclose(y, x + 1.0)
    assert StridesSeen.seen == [([(4, 1)], [(4, 1)])]


@pytest.mark.parametrize("method", ["get_output_data_types", "get_supported_format_combinations",
                                    "configure_plugin", "set_tactic", "enqueue_host"])
def test_a_raising_method_fails_the_build_naming_the_plugin_and_the_method(method):
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED))
    x = network.add_input("x", trt.float32, (-1, 4))
    layer = network.add_plugin_v3([x], [], AddPlugin(1.0, raise_in=method))
    if layer is not None:
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
        assert builder.build_serialized_network(network, config_for(builder)) is None
    text = logger.error_text()
    assert f"Python Quick plugin \"quick_add\" version \"1\" namespace \"{NAMESPACE}\"" in text, text
    assert f"exception caught in {method}()" in text, text
    assert f"{method} failed on purpose" in text, text


def test_a_raising_creator_at_load_names_the_plugin(registered):
    builder = trt.Builder(trt.Logger())
    plan = build_plan(builder, network_with(builder, AddPlugin(1.0)), config_for(builder))
    registered(AddCreator(raise_in="create_plugin"))
    logger = CollectingLogger()
    assert trt.Runtime(logger).deserialize_cuda_engine(plan) is None
    text = logger.error_text()
    assert "exception caught in create_plugin()" in text and "create_plugin failed on purpose" in text, text
    assert f"plugin \"quick_add\" version \"1\" namespace \"{NAMESPACE}\" returned null" in text, text
    assert "QuickPluginCreationRequest::kSTRICT_JIT" in text, text


def test_a_quick_plugin_without_enqueue_host_is_refused_on_the_host_naming_the_plugin():
    class GpuOnly(AddPlugin):
        enqueue_host = None

        def __getattribute__(self, name):
            if name == "enqueue_host":
                raise AttributeError(name)
            return object.__getattribute__(self, name)

        def clone(self):
            copy = GpuOnly(self.k)
            copy.__dict__.update(self.__dict__)
            return copy

    logger = CollectingLogger()
    builder = trt.Builder(logger)
    assert builder.build_serialized_network(network_with(builder, GpuOnly(1.0)), config_for(builder)) is None
    text = logger.error_text()
    assert "cannot run on kiln's host backend" in text and "enqueue_host(" in text, text
    assert "\"quick_add\"" in text, text


def test_an_aot_quick_plugin_keeps_its_kernel_and_loads_without_python():
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    plugin = AotAddPlugin()
    plan = build_plan(builder, network_with(builder, plugin), config_for(builder))
    assert logger.errors() == []
    # No creator is registered for quick_add_aot: the plan holds the kernel, not the plugin.
    assert trt.get_plugin_registry().get_creator("quick_add_aot", "1", NAMESPACE) is None
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.error_text()
    inspector = engine.create_engine_inspector()
    info = inspector.get_engine_information(trt.LayerInformationFormat.JSON)
    assert "add_k" in info, info


def test_get_capability_interface_gives_the_quick_capabilities():
    plugin = AddPlugin(1.0)
    for kind in (trt.PluginCapabilityType.CORE, trt.PluginCapabilityType.BUILD, trt.PluginCapabilityType.RUNTIME):
        assert plugin.get_capability_interface(kind) is plugin
    assert isinstance(plugin, trt.IPluginV3QuickRuntime)
    assert plugin.plugin_name == "quick_add"


@pytest.mark.skipif(not hasattr(trt, "OnnxParser"), reason="kiln was built without its ONNX parser")
@pytest.mark.parametrize("aot, request_", [(None, "UNKNOWN"), (0, "STRICT_JIT")])
def test_the_onnx_parser_creates_quick_plugins_from_the_op_type_with_the_request(registered, rng, aot, request_):
    import onnx_bytes as ob

    creator = registered(AddCreator())
    attributes = [ob.attribute("plugin_namespace", NAMESPACE), ob.attribute("k", 0.5)]
    if aot is not None:
        attributes.append(ob.attribute("aot", aot))
    model = ob.model([ob.node("quick_add", ["X"], ["Y"], name="the_node", attributes=attributes)],
                     [ob.value_info("X", ["N", 4])], [ob.value_info("Y", ["N", 4])])
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(model), logger.text()
    name, namespace, phase, request = creator.requests[0]
    assert (name, namespace, phase) == ("quick_add", NAMESPACE, trt.TensorRTPhase.BUILD)
    assert request == getattr(trt.QuickPluginCreationRequest, request_)
    assert not any("'aot' is ignored" in m for _, m in logger.messages), logger.text()
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config_for_input(builder, "X")))
    context = engine.create_execution_context()
    x = rng.standard_normal((2, 4)).astype(np.float32)
    y = np.zeros_like(x)
    context.set_input_shape("X", x.shape)
    context.set_tensor_address("X", x.ctypes.data)
    context.set_tensor_address("Y", y.ctypes.data)
    assert context.execute_async_v3(0)
    np.testing.assert_allclose(y, x + 0.5, rtol=1e-6)


def config_for_input(builder, name):
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape(name, (1, 4), (2, 4), (8, 4))
    config.add_optimization_profile(profile)
    return config
