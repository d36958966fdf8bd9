# SPDX-License-Identifier: Apache-2.0
"""Class-based Python plugins (IPluginV3 with its capabilities, IPluginCreatorV3One) on kiln's host backend: each
test defines a network with a plugin written in Python (python_plugin_examples.py), builds it, serializes the plan,
deserializes it through the registered Python creator and runs it through enqueue_host on numpy views, checking the
output against numpy. Also: the call order, the errors a raising plugin gives, a plan whose creator is missing, and
that no plugin object outlives the engines and networks that used it."""

import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import kiln as trt
import python_plugin_examples as ex

from conftest import CollectingLogger, build_plan

TESTS = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def register():
    """Registers creators in the process-wide registry for one test and deregisters them after it."""
    registry = trt.get_plugin_registry()
    registered = []

    def add(creator):
        assert registry.register_creator(creator, ex.NAMESPACE)
        registered.append(creator)
        return creator

    yield add
    for creator in registered:
        if registry.get_creator(creator.name, creator.plugin_version, ex.NAMESPACE) is creator:
            assert registry.deregister_creator(creator)


@pytest.fixture(autouse=True)
def fresh_events():
    """Clears the call record before each test, and checks after it that no plugin object is left alive."""
    ex.EVENTS.clear()
    yield
    ex.FailingPlugin.fail_in = None
    gc.collect()
    assert [type(p).__name__ for p in ex.LIVE] == [], "a plugin object outlived its test"


def live(cls):
    gc.collect()
    return [p for p in ex.LIVE if type(p) is cls]


def circpad_network(builder, plugin):
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1, 3, -1, -1))
    layer = network.add_plugin_v3([x], [], plugin)
    assert layer is not None
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 3, 2, 2), (2, 3, 4, 5), (4, 3, 8, 8))
    config.add_optimization_profile(profile)
    return network, layer, config


def circpad_plan(logger, pads=(1, 2)):
    builder = trt.Builder(logger)
    network, _, config = circpad_network(builder, ex.CircPadPlugin(pads))
    return build_plan(builder, network, config)


def padded(x, pads):
    return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[0]), (pads[1], pads[1])), mode="wrap")


# ---- (a) The class-based pattern: circular padding with dynamic shapes ---------------------------------------------


def test_circular_padding_plugin_builds_serializes_deserializes_and_runs(register, rng):
    logger = CollectingLogger()
    register(ex.CircPadCreator())
    builder = trt.Builder(logger)
    plugin = ex.CircPadPlugin((1, 2))
    references = sys.getrefcount(plugin)
    network, layer, config = circpad_network(builder, plugin)
    assert sys.getrefcount(plugin) == references, "the network keeps a clone, not the object given to it"
    assert isinstance(layer.plugin, ex.CircPadPlugin) and layer.plugin is not plugin
    assert layer.plugin is layer.plugin and layer.plugin.pads == (1, 2)
    plan = build_plan(builder, network, config)

    ex.EVENTS.clear()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    assert ex.EVENTS[:2] == [("CircPad", "create_plugin", trt.TensorRTPhase.RUNTIME), ("CircPad", "set_tactic", 0)]
    context = engine.create_execution_context()
    assert context is not None, logger.errors()
    for shape in [(2, 3, 4, 5), (1, 3, 2, 2), (4, 3, 8, 7), (4, 3, 8, 7)]:
        x = rng.standard_normal(shape).astype(np.float32)
        y = trt.run(engine, {"x": x}, context=context)["y"]
        np.testing.assert_array_equal(y, padded(x, (1, 2)))
    # create_plugin(RUNTIME) -> set_tactic -> attach_to_context -> on_shape_change -> enqueue_host (TensorRT's
    # order); on_shape_change only when the shapes change.
    calls = [event[1] for event in ex.EVENTS if event[1] != "destroy"]
    assert calls == ["create_plugin", "set_tactic", "attach_to_context"] + ["on_shape_change", "enqueue_host"] * 3 + [
        "enqueue_host"]
    assert not logger.errors()


