#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's main job, as far as it exists today: build kiln, load a plugin library built against kiln's
# TensorRT-compatible headers, create its plugin from fields, serialize and restore it, run both, check them.
# (Building and running an engine from a bundled ONNX model replaces this once the engine issues land.)
set -euo pipefail
cd "$(dirname "$0")/.."
missing() {
    for tool in g++ cmake ninja; do command -v "$tool" >/dev/null 2>&1 || return 0; done
    return 1
}
if missing && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends g++ cmake ninja-build ccache >/dev/null
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_EXAMPLES=ON
cmake --build build -j "$(nproc)" --target plugin_library_tour kiln_example_plugins
./build/examples/plugin_library/plugin_library_tour ./build/examples/plugin_library/libkiln_example_plugins.so
