# SPDX-License-Identifier: Apache-2.0
"""Ahead-of-time (AOT) plugins of tensorrt.plugin (kiln.plugin) on kiln's host backend: an aot_impl plugin
(aot_plugin_examples.py, whose PTX is a literal never run here) builds into an engine that keeps its kernel; the
plan loads in a second process that never imports the plugin's module, whose inspector shows the AOT kernel;
running it on the host backend fails naming the plugin; the rules that choose JIT or AOT (add_plugin's aot=, the
network's PREFER flags, the ONNX attribute ``aot``); a malformed aot_impl result fails the build naming the plugin;
the AOT types and the aot_impl signature checks. The GPU test (skipped without a GPU and Triton) compiles a Triton
kernel, builds the plugin and runs the plan with the ``kiln`` tool."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from typing import Tuple

import numpy as np
import pytest

import aot_plugin_examples as ex
import kiln as trt
import kiln.plugin as trtp

from conftest import CollectingLogger, build_plan

TESTS = os.path.dirname(os.path.abspath(__file__))
FLAGS = trt.NetworkDefinitionCreationFlag


@pytest.fixture(autouse=True)
def fresh_calls():
    ex.CALLS.clear()
    yield
    ex.Bad.result = None


def aot_network(builder, make, flags=0, aot=None):
    """x [-1, 8] -> plugin -> y with rows 1..16; make(x) gives what add_plugin takes."""
    network = builder.create_network(flags)
    x = network.add_input("x", trt.float32, (-1, 8))
    layer = network.add_plugin(make(x)) if aot is None else network.add_plugin(make(x), aot=aot)
    assert layer is not None
    layer.name = "aot_layer"
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 8), (4, 8), (16, 8))
    config.add_optimization_profile(profile)
    return network, layer, config


def build_aot_plan(logger, make=lambda x: trtp.op.kiln_aot.scale(x), **kwargs):
    builder = trt.Builder(logger)
    network, layer, config = aot_network(builder, make, **kwargs)
    return build_plan(builder, network, config), layer


# ---- built, serialized, loaded without Python ----------------------------------------------------------------------


def test_an_aot_plugin_builds_and_aot_impl_sees_the_chosen_types_and_tactic():
    logger = CollectingLogger()
    plan, layer = build_aot_plan(logger)
    assert type(layer.plugin).__name__ == "AotPlugin"
    assert ex.CALLS == [("scale", "aot_impl", trt.float32, trt.float32, trt.TensorFormat.LINEAR, 0)]
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    info = json.loads(engine.create_engine_inspector().get_layer_information(0, trt.LayerInformationFormat.JSON))
    assert info["LayerType"] == "AotKernel" and info["AotKernel"]["KernelName"] == "scale_rows", info
    assert info["AotKernel"]["ScalarArguments"] == 2 and info["Plugin"]["Namespace"] == "kiln_aot", info


def test_running_an_aot_plan_on_the_host_backend_names_the_plugin():
    logger = CollectingLogger()
    plan, _ = build_aot_plan(logger)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    with pytest.raises(RuntimeError):
        trt.run(engine, {"x": np.ones((3, 8), np.float32)})
    text = logger.error_text()
    assert 'plugin "scale" version "1" namespace "kiln_aot"' in text, text
    assert "ahead-of-time (AOT) kernel ('scale_rows', PTX), which only the CUDA backend runs" in text, text


LOADER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import kiln as trt

    class Logger(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)
            self.errors = []
        def log(self, severity, msg):
            if severity in (trt.ILogger.Severity.ERROR, trt.ILogger.Severity.INTERNAL_ERROR):
                self.errors.append(msg)

    logger = Logger()
    registry = trt.get_plugin_registry()
    report = {"creator": registry.get_creator("scale", "1", "kiln_aot") is not None,
              "modules": sorted(m for m in sys.modules if "plugin_examples" in m)}
    engine = trt.Runtime(logger).deserialize_cuda_engine(open(sys.argv[1], "rb").read())
    report["loaded"] = engine is not None
    if engine is not None:
        inspector = engine.create_engine_inspector()
        report["layer"] = json.loads(inspector.get_layer_information(0, trt.LayerInformationFormat.JSON))
        try:
            trt.run(engine, {"x": np.ones((2, 8), np.float32)})
            report["ran"] = True
        except RuntimeError:
            report["ran"] = False
    report["errors"] = logger.errors
    print(json.dumps(report))
""")


