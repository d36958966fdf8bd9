# SPDX-License-Identifier: Apache-2.0
"""The decorator API tensorrt.plugin (kiln.plugin) on kiln's host backend: plugins defined with @register, @impl and
@autotune (decorator_plugin_examples.py) are added with network.add_plugin(trtp.op.ns.name(...)) or imported by the
ONNX parser, built, serialized, deserialized (also in a second process) and run, checked against numpy. Also: the
errors a raising register/autotune/impl function gives, and the validation of the decorated signatures. AOT plugins
(aot_impl) are tested in test_plugin_aot.py."""

import os
import subprocess
import sys
import textwrap
from typing import Tuple

import numpy as np
import numpy.typing as npt
import pytest

import decorator_plugin_examples as ex
import kiln as trt
import kiln.plugin as trtp

from conftest import CollectingLogger, build_plan

TESTS = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def fresh_calls():
    ex.CALLS.clear()
    yield
    ex.Failing.fail_in = None


def single_plugin_network(builder, make, shape, dtype=trt.float32, dynamic=None, flags=0):
    """A network x -> plugin -> y (and further outputs y1, ...); make(x) gives what add_plugin takes. dynamic:
    (min, opt, max) for an optimization profile."""
    network = builder.create_network(flags)
    x = network.add_input("x", dtype, shape)
    layer = network.add_plugin(make(x))
    assert layer is not None
    for i in range(layer.num_outputs):
        layer.get_output(i).name = "y" if i == 0 else f"y{i}"
        network.mark_output(layer.get_output(i))
    config = builder.create_builder_config()
    if dynamic is not None:
        profile = builder.create_optimization_profile()
        profile.set_shape("x", *dynamic)
        config.add_optimization_profile(profile)
    return network, layer, config


def build_and_load(logger, make, shape, **kwargs):
    builder = trt.Builder(logger)
    network, _, config = single_plugin_network(builder, make, shape, **kwargs)
    plan = build_plan(builder, network, config)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    return plan, engine


# ---- register + impl: built, serialized, deserialized, run ---------------------------------------------------------


def test_circular_padding_with_shape_expressions_builds_serializes_and_runs(rng):
    logger = CollectingLogger()
    pads = np.array([1, 2, 0, 3], np.int32)
    _, engine = build_and_load(logger, lambda x: trtp.op.kiln_qdp.circ_pad(x, pads=pads), (-1, 3, -1, -1),
                               dynamic=((1, 3, 2, 2), (2, 3, 4, 5), (4, 3, 8, 8)))
    context = engine.create_execution_context()
    assert context is not None, logger.errors()
    for shape in [(2, 3, 4, 5), (1, 3, 2, 2), (4, 3, 8, 7)]:
        x = rng.standard_normal(shape).astype(np.float32)
        y = trt.run(engine, {"x": x}, context=context)["y"]
        np.testing.assert_array_equal(y, ex.circ_pad_reference(x, [1, 2, 0, 3]))
    assert ex.CALLS == [("circ_pad", "impl")] * 3
    assert not logger.errors()


def test_the_network_sees_the_output_shape_from_the_register_function():
    builder = trt.Builder(CollectingLogger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3, 4, 5))
    layer = network.add_plugin(trtp.op.kiln_qdp.circ_pad(x, pads=np.array([1, 1, 2, 0], np.int32)))
    assert isinstance(layer, trt.IPluginV3Layer)
    assert tuple(layer.get_output(0).shape) == (2, 3, 6, 7)
    assert layer.get_output(0).dtype == trt.float32
    plugin = layer.plugin
    assert (plugin.plugin_name, plugin.plugin_version, plugin.plugin_namespace) == ("circ_pad", "1", "kiln_qdp")


def test_only_the_attributes_impl_names_are_kept_in_the_plan(rng):
    logger = CollectingLogger()
    plan, engine = build_and_load(
        logger, lambda x: trtp.op.kiln_qdp.add_scalar(x, alpha=1.5, tag="only-in-register"), (2, 5))
    x = rng.standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(trt.run(engine, {"x": x})["y"], x + np.float32(1.5), rtol=0, atol=0)
    assert b"alpha" in bytes(plan) and b"only-in-register" not in bytes(plan)