def test_field_data_given_to_create_plugin_is_a_copy_the_plugin_may_keep(register, rng):
    # TensorRT's samples keep fc[0].data in the plugin (circ_pad_plugin_multi_tactic.py: self.pads = fc[0].data), while
    # the fields handed to create_plugin (from the plan here) live only during the call: data is a copy, as TensorRT's.
    kept = []

    class KeepingCreator(ex.CircPadCreator):
        def create_plugin(self, name, field_collection, phase):
            kept.append(field_collection[0].data)
            return super().create_plugin(name, field_collection, phase)

    logger = CollectingLogger()
    register(KeepingCreator())
    engine = trt.Runtime(logger).deserialize_cuda_engine(circpad_plan(logger, pads=(1, 2)))
    assert engine is not None, logger.errors()
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], padded(x, (1, 2)))
    del engine
    gc.collect()
    assert kept and kept[-1].dtype == np.int32 and kept[-1].flags.owndata
    assert kept[-1].tolist() == [1, 2]


def test_python_plugin_attributes_are_kept_in_cpp():
    plugin = ex.CircPadPlugin()
    assert (plugin.plugin_name, plugin.plugin_version, plugin.plugin_namespace) == ("CircPad", "1", ex.NAMESPACE)
    assert plugin.num_outputs == 1
    for name in ("plugin_name", "plugin_version", "plugin_namespace", "num_outputs"):
        assert name not in plugin.__dict__, "clone() implementations copy __dict__ and set these again"
    assert plugin.format_combination_limit == trt.IPluginV3OneBuild.DEFAULT_FORMAT_COMBINATION_LIMIT == 100
    assert plugin.metadata_string is None and plugin.timing_cache_id is None
    plugin.metadata_string, plugin.timing_cache_id = "pads 1x1", "pads=1,1"
    assert (plugin.metadata_string, plugin.timing_cache_id) == ("pads 1x1", "pads=1,1")
    assert plugin.get_valid_tactics() == [] and trt.IPluginV3OneBuild.get_workspace_size(plugin, [], []) == 0

    # Through C++: the base classes' methods reach the Python overrides, and clone() gives a Python object back.
    assert trt.IPluginV3.get_capability_interface(plugin, trt.PluginCapabilityType.BUILD) is plugin
    copy = trt.IPluginV3.clone(plugin)
    assert isinstance(copy, ex.CircPadPlugin) and copy is not plugin and copy.pads == plugin.pads

    creator = ex.CircPadCreator()
    assert (creator.name, creator.plugin_version, creator.plugin_namespace) == ("CircPad", "1", ex.NAMESPACE)
    assert [field.name for field in creator.field_names] == ["pads"]
    made = trt.IPluginCreatorV3One.create_plugin(
        creator, "pad", trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array([3, 4], np.int32), trt.PluginFieldType.INT32)]),
        trt.TensorRTPhase.BUILD)
    assert isinstance(made, ex.CircPadPlugin) and made.pads == (3, 4) and made.phase == trt.TensorRTPhase.BUILD


