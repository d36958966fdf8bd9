#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds kiln with its examples (into build/, or $KILN_BUILD_DIR) and runs every example in turn. Each example builds
# an engine through the TensorRT API, saves its plan, loads it in a fresh runtime, runs it and prints one line per
# check; this script fails when any example fails (after running them all). The engines run on the GPU where one is
# usable (and kiln was built with its CUDA backend), on kiln's host backend otherwise; KILN_BACKEND=host or cuda, when
# set, chooses.
#
#     bash scripts/examples.sh
#     KILN_BACKEND=host bash scripts/examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build="${KILN_BUILD_DIR:-build}"

missing() {
    for tool in g++ cmake ninja flatc; do command -v "$tool" >/dev/null 2>&1 || return 0; done
    [ -f "${CMAKE_INCLUDE_PATH:-/usr/include}/flatbuffers/flatbuffers.h" ] || return 0
    [ -f /usr/include/onnx/onnx_pb.h ] || return 0
    [ -f /usr/include/CLI/CLI.hpp ] || return 0
    [ -f /usr/include/nlohmann/json.hpp ] || return 0
    return 1
}
if missing && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends g++ cmake ninja-build ccache libflatbuffers-dev \
        flatbuffers-compiler libonnx-dev libprotobuf-dev libcli11-dev nlohmann-json3-dev >/dev/null
fi

# Each entry: the example's directory under examples/, its executable, and its arguments (plans go to the build tree).
examples=(
    "conv_network conv_network $build/examples/conv_network/conv_network.plan"
    "plugin_library plugin_library_tour $build/examples/plugin_library/libkiln_example_plugins.so $build/examples/plugin_library/plugin_library.plan"
    "pad_plugin pad_plugin $build/examples/pad_plugin/pad_plugin.plan"
    "bar_plugin bar_plugin $build/examples/bar_plugin/bar_plugin.plan"
    "pool_plugin pool_plugin $build/examples/pool_plugin/pool_plugin.plan"
    "foo_plugin foo_plugin $build/examples/foo_plugin/foo_plugin.plan"
    "dummy_plugin dummy_plugin $build/examples/dummy_plugin/dummy_plugin.plan"
    "identity_conv identity_conv $build/examples/identity_conv/identity_conv.plan"
    "bar_plugin_v2 bar_plugin_v2 $build/examples/bar_plugin_v2/bar_plugin_v2.plan"
    "identity_conv_v2 identity_conv_v2 $build/examples/identity_conv_v2/identity_conv_v2.plan"
)
# First, where kiln has its ONNX parser (libonnx-dev): the IdentityConv walk-through's ONNX model, its custom node
# imported as a plugin.
if [ -f "${CMAKE_INCLUDE_PATH:-/usr/include}/onnx/onnx_pb.h" ] || [ -f /usr/include/onnx/onnx_pb.h ]; then
    examples=("onnx_identity_conv onnx_identity_conv $build/examples/onnx_identity_conv/onnx_identity_conv.plan"
        "${examples[@]}")
fi
targets=(kiln_example_plugins)
for entry in "${examples[@]}"; do
    read -r _ target _ <<<"$entry"
    targets+=("$target")
done

echo "examples.sh: KILN_BACKEND=${KILN_BACKEND:-(unset: the GPU where one is usable, else the host)}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_EXAMPLES=ON
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

failed=()
for entry in "${examples[@]}"; do
    read -r directory target arguments <<<"$entry"
    echo "== examples/$directory"
    # shellcheck disable=SC2086 # the arguments are split on purpose
    if ! "$build/examples/$directory/$target" $arguments; then
        failed+=("$target")
    fi
done
if [ "${#failed[@]}" -ne 0 ]; then
    echo "examples.sh: FAILED: ${failed[*]}"
    exit 1
fi
echo "examples.sh: all ${#examples[@]} examples passed"
