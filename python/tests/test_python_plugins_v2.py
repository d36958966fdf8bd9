# SPDX-License-Identifier: Apache-2.0
"""Legacy V2 plugins written in Python (trt.IPluginV2DynamicExt with a trt.IPluginCreator, as TensorRT's
python_plugin samples write them) on kiln's host backend: a circular-padding plugin added with add_plugin_v2 (and
through the ONNX parser), built, serialized, deserialized through the registered Python creator, in this process and
in another one, and run through enqueue_host on numpy views, checked against np.pad(mode="wrap"). Also: the
C++-backed attributes, the errors a raising plugin gives, a missing required method, and that no plugin object
outlives the engines and networks that used it."""

import gc
import os
import subprocess
import sys
import textwrap
import time
import weakref

import numpy as np
import pytest

import kiln as trt
import python_plugin_v2_examples as ex

from conftest import CollectingLogger, build_plan

TESTS = os.path.dirname(os.path.abspath(__file__))
PADS = (1, 2, 0, 3)  # last axis: 1 before, 2 after; the one before it: 0 before, 3 after


@pytest.fixture
def register():
    """Registers creators in the process-wide registry for one test and deregisters them after it."""
    registry = trt.get_plugin_registry()
    registered = []

    def add(creator, namespace=ex.NAMESPACE):
        assert registry.register_creator(creator, namespace)
        registered.append((creator, namespace))
        return creator

    yield add
    for creator, namespace in registered:
        if registry.get_creator(creator.name, creator.plugin_version, namespace) is creator:
            assert registry.deregister_creator(creator)


@pytest.fixture(autouse=True)
def fresh_events():
    """Clears the call record before each test, and checks after it that no plugin object is left alive."""
    ex.EVENTS.clear()
    yield
    ex.FailingV2Plugin.fail_in = None
    gc.collect()
    assert [type(p).__name__ for p in ex.LIVE] == [], "a plugin object outlived its test"


def live(cls):
    gc.collect()
    return [p for p in ex.LIVE if type(p) is cls]


def padded(x, pads=PADS):
    return np.pad(x, ex.pad_widths(pads, x.ndim), mode="wrap")


def circpad_network(builder, plugin):
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1, 3, -1, -1))
    layer = network.add_plugin_v2([x], plugin)
    assert layer is not None
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 3, 2, 2), (2, 3, 4, 5), (4, 3, 8, 8))
    config.add_optimization_profile(profile)
    return network, layer, config


def circpad_plan(logger, creator, pads=PADS):
    builder = trt.Builder(logger)
    network, _, config = circpad_network(builder, creator.create_plugin("pad", ex.pads_field(pads)))
    return build_plan(builder, network, config)


# ---- The samples' pattern: circular padding with dynamic shapes ---------------------------------------------------


