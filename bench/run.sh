#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds kiln with its benchmark, runs kiln_bench and torch_blocks.py on this machine's GPU, and writes to RESULTS
# ($OUT when set, else bench/results):
#
#   latest.jsonl        every JSON line: kiln_bench's, then torch_blocks.py's (timings, then kiln-vs-torch checks)
#   report.md           the markdown tables of bench/report.py (also printed)
#   kiln_bench.log      kiln_bench's stderr (kiln's warnings and errors)
#   torch_blocks.log    torch_blocks.py's stderr
#   dump/               kiln's outputs (<block>.<precision>.bin), which torch_blocks.py compares with its own
#
#     bash bench/run.sh
#     ITERATIONS=200 KILN_BENCH_ARGS="--block transformer_block" TORCH_BLOCKS_ARGS="--block transformer_block" \
#         bash bench/run.sh
#
# Environment: BUILD_DIR (build-bench), ITERATIONS (100), WARMUP (20), PYTHON (python3), KILN_BENCH_ARGS and
# TORCH_BLOCKS_ARGS (extra arguments, split on spaces), SKIP_BUILD=1 (use the kiln_bench already in BUILD_DIR),
# SKIP_TORCH=1 (kiln only). The exit status is 0 when every line came without an error, else 1.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build-bench}
results=${OUT:-$root/bench/results}
iterations=${ITERATIONS:-100}
warmup=${WARMUP:-20}
python=${PYTHON:-python3}
read -r -a kiln_args <<<"${KILN_BENCH_ARGS:-}"
read -r -a torch_args <<<"${TORCH_BLOCKS_ARGS:-}"

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF \
        -DKILN_BUILD_BENCH=ON
    cmake --build "$build" --target kiln_bench
fi
bench="$build/bench/kiln_bench"
if [[ ! -x $bench ]]; then
    echo "run.sh: $bench was not built: kiln_bench needs the CUDA backend (the CUDA toolkit, cuDNN and cuBLASLt);" \
        "check the 'kiln: CUDA backend' line of the cmake output" >&2
    exit 1
fi

mkdir -p "$results"
rm -rf "$results/dump"
mkdir -p "$results/dump"
status=0

echo "run.sh: kiln_bench (stderr in $results/kiln_bench.log)" >&2
"$bench" --iterations "$iterations" --warmup "$warmup" --dump "$results/dump" "${kiln_args[@]}" \
    >"$results/kiln.jsonl" 2>"$results/kiln_bench.log" || status=1

if [[ ${SKIP_TORCH:-0} != 1 ]]; then
    echo "run.sh: torch_blocks.py (stderr in $results/torch_blocks.log)" >&2
    "$python" bench/torch_blocks.py --iterations "$iterations" --warmup "$warmup" --compare-dir "$results/dump" \
        "${torch_args[@]}" >"$results/torch.jsonl" 2>"$results/torch_blocks.log" || status=1
else
    : >"$results/torch.jsonl"
fi

cat "$results/kiln.jsonl" "$results/torch.jsonl" >"$results/latest.jsonl"
rm -f "$results/kiln.jsonl" "$results/torch.jsonl"
"$python" bench/report.py "$results/latest.jsonl" | tee "$results/report.md"
echo "run.sh: $(wc -l <"$results/latest.jsonl") JSON lines in $results/latest.jsonl" >&2
exit "$status"
