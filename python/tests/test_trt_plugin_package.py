# SPDX-License-Identifier: Apache-2.0
"""TensorRT's own tensorrt.plugin package on kiln's Quick bindings: skipped unless KILN_TRT_PLUGIN_PACKAGE names the
package's directory (``tensorrt/plugin`` extracted from a TensorRT wheel; it is not part of kiln). The check runs in a
process of its own (trt_plugin_package_check.py), where that package is loaded as ``tensorrt.plugin`` over kiln's
``tensorrt`` compatibility package: a JIT plugin (register, autotune with two tactics, impl) is built in FP32 and
FP16, serialized, loaded through its IPluginCreatorV3Quick and run: on the host backend checked against numpy, on the
CUDA backend (KILN_BACKEND=cuda, torch needed) with torch on the device; an AOT plugin (aot_impl) is built into a plan
that keeps its kernel, which the CUDA backend launches."""

import os
import subprocess
import sys

import pytest

PACKAGE = os.environ.get("KILN_TRT_PLUGIN_PACKAGE")
CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trt_plugin_package_check.py")


@pytest.mark.skipif(not PACKAGE, reason="KILN_TRT_PLUGIN_PACKAGE does not name TensorRT's tensorrt/plugin directory")
def test_tensorrt_s_own_plugin_package_builds_loads_and_runs():
    env = dict(os.environ)
    env.setdefault("KILN_BACKEND", "host")
    done = subprocess.run([sys.executable, CHECK, PACKAGE], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    expected = ["ok registered IPluginCreatorV3Quick", "ok JIT build and serialize float32",
                "ok JIT deserialize through the Quick creator float16", "ok AOT build and serialize",
                "ok AOT plan keeps the kernel"]
    if env["KILN_BACKEND"] == "host":
        expected += ["ok JIT run on the host backend (impl through the package's enqueue) float32",
                     "ok JIT run on the host backend (impl through the package's enqueue) float16"]
    else:  # the CUDA backend: torch runs impl, the engine launches the AOT kernel
        expected += ["ok JIT run on the GPU (impl with torch) float32", "ok JIT run on the GPU (impl with torch) float16",
                     "ok AOT kernel run on the GPU"]
    for line in expected:
        assert line in lines, done.stdout + done.stderr