def test_unset_attributes_and_missing_base_init():
    class Bare(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
        def __init__(self):
            for base in (trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
                base.__init__(self)

    bare = Bare()
    for name in ("plugin_name", "plugin_version", "plugin_namespace", "num_outputs"):
        with pytest.raises(AttributeError, match="not initialized"):
            getattr(bare, name)

    class HalfInitialized(trt.IPluginV3, trt.IPluginV3OneCore):
        def __init__(self):
            trt.IPluginV3.__init__(self)

    with pytest.raises(TypeError):
        HalfInitialized()

    class BareCreator(trt.IPluginCreatorV3One):
        def __init__(self):
            trt.IPluginCreatorV3One.__init__(self)

    with pytest.raises(AttributeError, match="not initialized"):
        BareCreator().field_names


def test_cpp_plugin_attributes_are_read_only(logger):
    assert trt.init_libnvinfer_plugins(logger, "")
    creator = trt.get_plugin_registry().get_creator("ROIAlign_TRT", "2", "")
    with pytest.raises(AttributeError, match="read-only"):
        creator.name = "Other"
    plugin = creator.create_plugin("roi", trt.PluginFieldCollection([]), trt.TensorRTPhase.BUILD)
    core = plugin.get_capability_interface(trt.PluginCapabilityType.CORE)
    build = plugin.get_capability_interface(trt.PluginCapabilityType.BUILD)
    assert isinstance(build, trt.IPluginV3OneBuild) and build.num_outputs == 1
    assert isinstance(plugin.get_capability_interface(trt.PluginCapabilityType.RUNTIME), trt.IPluginV3OneRuntime)
    with pytest.raises(AttributeError, match="read-only for C\\+\\+ plugins"):
        core.plugin_name = "Other"
    with pytest.raises(AttributeError, match="read-only for C\\+\\+ plugins"):
        build.num_outputs = 3


# ---- (b) A data-dependent shape: non-zero indices and a size tensor --------------------------------------------


def test_data_dependent_shape_plugin_with_a_size_tensor(register, rng):
    logger = CollectingLogger()
    register(ex.NonZeroCreator())
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1, -1))
    layer = network.add_plugin_v3([x], [], ex.NonZeroPlugin())
    assert layer is not None, logger.errors()
    indices, count = layer.get_output(0), layer.get_output(1)
    indices.name, count.name = "indices", "count"
    network.mark_output(indices)
    network.mark_output(count)
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 1), (4, 4), (8, 8))
    config.add_optimization_profile(profile)
    plan = build_plan(builder, network, config)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    assert tuple(engine.get_tensor_shape("indices")) == (-1, 2)
    assert tuple(engine.get_tensor_shape("count")) == ()
    assert engine.get_tensor_dtype("count") == trt.int64
    context = engine.create_execution_context()
    samples = [rng.standard_normal((4, 4)) * (rng.random((4, 4)) < 0.4), np.eye(8), np.zeros((3, 2)), np.ones((1, 1))]
    for sample in samples:
        x = sample.astype(np.float32)
        outputs = trt.run(engine, {"x": x}, context=context)
        expected = np.argwhere(x != 0).astype(np.int32)
        np.testing.assert_array_equal(outputs["indices"].reshape(-1, 2), expected)
        assert int(outputs["count"]) == len(expected)
    assert not logger.errors()


# ---- (c) Custom tactics and a timing-cache ID --------------------------------------------------------------------


def tactic_network(builder):
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1, 4))
    layer = network.add_plugin_v3([x], [], ex.TacticScalePlugin(3.0))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return network


def test_plugin_with_tactics_and_a_timing_cache_id(register, rng):
    logger = CollectingLogger()
    register(ex.TacticScaleCreator())
    builder = trt.Builder(logger)
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 4), (16, 4), (64, 4))
    config.add_optimization_profile(profile)
    cache = config.create_timing_cache(b"")
    assert config.set_timing_cache(cache, False)

    ex.TacticScalePlugin.ENQUEUES.clear()
    plan = build_plan(builder, tactic_network(builder), config)
    assert set(ex.TacticScalePlugin.ENQUEUES) == {1, 2}, "both custom tactics were timed"
    assert len(config.get_timing_cache().queryKeys()) == 2, "one cache entry per tactic"

    # The same plugin, the same ID and shapes: a second build takes both timings from the cache and runs nothing.
    ex.TacticScalePlugin.ENQUEUES.clear()
    build_plan(builder, tactic_network(builder), config)
    assert ex.TacticScalePlugin.ENQUEUES == []
    assert "(from the timing cache)" in logger.text()

    ex.EVENTS.clear()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    tactics = [event[2] for event in ex.EVENTS if event[1] == "set_tactic"]
    assert len(tactics) == 1 and tactics[0] in (1, 2), "the plan keeps the chosen tactic, given to set_tactic"
    x = rng.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(trt.run(engine, {"x": x})["y"], 3.0 * x, rtol=1e-6)
    assert ex.TacticScalePlugin.ENQUEUES[-1] == tactics[0]
    assert not logger.errors()


# ---- (d) Exceptions from every plugin method -----------------------------------------------------------------------