def test_the_plan_loads_in_a_process_that_never_imports_the_plugin(tmp_path):
    plan, _ = build_aot_plan(CollectingLogger())
    plan_path = tmp_path / "scale_aot.plan"
    plan_path.write_bytes(bytes(plan))
    env = dict(os.environ, KILN_BACKEND="host")
    done = subprocess.run([sys.executable, "-c", LOADER, str(plan_path)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["creator"] is False and report["modules"] == [], report
    assert report["loaded"] is True, report
    assert report["layer"]["LayerType"] == "AotKernel", report
    assert report["layer"]["AotKernel"]["KernelName"] == "scale_rows", report
    assert report["ran"] is False, report
    assert any('namespace "kiln_aot"' in e and "only the CUDA backend runs" in e for e in report["errors"]), report


# ---- choosing JIT or AOT -------------------------------------------------------------------------------------------


def added_kind(make, flags=0, aot=None):
    builder = trt.Builder(CollectingLogger())
    network = builder.create_network(flags)
    x = network.add_input("x", trt.float32, (2, 8))
    layer = network.add_plugin(make(x)) if aot is None else network.add_plugin(make(x), aot=aot)
    return type(layer.plugin).__name__


def test_the_choice_rules_between_jit_and_aot():
    both = lambda x: trtp.op.kiln_aot.both(x)  # noqa: E731
    only_aot = lambda x: trtp.op.kiln_aot.scale(x)  # noqa: E731
    prefer_aot = 1 << int(FLAGS.PREFER_AOT_PYTHON_PLUGINS)
    prefer_jit = 1 << int(FLAGS.PREFER_JIT_PYTHON_PLUGINS)
    with pytest.raises(ValueError, match="PREFER_AOT_PYTHON_PLUGINS or .*PREFER_JIT_PYTHON_PLUGINS should be"):
        added_kind(both)
    assert added_kind(both, prefer_aot) == "AotPlugin"
    assert added_kind(both, prefer_jit) == "JitPlugin"
    assert added_kind(both, aot=True) == "AotPlugin" and added_kind(both, prefer_aot, aot=False) == "JitPlugin"
    # One implementation: that one, whatever the preference; a strict request for the other is an error.
    assert added_kind(only_aot) == "AotPlugin" and added_kind(only_aot, prefer_jit) == "AotPlugin"
    with pytest.raises(ValueError, match="kiln_aot::scale.* has no @impl function"):
        added_kind(only_aot, aot=False)
    # Both flags at once: the builder refuses such a network already.
    assert trt.Builder(CollectingLogger()).create_network(prefer_aot | prefer_jit) is None
    # The tuple form asks for nothing: JIT.
    builder = trt.Builder(CollectingLogger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 8))
    assert type(network.add_plugin(trtp.op.kiln_aot.both(x)(None)).plugin).__name__ == "JitPlugin"


def test_a_plugin_with_both_builds_jit_or_aot_as_asked(rng):
    logger = CollectingLogger()
    jit_plan, _ = build_aot_plan(logger, lambda x: trtp.op.kiln_aot.both(x), aot=False)
    engine = trt.Runtime(logger).deserialize_cuda_engine(jit_plan)
    x = rng.standard_normal((5, 8)).astype(np.float32)
    np.testing.assert_array_equal(trt.run(engine, {"x": x})["y"], x + 1)
    ex.CALLS.clear()
    aot_plan, _ = build_aot_plan(logger, lambda x: trtp.op.kiln_aot.both(x),
                                 flags=1 << int(FLAGS.PREFER_AOT_PYTHON_PLUGINS))
    assert ex.CALLS == [("both", "aot_impl")]
    engine = trt.Runtime(logger).deserialize_cuda_engine(aot_plan)
    info = json.loads(engine.create_engine_inspector().get_layer_information(0, trt.LayerInformationFormat.JSON))
    assert info["AotKernel"]["KernelName"] == "add_one", info


def fields(**values):
    return trt.PluginFieldCollection([trt.PluginField(name, np.array([value], np.int32), trt.PluginFieldType.INT32)
                                      for name, value in values.items()])


def test_the_onnx_attribute_aot_chooses_through_the_creator():
    # The ONNX parser hands a node's attributes to the creator as fields: an int "aot" asks for STRICT_AOT/JIT.
    creator = trtp.QDP_CREATORS["kiln_aot::both"]
    assert type(creator.create_plugin("n", fields(aot=1), trt.TensorRTPhase.BUILD)).__name__ == "AotPlugin"
    assert type(creator.create_plugin("n", fields(aot=0), trt.TensorRTPhase.BUILD)).__name__ == "JitPlugin"
    assert type(creator.create_plugin("n", fields(), trt.TensorRTPhase.BUILD)).__name__ == "JitPlugin"
    # Loading a JIT plan always makes the JIT plugin.
    assert type(creator.create_plugin("n", fields(aot=1), trt.TensorRTPhase.RUNTIME)).__name__ == "JitPlugin"
    only_aot = trtp.QDP_CREATORS["kiln_aot::scale"]
    assert type(only_aot.create_plugin("n", fields(), trt.TensorRTPhase.BUILD)).__name__ == "AotPlugin"
    with pytest.raises(ValueError, match="has no @impl function"):
        only_aot.create_plugin("n", fields(aot=0), trt.TensorRTPhase.BUILD)


# ---- errors --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("result, message", [
    (lambda x: ("k", ex.PTX, trtp.KernelLaunchParams()), "aot_impl returned a tuple of 3 items"),
    (lambda x: None, "aot_impl returned a NoneType"),
    (lambda x: (7, ex.PTX, trtp.KernelLaunchParams(), trtp.SymIntExprs(0)), "int as the kernel name"),
    (lambda x: ("k", b"", trtp.KernelLaunchParams(), trtp.SymIntExprs(0)), "empty compiled kernel"),
    (lambda x: ("k", ex.PTX, (1, 1, 1), trtp.SymIntExprs(0)), "tuple as the launch parameters"),
    (lambda x: ("k", ex.PTX, trtp.KernelLaunchParams(), [1]), "list as the extra arguments"),
    (lambda x: ("k", ex.PTX, trtp.KernelLaunchParams(), trtp.SymIntExprs(2)), "left extra argument 0 unset"),
])
def test_a_malformed_aot_impl_result_fails_the_build_and_names_the_plugin(result, message):
    ex.Bad.result = result
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network, _, config = aot_network(builder, lambda x: trtp.op.kiln_aot.bad(x))
    assert builder.build_serialized_network(network, config) is None
    text = logger.error_text()
    assert "tensorrt.plugin 'kiln_aot::bad'" in text and message in text, text
    assert 'plugin "bad" version "1" namespace "kiln_aot"' in text, text


