#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's main job: build kiln and run every example of the seed texts (scripts/examples.sh). The first builds an
# engine from the bundled ONNX model examples/onnx_identity_conv/identity_conv.onnx, whose custom IdentityConv node
# the parser imports as a plugin; it saves the plan, loads it in a fresh runtime, runs it and checks that the output
# equals the input. The others build their engines through the TensorRT API the same way. Each prints what it checked;
# engines run on the GPU where one is usable, on the host backend otherwise.
set -euo pipefail
exec bash "$(dirname "$0")/examples.sh" "$@"