def test_the_tuple_form_of_add_plugin():
    builder = trt.Builder(CollectingLogger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (3,))
    inputs, shape_inputs, plugin = trtp.op.kiln_qdp.add_scalar(x, alpha=1.0, tag="only-in-register")(None)
    assert inputs == [x] and shape_inputs == [] and isinstance(plugin, trt.IPluginV3)
    layer = network.add_plugin((inputs, shape_inputs, plugin))
    assert layer is not None and tuple(layer.get_output(0).shape) == (3,)
    assert network.add_plugin(trtp.op.kiln_qdp.add_scalar(x, alpha=1.0, tag="only-in-register"), aot=False)


def test_the_creator_is_in_the_plugin_registry():
    registry = trt.get_plugin_registry()
    creator = registry.get_creator("circ_pad", "1", "kiln_qdp")
    assert creator is not None and creator is trtp.QDP_CREATORS["kiln_qdp::circ_pad"]
    assert (creator.name, creator.plugin_version, creator.plugin_namespace) == ("circ_pad", "1", "kiln_qdp")
    assert [f.name for f in creator.field_names] == ["pads"]
    assert [f.type for f in registry.get_creator("add_scalar", "1", "kiln_qdp").field_names] == [
        trt.PluginFieldType.FLOAT64, trt.PluginFieldType.CHAR]
    assert creator in registry.all_creators
    assert trtp.QDP_REGISTRY["kiln_qdp::circ_pad"] is trtp.op.kiln_qdp.circ_pad


# ---- autotune ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_autotune_offers_types_and_two_tactics_and_the_chosen_tactic_reaches_impl(rng, dtype):
    logger = CollectingLogger()
    trt_type = trt.float32 if dtype == np.float32 else trt.float16
    _, engine = build_and_load(logger, lambda x: trtp.op.kiln_qdp.scale_tactics(x, factor=3.0), (4, 6),
                               dtype=trt_type, flags=1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED))
    timed = sorted({call[1] for call in ex.CALLS})
    assert timed == [1, 2], "the builder timed both tactics through impl"
    ex.CALLS.clear()
    x = rng.standard_normal((4, 6)).astype(dtype)
    y = trt.run(engine, {"x": x})["y"]
    assert y.dtype == dtype
    np.testing.assert_allclose(y, x * dtype(3.0), rtol=1e-3)
    assert len(ex.CALLS) == 1 and ex.CALLS[0][0] == "scale_tactics" and ex.CALLS[0][1] in (1, 2)
    assert not logger.errors()


def test_auto_tune_combination_expands_dependent_and_independent_choices():
    from kiln.plugin._autotune import merge

    f, h, i32 = int(trt.DataType.FLOAT), int(trt.DataType.HALF), int(trt.DataType.INT32)
    linear = int(trt.TensorFormat.LINEAR)
    dependent = merge([trtp.AutoTuneCombination("FP32|FP16, FP32|FP16")], 2)
    assert [c[0] for c in dependent] == [(f, f), (h, h)]
    crossed = merge([trtp.AutoTuneCombination("FP32*FP16, INT32")], 2)
    assert [c[0] for c in crossed] == [(f, i32), (h, i32)] and all(c[1] == (linear, linear) for c in crossed)
    merged = merge([trtp.AutoTuneCombination("FP32, FP32", "LINEAR", [1]),
                    trtp.AutoTuneCombination("FP32, FP32", "LINEAR", [2, 1])], 2)
    assert merged == [((f, f), (linear, linear), (1, 2))]
    by_pos = trtp.AutoTuneCombination()
    by_pos.pos([0, 1], "FP16")
    by_pos.tactics([5])
    assert merge([by_pos], 2) == [((h, h), (linear, linear), (5,))]
    with pytest.raises(ValueError, match="already set"):
        by_pos.pos(0, "FP32")
    with pytest.raises(ValueError, match="mixes"):
        trtp.AutoTuneCombination("FP32|FP16*INT8, FP32")
    with pytest.raises(ValueError, match="unknown type"):
        trtp.AutoTuneCombination("FLOAT33, FP32")
    with pytest.raises(ValueError, match="positive"):
        trtp.AutoTuneCombination("FP32, FP32", tactics=[0])
    with pytest.raises(ValueError, match="same number"):
        merge([trtp.AutoTuneCombination("FP32|FP16, FP32|FP16|INT8")], 2)
    with pytest.raises(ValueError, match="3 specs"):
        merge([trtp.AutoTuneCombination("FP32, FP32, FP32")], 2)