def test_an_exception_in_aot_impl_fails_the_build_and_names_the_plugin():
    def boom(x):
        raise KeyError("boom in aot_impl")

    ex.Bad.result = boom
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network, _, config = aot_network(builder, lambda x: trtp.op.kiln_aot.bad(x))
    assert builder.build_serialized_network(network, config) is None
    text = logger.error_text()
    assert "'kiln_aot::bad'" in text and "bad_aot() raised KeyError" in text, text


@pytest.mark.parametrize("result, message", [
    (lambda *args: ("k", b"ptx"), "expected (name, ptx, launch values, scalar arguments)"),
    (lambda *args: (b"k", b"ptx", [], []), "the name must be a str and the PTX bytes or a str"),
    (lambda *args: ("k", b"ptx", [None] * 6, []), "6 launch values, not 7"),
    (lambda *args: ("k", b"ptx", [1] * 7, []), "launch value 0 is a int, not an IDimensionExpr"),
])
def test_the_bindings_check_what_get_aot_kernel_returns(result, message):
    # get_aot_kernel is what AotPlugin gives kiln's C++ capability; a class of one's own may define it too.
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network, layer, config = aot_network(builder, lambda x: trtp.op.kiln_aot.scale(x))
    layer.plugin.get_aot_kernel = result  # the network's plugin: the builder works on clones of it
    assert builder.build_serialized_network(network, config) is None
    text = logger.error_text()
    assert 'plugin "scale" version "1" namespace "kiln_aot"' in text and message in text, text
    assert "getAotKernel() returned status -1" in text, text