def test_circular_padding_v2_plugin_builds_serializes_deserializes_and_runs(register, rng):
    logger = CollectingLogger()
    creator = register(ex.CircPadCreator())
    registry = trt.get_plugin_registry()
    # As circ_pad_plugin_inetdef_cuda_python.py does it: the creator from the registry, a plugin from its fields.
    assert registry.get_plugin_creator("CircPadV2", "1", ex.NAMESPACE) is creator
    plugin = registry.get_plugin_creator("CircPadV2", "1", ex.NAMESPACE).create_plugin("pad", ex.pads_field(PADS))
    assert isinstance(plugin, ex.CircPadPlugin) and list(plugin.pads) == list(PADS)
    builder = trt.Builder(logger)
    references = sys.getrefcount(plugin)
    network, layer, config = circpad_network(builder, plugin)
    assert sys.getrefcount(plugin) == references, "the network keeps a clone, not the object given to it"
    assert isinstance(layer.plugin, ex.CircPadPlugin) and layer.plugin is not plugin
    assert layer.plugin is layer.plugin and list(layer.plugin.pads) == list(PADS)
    assert layer.type == trt.LayerType.PLUGIN_V2 and tuple(layer.get_output(0).shape) == (-1, 3, -1, -1)
    plan = build_plan(builder, network, config)

    ex.EVENTS.clear()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    # The plan keeps serialize()'s JSON text; the creator gets it back as bytes under the layer's name.
    assert ex.EVENTS[0][0] == "deserialize_plugin" and ex.EVENTS[0][2] == "bytes"
    assert ex.EVENTS[1] == ("initialize",)
    context = engine.create_execution_context()
    assert context is not None, logger.errors()
    for shape in [(2, 3, 4, 5), (1, 3, 2, 2), (4, 3, 8, 7), (4, 3, 8, 7)]:
        x = rng.standard_normal(shape).astype(np.float32)
        y = trt.run(engine, {"x": x}, context=context)["y"]
        assert y.shape == padded(x).shape
        np.testing.assert_array_equal(y, padded(x))
    # deserialize_plugin -> initialize (the engine's) -> initialize (the context's clone) -> configure_plugin with
    # the run's shapes -> enqueue_host; configure_plugin again only when the shapes change.
    calls = [event[0] for event in ex.EVENTS if event[0] not in ("destroy", "get_output_datatype")]
    assert calls == ["deserialize_plugin", "initialize", "initialize"] + ["configure_plugin", "enqueue_host"] * 3 + [
        "enqueue_host"]
    assert ("configure_plugin", (4, 3, 8, 7)) in ex.EVENTS
    ex.EVENTS.clear()
    del context, engine
    gc.collect()
    # The context's clone and the engine's plugin: terminate(), then destroy().
    assert ex.EVENTS == [("terminate",), ("destroy",)] * 2, ex.EVENTS
    assert not logger.errors()


class AnyFormatPad(ex.CircPadPlugin):
    """CircPadV2 that accepts every format (the same for input and output), so the builder has formats to choose
    from; enqueue_host pads LINEAR tensors and only sleeps on the others, which are therefore never chosen."""

    FORMATS = []

    def supports_format_combination(self, pos, in_out, num_inputs):
        return in_out[pos].type == trt.DataType.FLOAT and in_out[pos].format == in_out[0].format

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        AnyFormatPad.FORMATS.append(input_desc[0].format)
        if input_desc[0].format != trt.TensorFormat.LINEAR:
            assert isinstance(inputs[0], trt.PluginHostBuffer)
            time.sleep(0.002)
            return
        ex.CircPadPlugin.enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace)


class AnyFormatCreator(ex.CircPadCreator):
    plugin_class = AnyFormatPad


def test_a_v2_plugin_with_a_choice_of_formats_is_timed_through_enqueue_host(register, rng):
    logger = CollectingLogger()
    creator = register(AnyFormatCreator())
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 4, 3, 3))
    layer = network.add_plugin_v2([x], creator.create_plugin("pad", ex.pads_field((1, 1))))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    AnyFormatPad.FORMATS.clear()
    plan = build_plan(builder, network)
    assert trt.TensorFormat.LINEAR in AnyFormatPad.FORMATS and len(set(AnyFormatPad.FORMATS)) >= 2, \
        AnyFormatPad.FORMATS
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    x = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], padded(x, (1, 1)))
    assert not logger.errors()