# The step that fails when the method raises: the C++ call gets TensorRT's failure value. Where that value is harmless
# (a workspace of 0 bytes, no timing-cache ID, destroy), the error is reported and the step goes on.
FAILURES = {
    "get_capability_interface": "add",
    "clone": "add",
    "get_output_data_types": "add",
    "get_output_shapes": "build",
    "supports_format_combination": "build",
    "configure_plugin": "build",
    "get_valid_tactics": "build",
    "get_fields_to_serialize": "build",
    "get_workspace_size": None,
    "get_timing_cache_id": None,
    "destroy": None,
    "create_plugin": "deserialize",
    "set_tactic": "deserialize",
    "attach_to_context": "context",
    "on_shape_change": "execute",
    "enqueue_host": "execute",
}


def run_failing_pipeline(logger):
    """Adds, builds, deserializes and runs a Failing plugin; returns the first step that failed (None if none)."""
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    layer = network.add_plugin_v3([x], [], ex.FailingPlugin())
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
def test_an_exception_in_a_plugin_method_fails_the_step_and_names_the_plugin(register, method):
    logger = CollectingLogger()
    register(ex.FailingCreator())
    ex.FailingPlugin.fail_in = method
    failed = run_failing_pipeline(logger)
    ex.FailingPlugin.fail_in = None
    assert failed == FAILURES[method], logger.errors()
    owner = ("Python plugin creator \"Failing\" version \"1\" namespace \"kiln_test\" (class FailingCreator)"
             if method == "create_plugin" else
             "Python plugin \"Failing\" version \"1\" namespace \"kiln_test\" (class FailingPlugin)")
    reported = [m for m in logger.errors() if f"exception caught in {method}()" in m]
    assert reported, logger.errors()
    assert reported[0].startswith(owner + ": ") and f"ValueError: boom in {method}" in reported[0]
    if failed is not None:
        # kiln's own error for the failed step follows the plugin's.
        assert len(logger.errors()) > len(reported), logger.errors()
    assert live(ex.FailingPlugin) == [], "nothing is leaked on the failure path"


def test_a_missing_required_method_is_reported(register):
    logger = CollectingLogger()

    class NoShapes(ex.FailingPlugin):
        get_output_shapes = trt.IPluginV3OneBuild.get_valid_tactics  # a bound C++ method: not an override

    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    layer = network.add_plugin_v3([x], [], NoShapes())
    if layer is not None:
        network.mark_output(layer.get_output(0))
        assert builder.build_serialized_network(network, builder.create_builder_config()) is None
    assert any("Method: get_output_shapes was not overriden" in m and "NoShapes)" in m
               for m in logger.errors()), logger.errors()


def test_a_plugin_without_enqueue_host_cannot_run_on_the_host_backend(register, monkeypatch):
    logger = CollectingLogger()
    register(ex.CircPadCreator())
    engine = trt.Runtime(logger).deserialize_cuda_engine(circpad_plan(logger))
    assert engine is not None
    monkeypatch.delattr(ex.CircPadPlugin, "enqueue_host")
    assert engine.create_execution_context() is None
    assert any("cannot run on kiln's host backend" in m and "defines no enqueue_host(" in m
               for m in logger.errors()), logger.errors()


# ---- (e) A plan whose creator is not registered -------------------------------------------------------------------


def test_a_plan_without_its_creator_names_the_creator_to_register(rng):
    logger = CollectingLogger()
    registry = trt.get_plugin_registry()
    creator = ex.CircPadCreator()
    assert registry.register_creator(creator, ex.NAMESPACE)
    assert registry.get_creator("CircPad", "1", ex.NAMESPACE) is creator, "the registered Python object itself"
    plan = circpad_plan(logger)
    assert registry.deregister_creator(creator)
    assert registry.get_creator("CircPad", "1", ex.NAMESPACE) is None
    logger.messages.clear()
    assert trt.Runtime(logger).deserialize_cuda_engine(plan) is None
    text = "\n".join(logger.errors())
    assert 'no creator of plugin "CircPad" version "1" namespace "kiln_test" is registered' in text
    assert 'get_plugin_registry().register_creator(creator, "kiln_test")' in text
    # The plan records that the plugin was written in Python (format 4.5), so the message says which process can load
    # it and how.
    assert "the plan records the plugin as written in Python" in text, text
    assert 'import the module that defines "kiln_test::CircPad"' in text, text

    assert registry.register_creator(creator, ex.NAMESPACE)
    try:
        engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
        x = rng.standard_normal((1, 3, 3, 3)).astype(np.float32)
        np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], padded(x, (1, 2)))
        # The engine inspector names the plugin's language, as `kiln inspect` shows it.
        inspector = engine.create_engine_inspector()
        info = inspector.get_engine_information(trt.LayerInformationFormat.ONELINE)
        assert '(IPluginV3, Python)' in info, info
    finally:
        del engine
        assert registry.deregister_creator(creator)


