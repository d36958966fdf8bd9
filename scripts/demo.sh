#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's main job, as far as it exists today:
# 1. build a small convolutional network through the TensorRT API, write its plan, load the plan in a fresh runtime,
#    run it on the host backend at three batch sizes and check the result against plain loops;
# 2. load a plugin library built against kiln's TensorRT-compatible headers, create its plugin from fields, serialize
#    and restore it, run both, check them.
# (Building an engine from a bundled ONNX model with a custom plugin replaces this once the plugin and ONNX issues
# land.)
set -euo pipefail
cd "$(dirname "$0")/.."
missing() {
    for tool in g++ cmake ninja flatc; do command -v "$tool" >/dev/null 2>&1 || return 0; done
    [ -f "${CMAKE_INCLUDE_PATH:-/usr/include}/flatbuffers/flatbuffers.h" ] || return 0
    return 1
}
if missing && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends g++ cmake ninja-build ccache libflatbuffers-dev \
        flatbuffers-compiler >/dev/null
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_EXAMPLES=ON
cmake --build build -j "$(nproc)" --target conv_network plugin_library_tour kiln_example_plugins
./build/examples/conv_network/conv_network build/conv_network.plan
./build/examples/plugin_library/plugin_library_tour ./build/examples/plugin_library/libkiln_example_plugins.so