def test_v2_plugin_attributes_are_kept_in_cpp():
    plugin = ex.CircPadPlugin(ex.pads_field((2, 2)))
    assert (plugin.plugin_type, plugin.plugin_version, plugin.plugin_namespace) == ("CircPadV2", "1", ex.NAMESPACE)
    assert plugin.num_outputs == 1
    for name in ("plugin_type", "plugin_version", "plugin_namespace", "num_outputs"):
        assert name not in plugin.__dict__, "clone() implementations copy __dict__ and set these again"
    assert plugin.tensorrt_version >> 24 == 0x43, "kV2_DYNAMICEXT_PYTHON"
    assert plugin.tensorrt_version & 0xFFFFFF == trt.IPluginV2DynamicExt().tensorrt_version & 0xFFFFFF
    assert trt.IPluginV2DynamicExt.FORMAT_COMBINATION_LIMIT == 100
    assert plugin.serialization_size == len('{"pads": [2, 2]}') == plugin.get_serialization_size()
    assert isinstance(plugin, trt.IPluginV2) and isinstance(plugin, trt.IPluginV2Ext)
    assert isinstance(plugin, trt.IPluginV2DynamicExtBase)
    assert plugin.initialize() == 0 and trt.IPluginV2DynamicExt.get_workspace_size(plugin, [], []) == 0

    creator = ex.CircPadCreator()
    assert (creator.name, creator.plugin_version, creator.plugin_namespace) == ("CircPadV2", "1", ex.NAMESPACE)
    assert [field.name for field in creator.field_names] == ["pads"]
    # Through C++: the bound methods reach the Python overrides and give the Python object back.
    made = trt.IPluginCreator.create_plugin(creator, "pad", ex.pads_field((3, 4)))
    assert isinstance(made, ex.CircPadPlugin) and list(made.pads) == [3, 4]
    restored = trt.IPluginCreator.deserialize_plugin(creator, "pad", b'{"pads": [5, 6]}')
    assert isinstance(restored, ex.CircPadPlugin) and restored.pads == [5, 6]


def test_unset_attributes_and_missing_base_init():
    class Bare(trt.IPluginV2DynamicExt):
        def __init__(self):
            trt.IPluginV2DynamicExt.__init__(self)

    bare = Bare()
    for name in ("plugin_type", "plugin_version", "plugin_namespace", "num_outputs"):
        with pytest.raises(AttributeError, match="not initialized"):
            getattr(bare, name)

    class NoInit(trt.IPluginV2DynamicExt):
        def __init__(self):
            pass

    builder = trt.Builder(trt.Logger(trt.Logger.ERROR))
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    with pytest.raises(TypeError):
        network.add_plugin_v2([x], NoInit())

    class BareCreator(trt.IPluginCreator):
        def __init__(self):
            trt.IPluginCreator.__init__(self)

    for name in ("name", "plugin_version", "plugin_namespace", "field_names"):
        with pytest.raises(AttributeError, match="not initialized"):
            getattr(BareCreator(), name)


LIBRARY = os.environ.get("KILN_TEST_PLUGIN_LIBRARY", "")


@pytest.mark.skipif(not os.path.exists(LIBRARY), reason="KILN_TEST_PLUGIN_LIBRARY (tests/plugin) is not built")
def test_cpp_v2_creators_and_plugins_keep_their_cpp_rules(logger):
    registry = trt.get_plugin_registry()
    handle = registry.load_library(LIBRARY)
    assert handle is not None
    try:
        creator = registry.get_plugin_creator("LegacyV2", "1")
        assert isinstance(creator, trt.IPluginCreator) and not isinstance(creator, ex.CircPadCreator)
        for name in ("name", "plugin_version", "field_names"):
            with pytest.raises(AttributeError, match="read-only for C\\+\\+ creators"):
                setattr(creator, name, "Other" if name != "field_names" else trt.PluginFieldCollection([]))
        assert creator.name == "LegacyV2" and len(creator.field_names) >= 0
        plugin = creator.create_plugin("legacy", trt.PluginFieldCollection([]))
        assert isinstance(plugin, trt.IPluginV2) and not isinstance(plugin, trt.IPluginV2DynamicExt)
        assert plugin.tensorrt_version >> 24 != 0x43
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        layer = network.add_plugin_v2([network.add_input("x", trt.float32, (2, 3))], plugin)
        assert isinstance(layer.plugin, trt.IPluginV2) and layer.plugin.plugin_type == "LegacyV2"
        del layer, network, plugin
    finally:
        gc.collect()
        registry.deregister_library(handle)