def run_loader(plan_path, register_creator):
    """Loads and runs plan_path in a new Python process, which registers CircPad's creator when asked."""
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import kiln as trt
        import python_plugin_examples as ex

        if sys.argv[2] == "register":
            trt.get_plugin_registry().register_creator(ex.CircPadCreator(), ex.NAMESPACE)
        engine = trt.Runtime(trt.Logger(trt.Logger.ERROR)).deserialize_cuda_engine(open(sys.argv[1], "rb").read())
        if engine is None:
            sys.exit(3)
        x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
        y = trt.run(engine, {"x": x})["y"]
        np.testing.assert_array_equal(y, np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode="wrap"))
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
        plan_path = tmp_path / "circpad.plan"
        plan_path.write_bytes(bytes(circpad_plan(logger)))
    finally:
        assert registry.deregister_creator(creator)
    loaded = run_loader(plan_path, True)
    assert loaded.returncode == 0 and "ran" in loaded.stdout, loaded.stdout + loaded.stderr
    refused = run_loader(plan_path, False)
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert 'no creator of plugin "CircPad" version "1" namespace "kiln_test"' in refused.stdout + refused.stderr


# ---- Lifetime ----------------------------------------------------------------------------------------------------


def test_plugins_are_freed_with_the_engine_and_the_network(register, rng):
    logger = CollectingLogger()
    register(ex.CircPadCreator())
    builder = trt.Builder(logger)
    plugin = ex.CircPadPlugin((2, 1))
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
    destroyed = sum(1 for event in ex.EVENTS if event[1] == "destroy")
    assert destroyed >= 1, "the builder's clone and the context's clone were destroyed"

    del layer, network, config
    gc.collect()
    assert kept() is None, "the network's clone goes with the network"
    del engine
    assert live(ex.CircPadPlugin) == []
    assert sum(1 for event in ex.EVENTS if event[1] == "destroy") > destroyed


def test_a_creator_freed_while_registered_leaves_the_registry(logger):
    registry = trt.get_plugin_registry()
    creator = ex.NonZeroCreator()
    assert registry.register_creator(creator, ex.NAMESPACE)
    del creator
    gc.collect()
    assert registry.get_creator("NonZero", "1", ex.NAMESPACE) is not None, "the registry keeps what it registered"
    # Dropping the registry's own reference (as the interpreter does at exit) deregisters the creator first.
    kept = registry._kiln_creators
    index = next(i for i, c in enumerate(kept) if isinstance(c, ex.NonZeroCreator))
    kept.pop(index)
    gc.collect()
    assert registry.get_creator("NonZero", "1", ex.NAMESPACE) is None


# ---- Shared resources ----------------------------------------------------------------------------------------------


class SharedTable(trt.IPluginResource):
    """A resource whose clone (the object the registry stores) loads a table; release() empties it."""

    CLONES = []
    RELEASED = []

    def __init__(self, table=None):
        trt.IPluginResource.__init__(self)
        self.table = table

    def clone(self):
        copy = SharedTable(np.arange(4, dtype=np.float32))
        SharedTable.CLONES.append(weakref.ref(copy))
        return copy

    def release(self):
        SharedTable.RELEASED.append(self.table.sum())
        self.table = None


