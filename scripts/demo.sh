#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's main job, as far as it exists today: build kiln and run every example of the seed texts (scripts/examples.sh).
# Each example builds an engine through the TensorRT API, writes its plan, loads the plan in a fresh runtime, runs it
# on the host backend and checks the output, printing what it checked. (Building an engine from a bundled ONNX model
# with a custom plugin takes this over once the ONNX parser lands; the command-line tool later.)
set -euo pipefail
exec bash "$(dirname "$0")/examples.sh" "$@"