def test_serialize_may_return_bytes_and_a_wrong_size_is_reported(register, rng):
    class BytesPad(ex.CircPadPlugin):
        def serialize(self):
            return json_bytes(self.pads)

    def json_bytes(pads):
        return ('{"pads": %s}' % [int(p) for p in pads]).encode()  # numpy 2 writes list(pads) as [np.int32(1), ...]

    class BytesCreator(ex.CircPadCreator):
        plugin_class = BytesPad

    logger = CollectingLogger()
    creator = register(BytesCreator())
    plan = circpad_plan(logger, creator)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    x = rng.standard_normal((1, 3, 3, 3)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], padded(x))
    assert not logger.errors()
    del engine

    class LyingPad(ex.CircPadPlugin):
        def get_serialization_size(self):
            return 3

    lying = LyingPad(ex.pads_field((1, 1)))
    assert lying.serialization_size == 3
    logger = CollectingLogger()
    builder = trt.Builder(logger)  # makes logger the one the bindings report to
    network, _, config = circpad_network(builder, lying)
    builder.build_serialized_network(network, config)
    assert any('Python plugin "CircPadV2" version "1" namespace "kiln_test" (class ' in m and "LyingPad)" in m
               and f"serialize() returned {len(lying.serialize())} bytes, but get_serialization_size() gives 3" in m
               for m in logger.errors()), logger.errors()


# ---- The ONNX parser: a node whose op is the Python creator's name ------------------------------------------------


def circpad_onnx(pads):
    """A model of one CircPadV2 node with the INT64 list attribute pads and plugin_namespace, over x [N, 3, H, W]."""
    import onnx_bytes as ob

    ints = ob._field(1, "pads") + ob._field(20, 7) + b"".join(ob._field(8, p) for p in pads)  # INTS
    namespace = ob._field(1, "plugin_namespace") + ob._field(20, 3) + ob._field(4, ex.NAMESPACE)  # STRING
    node = ob.node("CircPadV2", ["x"], ["y"], "pad") + ob._field(5, ints) + ob._field(5, namespace)
    return ob.model([node], [ob.value_info("x", ["N", 3, "H", "W"])], [ob.value_info("y", ["N", 3, "H2", "W2"])])


@pytest.mark.skipif(not hasattr(trt, "OnnxParser"), reason="built without the ONNX parser")
def test_the_onnx_parser_creates_the_plugin_through_the_python_creator(register, rng):
    logger = CollectingLogger()
    register(ex.CircPadCreator())
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(circpad_onnx(PADS)), [parser.get_error(i).desc() for i in range(parser.num_errors)]
    assert ("create_plugin", "pad") in ex.EVENTS
    # The plugin keeps fc[0].data, as the samples do, after the parser's fields are gone: a copy, not a view.
    assert ("pads_owndata", True) in ex.EVENTS
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 3, 2, 2), (2, 3, 4, 4), (3, 3, 6, 6))
    config.add_optimization_profile(profile)
    plan = build_plan(builder, network, config)
    del parser, network
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    x = rng.standard_normal((3, 3, 5, 6)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], padded(x))


# ---- Another process ---------------------------------------------------------------------------------------------