def test_a_python_resource_is_cloned_once_per_key_and_released_by_the_last_user():
    registry = trt.get_plugin_registry()
    SharedTable.CLONES.clear()
    SharedTable.RELEASED.clear()
    first = registry.acquire_plugin_resource("kiln_test_table", SharedTable())
    assert isinstance(first, SharedTable) and first.table is not None, "the registry stores and returns the clone"
    again = registry.acquire_plugin_resource("kiln_test_table", SharedTable())
    assert again is first and len(SharedTable.CLONES) == 1
    del first, again
    assert registry.release_plugin_resource("kiln_test_table") == 0
    gc.collect()
    assert SharedTable.RELEASED == [] and SharedTable.CLONES[0]() is not None, "one user left"
    assert registry.release_plugin_resource("kiln_test_table") == 0
    gc.collect()
    assert SharedTable.RELEASED == [6.0]
    assert SharedTable.CLONES[0]() is None, "the registry dropped the clone after release()"


def test_a_resource_whose_clone_raises_is_not_stored():
    logger = CollectingLogger()
    trt.Builder(logger)  # the library's current logger

    class Broken(trt.IPluginResource):
        def __init__(self):
            trt.IPluginResource.__init__(self)

        def clone(self):
            raise RuntimeError("no table today")

        def release(self):
            pass

    registry = trt.get_plugin_registry()
    assert registry.acquire_plugin_resource("kiln_test_broken", Broken()) is None
    assert any(m.startswith("Python plugin resource (class ") and "Broken): " in m and "exception caught in clone()" in m
               and "no table today" in m for m in logger.errors()), logger.errors()
    assert registry.release_plugin_resource("kiln_test_broken") == -1


# ---- Capabilities in objects of their own ------------------------------------------------------------------------


SPLIT_LIVE = weakref.WeakSet()


class SplitCore(trt.IPluginV3OneCore):
    def __init__(self):
        trt.IPluginV3OneCore.__init__(self)
        self.plugin_name, self.plugin_version, self.plugin_namespace = "Split", "1", ex.NAMESPACE


class SplitBuild(trt.IPluginV3OneBuild):
    def __init__(self, state):
        trt.IPluginV3OneBuild.__init__(self)
        self.num_outputs = 1
        self.state = state

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(inputs[0])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        return in_out[pos].desc.type == trt.DataType.FLOAT and in_out[pos].desc.format == trt.TensorFormat.LINEAR

    def configure_plugin(self, inp, out):
        pass


class SplitRuntime(trt.IPluginV3OneRuntime):
    def __init__(self, state):
        trt.IPluginV3OneRuntime.__init__(self)
        self.state = state

    def set_tactic(self, tactic):
        pass

    def on_shape_change(self, inp, out):
        pass

    def attach_to_context(self, context):
        return SplitPlugin(dict(self.state))

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("factor", np.array([self.state["factor"]], np.float32), trt.PluginFieldType.FLOAT32)])


class SplitPlugin(trt.IPluginV3):
    """A plugin whose core, build and runtime capabilities are objects of their own, sharing a state dict."""

    def __init__(self, state):
        trt.IPluginV3.__init__(self)
        self.state = state
        self.parts = {trt.PluginCapabilityType.CORE: SplitCore(), trt.PluginCapabilityType.BUILD: SplitBuild(state),
                      trt.PluginCapabilityType.RUNTIME: SplitRuntime(state)}
        SPLIT_LIVE.add(self)

    def get_capability_interface(self, type):
        return self.parts[type]

    def clone(self):
        return SplitPlugin(dict(self.state))

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        np.multiply(inputs[0], np.float32(self.state["factor"]), out=outputs[0])


class SplitCreator(trt.IPluginCreatorV3One):
    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "Split", "1", ex.NAMESPACE
        self.field_names = trt.PluginFieldCollection([])

    def create_plugin(self, name, field_collection, phase):
        return SplitPlugin({"factor": float(dict((f.name, f.data) for f in field_collection)["factor"][0])})


