#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One build-test-benchmark cycle on a machine with an NVIDIA GPU (the H100 of docs/performance.md): builds kiln with
# its tests, examples and benchmark, runs the GPU tests (ctest label gpu), the examples (on the GPU: the builder picks
# the cuda backend where one is usable), then bench/run.sh, and with MODEL_BENCH=1 bench/models/run.sh (real models
# against PyTorch; off by default: with its exports and torch.compile it wants minutes of its own). Logs go to LOGS
# ($OUT when set, else build-gpu/logs):
#
#   build.log  gpu.log  examples.log  bench/ (bench/run.sh's results: report.md, latest.jsonl, kiln_bench.log, ...)
#   models/ (bench/models/run.sh's results: report.md, models.jsonl, kiln_model_bench.log, ...; MODEL_BENCH=1)
#
#     bash scripts/gpu_cycle.sh
#     SKIP_BENCH=1 bash scripts/gpu_cycle.sh      # tests only
#     ITERATIONS=50 WARMUP=10 bash scripts/gpu_cycle.sh
#     MODEL_BENCH=1 MODEL_BUDGET_S=300 bash scripts/gpu_cycle.sh   # also the real models, in at most 300 s
#
# The exit status is 1 when a stage failed (later stages still run), 0 when every stage passed.
set -uo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build-gpu}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
jobs=$(nproc)
status=0

echo "== build ($build)"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON -DKILN_BUILD_EXAMPLES=ON \
    -DKILN_BUILD_BENCH=ON && cmake --build "$build" -j "$jobs"; } >"$logs/build.log" 2>&1; then
    tail -40 "$logs/build.log"
    exit 1
fi

echo "== ctest -L gpu"
ctest --test-dir "$build" -L gpu -j 8 --timeout 300 --output-on-failure >"$logs/gpu.log" 2>&1 || status=1
tail -5 "$logs/gpu.log"

echo "== ctest -L example (on the GPU)"
env -u KILN_BACKEND ctest --test-dir "$build" -L example -j 4 --timeout 300 --output-on-failure \
    >"$logs/examples.log" 2>&1 || status=1
tail -3 "$logs/examples.log"

if [[ ${SKIP_BENCH:-0} != 1 ]]; then
    echo "== bench/run.sh"
    mkdir -p "$logs/bench"
    OUT="$logs/bench" BUILD_DIR="$build" SKIP_BUILD=1 ITERATIONS="${ITERATIONS:-50}" WARMUP="${WARMUP:-10}" \
        bash bench/run.sh >"$logs/bench/run.log" 2>&1 || status=1
    cat "$logs/bench/report.md" 2>/dev/null || tail -20 "$logs/bench/run.log"
fi

if [[ ${MODEL_BENCH:-0} == 1 ]]; then
    echo "== bench/models/run.sh"
    mkdir -p "$logs/models"
    OUT="$logs/models" BUILD_DIR="$build" SKIP_BUILD=1 TIME_BUDGET_S="${MODEL_BUDGET_S:-300}" \
        ITERATIONS="${ITERATIONS:-50}" WARMUP="${WARMUP:-10}" bash bench/models/run.sh >"$logs/models/run.log" 2>&1 ||
        status=1
    cat "$logs/models/report.md" 2>/dev/null || tail -20 "$logs/models/run.log"
fi
exit "$status"