# ---- data-dependent output -----------------------------------------------------------------------------------------


def test_a_data_dependent_output_with_a_size_tensor(rng):
    logger = CollectingLogger()
    _, engine = build_and_load(logger, lambda x: trtp.op.kiln_qdp.nonzero(x), (-1, 4),
                               dynamic=((1, 4), (3, 4), (6, 4)))
    assert engine.get_tensor_dtype("y") == trt.int32 and engine.get_tensor_dtype("y1") == trt.int64
    for rows in (5, 2):
        x = rng.standard_normal((rows, 4)).astype(np.float32)
        x[x < 0.3] = 0
        out = trt.run(engine, {"x": x})
        np.testing.assert_array_equal(out["y"], np.argwhere(x != 0).astype(np.int32))
        assert int(out["y1"]) == np.count_nonzero(x)
    out = trt.run(engine, {"x": np.zeros((3, 4), np.float32)})
    assert out["y"].shape == (0, 2) and int(out["y1"]) == 0
    assert not logger.errors()


# ---- an output aliased to its input ----------------------------------------------------------------------------------


def test_an_output_aliased_to_its_input_is_written_in_place(rng):
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network, layer, config = single_plugin_network(builder, lambda x: trtp.op.kiln_qdp.add_inplace(x), (2, 3))
    assert layer.plugin.get_aliased_input(0) == 0
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))
    assert engine is not None, logger.errors()
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(trt.run(engine, {"x": x.copy()})["y"], x + 1, rtol=1e-6)
    assert ex.CALLS == [("add_inplace", "impl")] and not logger.errors()


def test_the_inplace_add_sample_builds_with_fp16_and_runs(rng):
    """TensorRT's quickly_deployable_plugins inplace_add (qdp_runner.py): two in-place plugins whose autotune offers
    FP32 in LINEAR and HWC and FP16 in LINEAR, built with FP16 and aliased I/O. Every candidate is timed; whichever wins,
    the network's tensors stay FP32 and the result is x + 2 + 4."""
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3, 4, 4))
    first = network.add_plugin(trtp.op.kiln_qdp.add_inplace_tuned(x, delta=2))
    second = network.add_plugin(trtp.op.kiln_qdp.add_inplace_tuned(first.get_output(0), delta=4))
    second.get_output(0).name = "y"
    network.mark_output(second.get_output(0))
    config = builder.create_builder_config()
    config.set_flag(trt.BuilderFlag.FP16)
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))
    assert engine is not None, logger.errors()
    assert engine.get_tensor_dtype("x") == trt.float32 and engine.get_tensor_dtype("y") == trt.float32
    tried = {(dtype, fmt) for name, dtype, fmt in ex.CALLS}
    assert tried == {(trt.float32, trt.TensorFormat.LINEAR), (trt.float32, trt.TensorFormat.HWC),
                     (trt.float16, trt.TensorFormat.LINEAR)}, tried  # each candidate was timed
    ex.CALLS.clear()
    data = np.round(rng.standard_normal((2, 3, 4, 4)) * 8).astype(np.float32)  # exact in FP16 too
    np.testing.assert_array_equal(trt.run(engine, {"x": data.copy()})["y"], data + 6)
    assert len(ex.CALLS) == 2 and not logger.errors()