def test_capabilities_in_objects_of_their_own(register, rng):
    logger = CollectingLogger()
    register(SplitCreator())
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 5))
    layer = network.add_plugin_v3([x], [], SplitPlugin({"factor": -1.5}))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network))
    assert engine is not None, logger.errors()
    x = rng.standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(trt.run(engine, {"x": x})["y"], -1.5 * x, rtol=1e-6)
    assert not logger.errors()
    del engine, layer, network
    gc.collect()
    assert list(SPLIT_LIVE) == []


# ---- Shape inputs ------------------------------------------------------------------------------------------------


class RowsPlugin(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """Repeats a 1-D input as many times as the first value of its shape input: y[r, :] = x."""

    def __init__(self):
        for base in (trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
            base.__init__(self)
        self.plugin_name, self.plugin_version, self.plugin_namespace = "Rows", "1", ex.NAMESPACE
        self.num_outputs = 1

    def get_capability_interface(self, type):
        return self

    def clone(self):
        return RowsPlugin()

    def get_output_data_types(self, input_types):
        assert len(input_types) == 1, "shape inputs have no say in the output types"
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        assert len(inputs) == 1 and len(shape_inputs) == 1 and len(shape_inputs[0]) == 2
        return [trt.DimsExprs([shape_inputs[0][0], inputs[0][0]])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        return in_out[pos].desc.type == trt.DataType.FLOAT and in_out[pos].desc.format == trt.TensorFormat.LINEAR

    def configure_plugin(self, inp, out):
        pass

    def set_tactic(self, tactic):
        pass

    def on_shape_change(self, inp, out):
        pass

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection([])

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        assert len(inputs) == 1, "enqueue_host sees the data inputs only"
        outputs[0][...] = inputs[0][np.newaxis, :]


class RowsCreator(trt.IPluginCreatorV3One):
    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "Rows", "1", ex.NAMESPACE
        self.field_names = trt.PluginFieldCollection([])

    def create_plugin(self, name, field_collection, phase):
        return RowsPlugin()


def test_output_shape_from_a_shape_input(register, rng):
    logger = CollectingLogger()
    register(RowsCreator())
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1,))
    like = network.add_input("like", trt.float32, (-1, 1))
    shape = network.add_shape(like).get_output(0)  # [R, 1]: R is the first value
    layer = network.add_plugin_v3([x], [shape], RowsPlugin())
    assert layer is not None, logger.errors()
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1,), (4,), (8,))
    profile.set_shape("like", (1, 1), (3, 1), (6, 1))
    config.add_optimization_profile(profile)
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))
    assert engine is not None, logger.errors()
    x = rng.standard_normal(5).astype(np.float32)
    y = trt.run(engine, {"x": x, "like": np.zeros((4, 1), np.float32)})["y"]
    np.testing.assert_array_equal(y, np.tile(x, (4, 1)))
    assert not logger.errors()


def test_a_creator_without_its_attributes_is_refused_with_a_message():
    logger = CollectingLogger()
    trt.Builder(logger)  # the library's current logger

    class Nameless(trt.IPluginCreatorV3One):
        def __init__(self):
            trt.IPluginCreatorV3One.__init__(self)

        def create_plugin(self, name, field_collection, phase):
            return None

    registry = trt.get_plugin_registry()
    assert not registry.register_creator(Nameless(), ex.NAMESPACE)
    assert any("AttributeError: name not initialized" in m and "Python plugin creator (unset)" in m
               for m in logger.errors()), logger.errors()


def test_contexts_run_a_python_plugin_from_several_threads(register, rng):
    # execute_async_v3 releases the GIL and each plugin call takes it back: threads neither deadlock nor mix data.
    import threading

    logger = CollectingLogger()
    register(ex.CircPadCreator())
    engine = trt.Runtime(logger).deserialize_cuda_engine(circpad_plan(logger))
    inputs = [rng.standard_normal((1 + i, 3, 2 + i, 3)).astype(np.float32) for i in range(4)]
    problems = []

    def work(x):
        try:
            context = engine.create_execution_context()
            for _ in range(10):
                np.testing.assert_array_equal(trt.run(engine, {"x": x}, context=context)["y"], padded(x, (1, 2)))
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
