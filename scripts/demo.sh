#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's main job: build kiln and run every example in examples/ (scripts/examples.sh), then the first one's model
# through the kiln command-line tool as a TensorRT user runs trtexec. The first example builds an engine from the
# bundled ONNX model examples/onnx_identity_conv/identity_conv.onnx, whose custom IdentityConv node the parser imports
# as a plugin; it saves the plan, loads it in a fresh runtime, runs it and checks that the output equals the input.
# The others build their engines through the TensorRT API the same way. Each prints what it checked. Last, `kiln`
# builds that model with the plugin's library (--staticPlugins), saves the engine, runs it on a stored input and
# writes the output (--exportOutput), which must equal the stored reference byte for byte (the model is an identity).
# Engines run on the GPU where one is usable, on the host backend otherwise (KILN_BACKEND=host or cuda chooses).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${KILN_BUILD_DIR:-build}"
bash scripts/examples.sh "$@"

example=examples/onnx_identity_conv
if [ ! -f /usr/include/onnx/onnx_pb.h ] && [ ! -f "${CMAKE_INCLUDE_PATH:-/usr/include}/onnx/onnx_pb.h" ]; then
    echo "demo.sh: no ONNX parser (libonnx-dev) here: the kiln tool's run is skipped"
    exit 0
fi
cmake --build "$build" -j "$(nproc)" --target kiln_tool kiln_identity_conv_plugin
echo "== the kiln tool (trtexec's flags) on $example/identity_conv.onnx"
output="$build/demo_identity_conv_output.json"
rm -f "$output"
"$build/tools/kiln" --onnx="$example/identity_conv.onnx" \
    --staticPlugins="$build/$example/libkiln_identity_conv_plugin.so" --shapes=X:2x3x8x8 \
    --saveEngine="$build/demo_identity_conv.plan" --loadInputs="X:$example/input_X_2x3x8x8.bin" \
    --exportOutput="$output" --iterations=100 --duration=1
if cmp -s "$output" "$example/expected_Y_2x3x8x8.json"; then
    echo "demo.sh: the tool's output equals the stored reference ($example/expected_Y_2x3x8x8.json)"
else
    echo "demo.sh: FAILED: $output differs from $example/expected_Y_2x3x8x8.json"
    exit 1
fi