def run_loader(plan_path, register_creator):
    """Loads and runs plan_path in a new Python process, which registers CircPadV2's creator when asked."""
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import kiln as trt
        import python_plugin_v2_examples as ex

        if sys.argv[2] == "register":
            trt.get_plugin_registry().register_creator(ex.CircPadCreator(), ex.NAMESPACE)
        engine = trt.Runtime(trt.Logger(trt.Logger.ERROR)).deserialize_cuda_engine(open(sys.argv[1], "rb").read())
        if engine is None:
            sys.exit(3)
        x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
        y = trt.run(engine, {"x": x})["y"]
        np.testing.assert_array_equal(y, np.pad(x, ex.pad_widths((1, 2, 0, 3), 4), mode="wrap"))
        print("ran")
    """)
    path = os.pathsep.join([TESTS] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    env = dict(os.environ, PYTHONPATH=path, KILN_BACKEND="host")
    return subprocess.run([sys.executable, "-c", script, str(plan_path), "register" if register_creator else "-"],
                          env=env, capture_output=True, text=True, timeout=120)


def test_a_plan_loads_in_another_process_only_after_it_registers_the_creator(tmp_path):
    logger = CollectingLogger()
    registry = trt.get_plugin_registry()
    creator = ex.CircPadCreator()
    assert registry.register_creator(creator, ex.NAMESPACE)
    try:
        plan_path = tmp_path / "circpad_v2.plan"
        plan_path.write_bytes(bytes(circpad_plan(logger, creator)))
    finally:
        assert registry.deregister_creator(creator)
    loaded = run_loader(plan_path, True)
    assert loaded.returncode == 0 and "ran" in loaded.stdout, loaded.stdout + loaded.stderr
    refused = run_loader(plan_path, False)
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert 'no creator of plugin "CircPadV2" version "1" namespace "kiln_test"' in refused.stdout + refused.stderr


# ---- Exceptions from every plugin method -----------------------------------------------------------------------

# The step that fails when the method raises: the C++ call gets its failure value. Where that value is harmless (a
# workspace of 0 bytes, terminate, destroy), the error is reported and the step goes on. configure_plugin returns
# nothing in C++: the failure is kept and the run refuses to go on. A failed serialize() or get_serialization_size()
# leaves a record deserialize_plugin cannot read.
FAILURES = {
    "clone": "add",
    "get_output_datatype": "add",
    "get_output_dimensions": "build",
    "supports_format_combination": "build",
    "configure_plugin": "execute",
    "get_workspace_size": None,
    "initialize": "deserialize",
    "terminate": None,
    "serialize": "deserialize",
    "get_serialization_size": "deserialize",
    "destroy": None,
    "create_plugin": "create",
    "deserialize_plugin": "deserialize",
    "enqueue_host": "execute",
}


def run_failing_pipeline(logger):
    """Creates, adds, builds, deserializes and runs a FailingV2 plugin; returns the first step that failed (None if
    none)."""
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    plugin = trt.get_plugin_registry().get_plugin_creator("FailingV2", "1", ex.NAMESPACE).create_plugin(
        "failing", trt.PluginFieldCollection([]))
    if plugin is None:
        return "create"
    layer = network.add_plugin_v2([x], plugin)
    del plugin
    if layer is None:
        return "add"
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    plan = builder.build_serialized_network(network, builder.create_builder_config())
    if plan is None:
        return "build"
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    if engine is None:
        return "deserialize"
    context = engine.create_execution_context()
    if context is None:
        return "context"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.zeros_like(x)
    context.set_input_shape("x", x.shape)
    context.set_tensor_address("x", x.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    if not context.execute_async_v3(0):
        return "execute"
    np.testing.assert_array_equal(y, x)
    return None


@pytest.mark.parametrize("method", sorted(FAILURES))
def test_an_exception_in_a_v2_plugin_method_fails_the_step_and_names_the_plugin(register, method):
    logger = CollectingLogger()
    creator = register(ex.FailingV2Creator())
    ex.FailingV2Plugin.fail_in = method
    if method == "create_plugin":
        # Called from Python, the Python method raises in Python; through C++ (as the ONNX parser calls it) the
        # exception is reported and the creator gives None.
        trt.Builder(logger)
        assert trt.IPluginCreator.create_plugin(creator, "failing", trt.PluginFieldCollection([])) is None
        failed = "create"
    else:
        failed = run_failing_pipeline(logger)
    ex.FailingV2Plugin.fail_in = None
    assert failed == FAILURES[method], logger.errors()
    owner = ("Python plugin creator \"FailingV2\" version \"1\" namespace \"kiln_test\" (class FailingV2Creator)"
             if method in ("create_plugin", "deserialize_plugin") else
             "Python plugin \"FailingV2\" version \"1\" namespace \"kiln_test\" (class FailingV2Plugin)")
    reported = [m for m in logger.errors() if f"exception caught in {method}()" in m]
    assert reported, logger.errors()
    assert reported[0].startswith(owner + ": ") and f"ValueError: boom in {method}" in reported[0], reported[0]
    if failed not in (None, "create"):
        # kiln's own error for the failed step follows the plugin's.
        assert len(logger.errors()) > len(reported), logger.errors()
    assert live(ex.FailingV2Plugin) == [], "nothing is leaked on the failure path"


def test_a_missing_required_method_is_reported(register):
    logger = CollectingLogger()

    class NoShapes(trt.IPluginV2DynamicExt):
        def __init__(self):
            trt.IPluginV2DynamicExt.__init__(self)
            self.num_outputs, self.plugin_type, self.plugin_version, self.plugin_namespace = 1, "NoShapes", "1", ""

        def get_output_datatype(self, index, input_types):
            return input_types[0]

        def clone(self):
            return NoShapes()

    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    layer = network.add_plugin_v2([x], NoShapes())
    if layer is not None:
        network.mark_output(layer.get_output(0))
        assert builder.build_serialized_network(network, builder.create_builder_config()) is None
    assert any("Method: get_output_dimensions was not overriden" in m and '"NoShapes"' in m and "NoShapes)" in m
               for m in logger.errors()), logger.errors()


def test_a_v2_plugin_without_enqueue_host_cannot_run_on_the_host_backend(register, monkeypatch):
    logger = CollectingLogger()
    creator = register(ex.CircPadCreator())
    engine = trt.Runtime(logger).deserialize_cuda_engine(circpad_plan(logger, creator))
    assert engine is not None
    monkeypatch.delattr(ex.CircPadPlugin, "enqueue_host")
    x = np.ones((1, 3, 2, 2), np.float32)
    with pytest.raises(RuntimeError):
        trt.run(engine, {"x": x})
    assert any("cannot run on kiln's host backend" in m and "defines no enqueue_host(" in m and "CircPadV2" in m
               for m in logger.errors()), logger.errors()


def test_contexts_run_a_v2_python_plugin_from_several_threads(register, rng):
    # execute_async_v3 releases the GIL and each plugin call takes it back: threads neither deadlock nor mix data
    # (each context runs its own clone, configured with its own shapes).
    import threading

    logger = CollectingLogger()
    creator = register(ex.CircPadCreator())
    engine = trt.Runtime(logger).deserialize_cuda_engine(circpad_plan(logger, creator))
    inputs = [rng.standard_normal((1 + i, 3, 2 + i, 3)).astype(np.float32) for i in range(4)]
    problems = []

    def work(x):
        try:
            context = engine.create_execution_context()
            for _ in range(10):
                np.testing.assert_array_equal(trt.run(engine, {"x": x}, context=context)["y"], padded(x))
        except Exception as error:  # noqa: BLE001 -- reported by the main thread
            problems.append(error)

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads) and problems == [], problems
    assert not logger.errors()
    del engine


# ---- Lifetime ----------------------------------------------------------------------------------------------------


def test_v2_plugins_are_freed_with_the_engine_and_the_network(register, rng):
    logger = CollectingLogger()
    creator = register(ex.CircPadCreator())
    builder = trt.Builder(logger)
    plugin = creator.create_plugin("pad", ex.pads_field((2, 1)))
    original = weakref.ref(plugin)
    network, layer, config = circpad_network(builder, plugin)
    del plugin
    gc.collect()
    assert original() is None, "the network keeps its own clone"
    kept = weakref.ref(layer.plugin)
    plan = build_plan(builder, network, config)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    x = rng.standard_normal((1, 3, 4, 4)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], padded(x, (2, 1)))
    assert kept() is not None and len(live(ex.CircPadPlugin)) >= 2  # the network's and the engine's
    destroyed = ex.EVENTS.count(("destroy",))
    assert destroyed >= 1, "the builder's clone and the context's clone were destroyed"

    del layer, network, config
    gc.collect()
    assert kept() is None, "the network's clone goes with the network"
    del engine
    assert live(ex.CircPadPlugin) == []
    assert ex.EVENTS.count(("destroy",)) > destroyed


def test_a_v2_creator_freed_while_registered_leaves_the_registry():
    registry = trt.get_plugin_registry()
    creator = ex.CircPadCreator()
    assert registry.register_creator(creator, ex.NAMESPACE)
    del creator
    gc.collect()
    assert registry.get_creator("CircPadV2", "1", ex.NAMESPACE) is not None, "the registry keeps what it registered"
    kept = registry._kiln_creators
    index = next(i for i, c in enumerate(kept) if isinstance(c, ex.CircPadCreator))
    kept.pop(index)
    gc.collect()
    assert registry.get_creator("CircPadV2", "1", ex.NAMESPACE) is None