def test_without_autotune_a_plugin_keeps_the_networks_types_under_fp16(rng):
    """FP16 offers a plugin's FP32 inputs in FP16 too, but one without an autotune function supports only the types
    its register function gave for the network's."""
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    make = lambda x: trtp.op.kiln_qdp.add_scalar(x, alpha=0.5, tag="only-in-register")  # noqa: E731
    network, _, config = single_plugin_network(builder, make, (2, 3))
    config.set_flag(trt.BuilderFlag.FP16)
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))
    assert engine is not None, logger.errors()
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(trt.run(engine, {"x": x})["y"], x + 0.5, rtol=1e-6)
    assert ex.CALLS == [("add_scalar", "impl")] and not logger.errors()


# ---- the ONNX parser -----------------------------------------------------------------------------------------------


def circ_pad_model(namespace_by):
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    attrs = {"pads": [1, 0, 2, 1]}
    domain = ""
    if namespace_by == "attribute":
        attrs["plugin_namespace"] = "kiln_qdp"
    else:
        domain = "kiln_qdp"
    node = helper.make_node("circ_pad", ["x"], ["y"], name="pad0", domain=domain, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("kiln_qdp", 1)] if domain else [])
    return helper.make_model(graph, opset_imports=opsets).SerializeToString()


@pytest.mark.skipif(not hasattr(trt, "OnnxParser"), reason="kiln was built without its ONNX parser")
@pytest.mark.parametrize("namespace_by", ["attribute", "domain"])
def test_the_onnx_parser_imports_a_node_as_a_decorator_plugin(rng, namespace_by):
    model = circ_pad_model(namespace_by)
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(model), [str(parser.get_error(i)) for i in range(parser.num_errors)] + [logger.errors()]
    layer = network.get_layer(0)
    assert layer.type == trt.LayerType.PLUGIN_V3 and tuple(layer.get_output(0).shape) == (2, 3, 5, 8)
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network))
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = trt.run(engine, {"x": x})[engine.get_tensor_name(1)]
    np.testing.assert_array_equal(y, ex.circ_pad_reference(x, [1, 0, 2, 1]))


# ---- errors --------------------------------------------------------------------------------------------------------


def test_an_exception_in_register_fails_add_plugin_and_names_the_plugin():
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    ex.Failing.fail_in = "register"
    assert network.add_plugin(trtp.op.kiln_qdp.failing(x)) is None
    text = logger.error_text()
    assert "'kiln_qdp::failing'" in text and "failing_desc() raised ValueError: boom in register" in text, text
    assert 'Python plugin "failing" version "1" namespace "kiln_qdp"' in text, text


def test_an_exception_in_autotune_fails_the_build_and_names_the_plugin():
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network, _, config = single_plugin_network(builder, lambda x: trtp.op.kiln_qdp.failing(x), (2, 3))
    ex.Failing.fail_in = "autotune"
    assert builder.build_serialized_network(network, config) is None
    text = logger.error_text()
    assert "'kiln_qdp::failing'" in text and "failing_tune() raised ValueError: boom in autotune" in text, text


def test_an_exception_in_impl_fails_the_run_and_names_the_plugin():
    logger = CollectingLogger()
    _, engine = build_and_load(logger, lambda x: trtp.op.kiln_qdp.failing(x), (2, 3))
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], x)
    ex.Failing.fail_in = "impl"
    with pytest.raises(RuntimeError):
        trt.run(engine, {"x": x})
    text = logger.error_text()
    assert "'kiln_qdp::failing'" in text and "failing_impl() raised ValueError: boom in impl" in text, text
    ex.Failing.fail_in = None
    np.testing.assert_array_equal(trt.run(engine, {"x": 2 * x})["y"], 2 * x)  # the engine still works


# ---- a plan in another process -------------------------------------------------------------------------------------