def test_aot_impl_signatures_are_checked():
    @trtp.register("kiln_aot_sig::p")
    def p_desc(x: trtp.TensorDesc, k: int) -> trtp.TensorDesc:
        return x.like()

    with pytest.raises(ValueError, match="return annotation is required"):
        @trtp.aot_impl("kiln_aot_sig::p")
        def no_return(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int):
            pass
    with pytest.raises(ValueError, match="return annotation must be Tuple"):
        @trtp.aot_impl("kiln_aot_sig::p")
        def three(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
                  ) -> Tuple[str, bytes, trtp.KernelLaunchParams]:
            pass
    with pytest.raises(ValueError, match="then outputs and tactic"):
        @trtp.aot_impl("kiln_aot_sig::p")
        def no_tactic(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]
                      ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
            pass
    with pytest.raises(ValueError, match="not an attribute"):
        @trtp.aot_impl("kiln_aot_sig::p")
        def unknown(x: trtp.TensorDesc, j: int, outputs: Tuple[trtp.TensorDesc], tactic: int
                    ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
            pass
    with pytest.raises(ValueError, match="is not registered"):
        trtp.aot_impl("kiln_aot_sig::missing")(lambda x: x)

    @trtp.aot_impl("kiln_aot_sig::p")
    def good(x: trtp.TensorDesc, k: int, outputs: Tuple[trtp.TensorDesc], tactic: int
             ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymIntExprs]:
        pass

    assert trtp.QDP_REGISTRY["kiln_aot_sig::p"].aot_attrs == ["k"]
    with pytest.raises(ValueError, match="already defined"):
        trtp.aot_impl("kiln_aot_sig::p")(good)


def test_the_aot_types():
    launch = trtp.KernelLaunchParams(grid_x=4, block_x=trtp.ShapeExpr(32))
    assert isinstance(launch.grid_x, trtp.SymInt32) and isinstance(launch.shared_mem, trtp.SymInt32)
    with pytest.raises(AttributeError, match="no attribute 'grid_w'"):
        launch.grid_w = 1
    with pytest.raises(ValueError, match="SymInt16"):
        launch.block_y = trtp.SymInt16(2)
    scalars = trtp.SymIntExprs.from_tuple([1, trtp.ShapeExpr(3), trtp.SymInt32(5)])
    assert len(scalars) == 3 and all(isinstance(s, trtp.SymInt32) for s in scalars)
    with pytest.raises(ValueError, match="SymInt8 is not supported"):
        trtp.SymIntExprs.from_tuple([trtp.SymInt8(1)])
    with pytest.raises(IndexError):
        scalars[3] = 1
    with pytest.raises(ValueError, match="does not fit in int16"):
        trtp.SymInt16(1 << 15)
    with pytest.raises(ValueError, match="expected an int or a ShapeExpr"):
        trtp.SymInt32("7")
    assert len(trtp.SymExprs(2)) == 2 and issubclass(trtp.SymIntExprs, trtp.SymExprs)


# ---- on a GPU, with Triton and the kiln tool -----------------------------------------------------------------------


def _gpu_and_triton():
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
    except Exception:  # noqa: BLE001
        return False
    return bool(torch.cuda.is_available())


@pytest.mark.skipif(not _gpu_and_triton(), reason="needs a GPU, torch and Triton")
def test_a_triton_kernel_runs_from_the_plan_with_the_kiln_tool(tmp_path):
    import triton
    import triton.language as tl

    tool = os.environ.get("KILN_TOOL") or shutil.which("kiln")
    for entry in sys.path:  # the build tree: build/python is on the path, the tool is build/tools/kiln
        candidate = os.path.join(os.path.dirname(os.path.abspath(entry)), "tools", "kiln")
        if tool is None and entry and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            tool = candidate
    if tool is None:
        pytest.skip("the kiln command-line tool was not found (set KILN_TOOL, or build target kiln_tool)")

    @triton.jit
    def double_plus_column(x_ptr, n, cols, y_ptr, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(y_ptr + offsets, x * 2.0 + (offsets % cols).to(tl.float32), mask=mask)

    try:  # Triton 3.2 and later
        source = triton.compiler.ASTSource(fn=double_plus_column, signature={
            "x_ptr": "*fp32", "n": "i32", "cols": "i32", "y_ptr": "*fp32", "BLOCK": "constexpr"},
            constexprs={"BLOCK": 256})
    except TypeError:  # earlier: a string signature of the runtime arguments, constants by name
        source = triton.compiler.ASTSource(fn=double_plus_column, signature="*fp32,i32,i32,*fp32",
                                           constants={"BLOCK": 256})
    compiled = triton.compile(source)

    @trtp.register("kiln_aot_gpu::double")
    def double_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    @trtp.aot_impl("kiln_aot_gpu::double")
    def double_aot(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
                   ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
        n = x.shape_expr.numel()
        launch = trtp.KernelLaunchParams(grid_x=trtp.cdiv(n, 256), block_x=compiled.metadata.num_warps * 32,
                                         shared_mem=compiled.metadata.shared)
        return (compiled.metadata.name, compiled.asm["ptx"], launch,
                trtp.SymIntExprs.from_tuple([n, x.shape_expr[1]]))

    os.environ["KILN_BACKEND"] = "cuda"
    try:
        logger = CollectingLogger()
        plan, _ = build_aot_plan(logger, lambda x: trtp.op.kiln_aot_gpu.double(x))
    finally:
        os.environ["KILN_BACKEND"] = "host"
    plan_path = tmp_path / "double.plan"
    plan_path.write_bytes(bytes(plan))
    x = np.random.default_rng(3).standard_normal((9, 8)).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    out = tmp_path / "out.json"
    # The tool runs in a process without Python: the plan needs no creator.
    done = subprocess.run([tool, f"--loadEngine={plan_path}", "--shapes=x:9x8", f"--loadInputs=x:{tmp_path / 'x.bin'}",
                           f"--exportOutput={out}", "--iterations=1", "--duration=0", "--warmUp=0"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    exported = {entry["name"]: entry for entry in json.loads(out.read_text())}
    y = np.array(exported["y"]["values"], np.float32).reshape(x.shape)
    np.testing.assert_allclose(y, x * 2 + (np.arange(x.size) % 8).reshape(x.shape), rtol=1e-6)
