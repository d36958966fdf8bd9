# SPDX-License-Identifier: Apache-2.0
"""kiln shares its process with other extensions that carry their own protobuf and ONNX (ONNX Runtime, the onnx
wheel, torch), as in Polygraphy's `run --trt --onnxrt`. kiln/__init__.py loads the module with RTLD_GLOBAL, so what
the module links joins the process's global scope; the ONNX parser's libonnx and protobuf must not: there they took
the place of the onnx wheel's own copies (its calls went to Debian's libprotobuf and crashed, issue 18). Each test
runs in a fresh interpreter, as the order of imports is what matters."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# kiln's part of each script: import the package, then parse and build a model with the ONNX parser.
KILN_FIRST = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import onnx_bytes
    import kiln

    logger = kiln.Logger(kiln.Logger.ERROR)
    builder = kiln.Builder(logger)
    network = builder.create_network(0)
    parser = kiln.OnnxParser(network, logger)
    assert parser.parse(onnx_bytes.relu()), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("X", (1, 4), (2, 4), (4, 4))
    config.add_optimization_profile(profile)
    assert builder.build_serialized_network(network, config) is not None
""")

# The symbols kiln's parser imports from libonnx and from protobuf (nm -D --undefined-only on libnvonnxparser.so).
ONNX_SYMBOL = "_ZN4onnx16OpSchemaRegistry3mapB5cxx11Ev"  # onnx::OpSchemaRegistry::map()
PROTOBUF_SYMBOL = "_ZN6google8protobuf11MessageLite20ParseFromCodedStreamEPNS0_2io16CodedInputStreamE"

SCOPE_PROBE = textwrap.dedent("""
    import ctypes
    import json
    import os

    def found(handle, name):
        try:
            getattr(handle, name)
            return True
        except AttributeError:
            return False

    mapped = sorted({line.split()[-1] for line in open("/proc/self/maps") if ".so" in line.rsplit("/", 1)[-1]})
    parser_path = next(p for p in mapped if "onnxparser" in os.path.basename(p))
    own = ctypes.CDLL(parser_path, mode=os.RTLD_NOLOAD)  # the parser and what it links
    everyone = ctypes.CDLL(None)  # the global scope: the program and what was opened with RTLD_GLOBAL
    symbols = {"onnx": sys.argv[2], "protobuf": sys.argv[3], "parser": "createNvOnnxParser_INTERNAL",
               "nvinfer": "getPluginRegistry"}
    print(json.dumps({
        "libraries": [os.path.basename(p) for p in mapped],
        "own": {key: found(own, name) for key, name in symbols.items()},
        "global": {key: found(everyone, name) for key, name in symbols.items()},
    }))
""")


def run_script(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, HERE, *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, KILN_BACKEND="host"))


def describe(done: subprocess.CompletedProcess) -> str:
    return f"exit status {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-4000:]}"


def test_the_parser_and_its_onnx_and_protobuf_stay_out_of_the_global_scope():
    done = run_script(KILN_FIRST + SCOPE_PROBE, ONNX_SYMBOL, PROTOBUF_SYMBOL)
    assert done.returncode == 0, describe(done)
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    # libnvinfer stays global, as in a C++ application: plugin libraries and cuDNN's engines resolve against it.
    assert probe["global"]["nvinfer"], probe
    assert probe["own"]["parser"], probe
    assert not probe["global"]["parser"], probe
    # Where the parser links libonnx and protobuf as shared libraries (Debian's), their symbols serve the parser alone.
    for library in ("onnx", "protobuf"):
        if any(name.startswith(f"lib{library}") for name in probe["libraries"]):
            assert probe["own"][library], probe  # the probe looks for a symbol that is there
            assert not probe["global"][library], (library, probe)


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
def test_onnx_runtime_refuses_an_unknown_op_with_an_exception_after_kiln_parsed():
    # Polygraphy's `run model.onnx --trt --onnxrt` on a model with a plugin node: kiln's runner first, then ONNX
    # Runtime's session, which must raise for the node it does not know (on the H200 the process aborted instead).
    script = KILN_FIRST + textwrap.dedent("""
        import onnxruntime
        try:
            onnxruntime.InferenceSession(onnx_bytes.custom_op(), providers=["CPUExecutionProvider"])
        except Exception as error:
            print("raised:", type(error).__name__, error)
        else:
            print("no error")
    """)
    done = run_script(script)
    assert done.returncode == 0, describe(done)
    assert "raised:" in done.stdout and "NoSuchOp" in done.stdout, describe(done)


@pytest.mark.skipif(importlib.util.find_spec("onnx") is None, reason="the onnx package is not installed")
def test_the_onnx_package_works_after_kiln_parsed():
    # The onnx wheel exports its protobuf and ONNX symbols: with the parser's copies global, its checker, shape
    # inference and schema look-up called Debian's libprotobuf and crashed (SIGSEGV in Message::GetTypeName).
    script = KILN_FIRST + textwrap.dedent("""
        import onnx
        import onnx.shape_inference
        model = onnx.load_from_string(onnx_bytes.custom_op())
        onnx.checker.check_model(model)
        inferred = onnx.shape_inference.infer_shapes(onnx.load_from_string(onnx_bytes.relu()))
        print("schema:", onnx.defs.get_schema("Relu").name, "outputs:", len(inferred.graph.output))
    """)
    done = run_script(script)
    assert done.returncode == 0, describe(done)
    assert "schema: Relu outputs: 1" in done.stdout, describe(done)