def run_loader(plan_path, import_module):
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import kiln as trt
        if sys.argv[2] == "import":
            import decorator_plugin_examples as ex
        engine = trt.Runtime(trt.Logger(trt.Logger.ERROR)).deserialize_cuda_engine(open(sys.argv[1], "rb").read())
        if engine is None:
            sys.exit(3)
        x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
        y = trt.run(engine, {"x": x})["y"]
        np.testing.assert_array_equal(y, ex.circ_pad_reference(x, [2, 1, 1, 0]))
        assert ex.CALLS == [("circ_pad", "impl")]
        print("ran")
    """)
    path = os.pathsep.join([TESTS] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    env = dict(os.environ, PYTHONPATH=path, KILN_BACKEND="host")
    return subprocess.run([sys.executable, "-c", script, str(plan_path), "import" if import_module else "-"],
                          env=env, capture_output=True, text=True, timeout=120)


def test_a_plan_loads_in_a_fresh_process_that_imports_the_plugin_module(tmp_path):
    logger = CollectingLogger()
    plan, _ = build_and_load(logger, lambda x: trtp.op.kiln_qdp.circ_pad(x, pads=np.array([2, 1, 1, 0], np.int32)),
                             (2, 3, 4, 5))
    plan_path = tmp_path / "circ_pad.plan"
    plan_path.write_bytes(bytes(plan))
    loaded = run_loader(plan_path, True)
    assert loaded.returncode == 0 and "ran" in loaded.stdout, loaded.stdout + loaded.stderr
    refused = run_loader(plan_path, False)
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert 'no creator of plugin "circ_pad" version "1" namespace "kiln_qdp"' in refused.stdout + refused.stderr


# ---- descriptors and expressions -----------------------------------------------------------------------------------


def test_fake_and_constant_shape_expressions():
    fake = trtp.ShapeExpr()
    assert fake.is_fake and (fake + 1).is_fake and trtp.max(fake, 3).is_fake
    with pytest.raises(RuntimeError, match="fake"):
        fake.constant_value()
    with pytest.raises(RuntimeError, match="fake"):
        bool(fake)
    seven = trtp.ShapeExpr(3) * 2 + 1
    assert seven.is_constant and seven.constant_value() == 7
    assert trtp.cdiv(seven, 2).constant_value() == 4 and (seven // 2).constant_value() == 3
    assert (10 - seven).constant_value() == 3 and trtp.min(seven, 5).constant_value() == 5
    assert (seven == 7).constant_value() == 1 and (seven < 7).constant_value() == 0
    with pytest.raises(ValueError, match="at least one"):
        trtp.cdiv(4, 2)
    shape = trtp.ShapeExprs.from_tuple((2, trtp.ShapeExpr(3)))
    assert len(shape) == 2 and shape.numel().constant_value() == 6
    with pytest.raises(IndexError):
        shape[2]
    with pytest.raises(ValueError, match="at most 8"):
        trtp.ShapeExprs(9)
    st = trtp.size_tensor(2, 10)
    assert st.dtype == trt.int32 and st.is_size_tensor and st.expr().is_size_tensor
    with pytest.raises(ValueError, match="arithmetic"):
        st.expr() + 1
    desc = trtp.from_shape_expr((2, 3), dtype=trt.float32)
    assert desc.ndim == 2 and not desc.has_shape
    with pytest.raises(ValueError, match="autotune"):
        desc.shape


def test_a_host_tensor_views_numpy_memory():
    from kiln.plugin._tensor import Tensor

    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = Tensor(array.ctypes.data, trt.float32, (2, 3), _location="host", _keep=array)
    assert t.on_host and t.numel() == 6 and tuple(t.strides) == (3, 1)
    view = t.numpy()
    view[0, 0] = 9
    assert array[0, 0] == 9 and np.asarray(t).shape == (2, 3)
    assert np.from_dlpack(t)[0, 0] == 9
    read_only = Tensor(array.ctypes.data, trt.float32, (2, 3), _location="host", _read_only=True, _keep=array)
    assert not read_only.numpy().flags.writeable and np.from_dlpack(read_only)[0, 0] == 9
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(ValueError, match="immutable"):
        t.shape = (6,)
    flat = t.aliased((6,))
    assert flat.numpy().shape == (6,) and flat.get_aliased() is t
    device = Tensor(1234, trt.float32, (2, 3), _stream=7)
    interface = device.__cuda_array_interface__
    assert interface["data"] == (1234, False) and interface["strides"] == (12, 4) and interface["stream"] == 7
    assert interface["typestr"] == "<f4" and not hasattr(device, "__array_interface__")
    raw = np.zeros(4, np.uint16)
    bf16 = Tensor(raw.ctypes.data, trt.bfloat16, (4,), _location="host", _keep=raw)
    assert bf16.numpy().dtype == np.uint16, "types numpy lacks are raw elements on the host, as in enqueue_host"
    with pytest.raises(ValueError, match="numpy has no type"):
        Tensor(1234, trt.bfloat16, (4,)).__cuda_array_interface__


def test_enqueue_gives_impl_device_tensors_with_the_cuda_array_interface():
    """What a CUDA engine's enqueue() passes (device addresses, the stream), checked without a GPU: impl gets device
    Tensors whose __cuda_array_interface__ torch and CuPy read. No memory is touched."""

    @trtp.register("kiln_qdp_gpu::probe")
    def probe_desc(x: trtp.TensorDesc, k: int) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
        return x.like(), trtp.from_shape_expr((x.shape_expr[0], 2), dtype=trt.int32)

    seen = []

    @trtp.impl("kiln_qdp_gpu::probe")
    def probe_impl(x: trtp.Tensor, k: int, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        seen.append((x, outputs, k, stream))

    creator = trt.get_plugin_registry().get_creator("probe", "1", "kiln_qdp_gpu")
    fields = trt.PluginFieldCollection([trt.PluginField("k", np.array([4], np.int32), trt.PluginFieldType.INT32)])
    plugin = creator.create_plugin("probe", fields, trt.TensorRTPhase.RUNTIME)
    descs = []
    for dims, dtype in [((3, 5), trt.float16), ((3, 5), trt.float16), ((-1, 2), trt.int32)]:
        desc = trt.PluginTensorDesc()
        desc.dims, desc.type = dims, dtype
        descs.append(desc)
    plugin.set_tactic(0)
    plugin.enqueue(descs[:1], descs[1:], [0x1000], [0x2000, 0x3000], 0, 77)
    (x, outputs, k, stream), = seen
    assert k == 4 and stream == 77 and not x.on_host
    assert x.__cuda_array_interface__ == {"version": 3, "shape": (3, 5), "typestr": "<f2", "data": (0x1000, False),
                                          "strides": (10, 2), "stream": 77}
    assert outputs[0].data_ptr == 0x2000 and outputs[1].is_data_dependent
    with pytest.raises(ValueError, match="data-dependent"):
        outputs[1].__cuda_array_interface__
    assert outputs[1].aliased((4, 2)).__cuda_array_interface__["shape"] == (4, 2)
    with pytest.raises(ValueError, match="device memory"):
        x.numpy()


# ---- what the decorators accept ------------------------------------------------------------------------------------


def test_register_checks_the_plugin_id_and_the_signature():
    def desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    for bad, message in [("noseparator", "namespace::name"), ("trt::x", "reserved"), ("a.b::x", "'.'"),
                         ("kiln_qdp::circ_pad", "already registered")]:
        with pytest.raises(ValueError, match=message):
            trtp.register(bad)(desc)

    def with_default(x: trtp.TensorDesc, k: int = 1) -> trtp.TensorDesc:
        return x

    def unannotated(x: trtp.TensorDesc, k) -> trtp.TensorDesc:
        return x

    def interleaved(x: trtp.TensorDesc, k: int, y: trtp.TensorDesc) -> trtp.TensorDesc:
        return x

    def a_list(x: trtp.TensorDesc, k: list) -> trtp.TensorDesc:
        return x

    def reserved(x: trtp.TensorDesc, stream: int) -> trtp.TensorDesc:
        return x

    def no_return(x: trtp.TensorDesc):
        return x

    def bare_array(x: trtp.TensorDesc, k: np.ndarray) -> trtp.TensorDesc:
        return x

    for func, message in [(with_default, "default"), (unannotated, "no annotation"), (interleaved, "after an attr"),
                          (a_list, "unsupported annotation"), (reserved, "cannot name"), (no_return, "return"),
                          (bare_array, "lazy_register")]:
        with pytest.raises(ValueError, match=message):
            trtp.register(f"kiln_qdp_bad::{func.__name__}")(func)
    assert not hasattr(trtp.op, "kiln_qdp_bad") or not dir(trtp.op.kiln_qdp_bad)


def test_impl_and_autotune_signatures_are_checked():
    @trtp.register("kiln_qdp_sig::p")
    def p_desc(x: trtp.TensorDesc, a: int, b: float) -> trtp.TensorDesc:
        return x.like()

    def wrong_order(x: trtp.Tensor, b: float, a: int, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        pass

    def no_stream(x: trtp.Tensor, outputs: Tuple[trtp.Tensor]) -> None:
        pass

    def wrong_input(y: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        pass

    def wrong_type(x: trtp.Tensor, a: float, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        pass

    for func, message in [(wrong_order, "registration order"), (no_stream, "outputs, stream"),
                          (wrong_input, "start with the inputs"), (wrong_type, "register says int")]:
        with pytest.raises(ValueError, match=message):
            trtp.impl("kiln_qdp_sig::p")(func)
    with pytest.raises(ValueError, match="not registered"):
        trtp.impl("kiln_qdp_sig::unknown")(no_stream)

    builder = trt.Builder(CollectingLogger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2,))
    with pytest.raises(ValueError, match="no @impl"):
        network.add_plugin(trtp.op.kiln_qdp_sig.p(x, a=1, b=2.0))

    @trtp.impl("kiln_qdp_sig::p")
    def p_impl(x: trtp.Tensor, b: float, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        pass

    with pytest.raises(ValueError, match="already defined"):
        trtp.impl("kiln_qdp_sig::p")(p_impl)
    for call, message in [(lambda: trtp.op.kiln_qdp_sig.p(x, a=1), "missing"),
                          (lambda: trtp.op.kiln_qdp_sig.p(x, a=1, b=2.0, c=3), "unknown"),
                          (lambda: trtp.op.kiln_qdp_sig.p(x, a="1", b=2.0), "expected int"),
                          (lambda: trtp.op.kiln_qdp_sig.p(np.ones(2), a=1, b=2.0), "ITensor"),
                          (lambda: trtp.op.kiln_qdp_sig.p(x, x, a=1, b=2.0), "1 input")]:
        with pytest.raises(ValueError, match=message):
            call()
    assert network.add_plugin(trtp.op.kiln_qdp_sig.p(x, a=1, b=2)) is not None  # an int for a float is fine
    assert trtp.op.kiln_qdp_sig.p.impl_attrs == ["b"]


def test_attributes_of_every_type_reach_impl_and_survive_the_plan(rng):
    @trtp.register("kiln_qdp_attrs::all")
    def all_desc(x: trtp.TensorDesc, i: int, f: float, b: bool, s: str, raw: bytes, a32: npt.NDArray[np.int32],
                 a64: npt.NDArray[np.float64], h: npt.NDArray[np.float16]) -> trtp.TensorDesc:
        return x.like()

    seen = []

    @trtp.impl("kiln_qdp_attrs::all")
    def all_impl(x: trtp.Tensor, i: int, f: float, b: bool, s: str, raw: bytes, a32: npt.NDArray[np.int32],
                 a64: npt.NDArray[np.float64], h: npt.NDArray[np.float16], outputs: Tuple[trtp.Tensor],
                 stream: int) -> None:
        seen.append((i, f, b, s, raw, a32, a64, h))
        outputs[0].numpy()[...] = x.numpy()

    values = dict(i=-3, f=0.25, b=True, s="héllo", raw=b"\x00\x01", a32=np.array([1, 2], np.int32),
                  a64=np.array([0.5], np.float64), h=np.array([1.5, -2], np.float16))
    logger = CollectingLogger()
    _, engine = build_and_load(logger, lambda x: trtp.op.kiln_qdp_attrs.all(x, **values), (3,))
    trt.run(engine, {"x": np.ones(3, np.float32)})
    i, f, b, s, raw, a32, a64, h = seen[-1]
    assert (i, f, b, s, raw) == (-3, 0.25, True, "héllo", b"\x00\x01")
    assert a32.dtype == np.int32 and a32.tolist() == [1, 2] and a64.tolist() == [0.5]
    assert h.dtype == np.float16 and h.tolist() == [1.5, -2]


def test_lazy_registration_registers_the_creator_at_the_first_op_call(rng):
    @trtp.register("kiln_qdp_lazy::scale", lazy_register=True)
    def scale_desc(x: trtp.TensorDesc, w: np.ndarray) -> trtp.TensorDesc:
        return x.like()

    @trtp.impl("kiln_qdp_lazy::scale")
    def scale_impl(x: trtp.Tensor, w: np.ndarray, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        np.multiply(x.numpy(), w, out=outputs[0].numpy())

    registry = trt.get_plugin_registry()
    assert registry.get_creator("scale", "1", "kiln_qdp_lazy") is None
    w = np.array([1, 2, 3], np.float32)
    logger = CollectingLogger()
    _, engine = build_and_load(logger, lambda x: trtp.op.kiln_qdp_lazy.scale(x, w=w), (2, 3))
    creator = registry.get_creator("scale", "1", "kiln_qdp_lazy")
    assert creator is not None and [f.type for f in creator.field_names] == [trt.PluginFieldType.FLOAT32]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], x * w)


@pytest.mark.skipif(not hasattr(__import__("typing"), "TypeAliasType"), reason="type aliases need Python 3.12")
def test_an_array_attribute_annotated_through_a_type_alias():
    # numpy >= 2.3 on Python >= 3.12 defines NDArray as a type alias (PEP 695), so NDArray[np.int32] keeps the alias
    # as its origin; TensorRT's samples annotate attributes that way (qdp_defs.py: pads: npt.NDArray[np.int32]).
    import typing
    from typing import Any

    from kiln.plugin._attrs import attr_type

    scalar = typing.TypeVar("scalar")
    alias = typing.TypeAliasType("NDArray", np.ndarray[tuple[Any, ...], np.dtype[scalar]], type_params=(scalar,))
    assert attr_type("pads", alias[np.int32], False).dtype == np.int32
    assert attr_type("w", npt.NDArray[np.float16], False).dtype == np.float16
    with pytest.raises(ValueError, match="arrays of complex64 are not supported"):
        attr_type("c", alias[np.complex64], False)


def test_a_jit_only_plugin_refuses_a_strict_aot_request():
    builder = trt.Builder(CollectingLogger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2,))
    with pytest.raises(ValueError, match="kiln_qdp::add_scalar.*no @tensorrt.plugin.aot_impl"):
        network.add_plugin(trtp.op.kiln_qdp.add_scalar(x, alpha=1.0, tag="only-in-register"), aot=True)
    # Only JIT exists, so a network that prefers AOT plugins gets the JIT one, as TensorRT does when a plugin has only
    # one of the two. (test_plugin_aot.py tests AOT plugins.)
    prefer_aot = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.PREFER_AOT_PYTHON_PLUGINS))
    y = prefer_aot.add_input("x", trt.float32, (2,))
    layer = prefer_aot.add_plugin(trtp.op.kiln_qdp.add_scalar(y, alpha=1.0, tag="only-in-register"))
    assert layer is not None and type(layer.plugin).__name__ == "JitPlugin"


def test_tensorrt_plugin_is_kiln_plugin():
    tensorrt = pytest.importorskip("tensorrt")
    import tensorrt.plugin

    assert tensorrt.plugin is trtp and tensorrt.plugin.op is trtp.op
    for name in trtp.__all__:
        assert hasattr(tensorrt.plugin, name)
