#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's real-model benchmark on this machine's GPU: builds kiln_model_bench, then per model exports it to ONNX
# (torch_models.py export), runs it on kiln in each precision and batch (kiln_model_bench), and times it in PyTorch
# eager and torch.compile, comparing kiln's outputs (torch_models.py torch). Writes to RESULTS ($OUT when set, else
# bench/results/models):
#
#   models.jsonl           every JSON line (bench/README.md, "Real models")
#   report.md              bench/report.py's tables (also printed), then kiln's layer profile grouped by repeated
#                          layer (layer_summary.py)
#   kiln_model_bench.log   kiln_model_bench's stderr;  kiln_layers.log  kiln's time per layer (IProfiler)
#   torch_models.log       torch_models.py's stderr (export and torch steps);  tiny.log  the tiny model's check
#
#     bash bench/models/run.sh
#     MODELS="resnet50 bert gpt2" BATCHES="1 8 large" TIME_BUDGET_S=1200 bash bench/models/run.sh
#     SKIP_TORCH=1 KILN_MODEL_BACKEND=host MODELS= SKIP_BUILD=1 bash bench/models/run.sh    # the tiny check, no GPU
#
# Environment: MODELS ("resnet50 bert"; "all"; names in zoo.py), BATCHES ("1 large"; "large" is 256 for CNNs and 32
# for the others), PRECISIONS ("fp32 fp16"), SYSTEMS ("torch_eager torch_compile"), ITERATIONS (50), WARMUP (10),
# COMPILE_MODE (default), NO_GRAPH=1 (no CUDA-graph lines), WORK_DIR (/tmp/kiln-models: ONNX files, inputs and dumps,
# hundreds of MB, kept out of RESULTS), BUILD_DIR (build-bench), PYTHON (python3), SKIP_BUILD=1, SKIP_TORCH=1 (kiln
# only: no export, so only models already exported in WORK_DIR), SKIP_TINY=1, KILN_MODEL_BACKEND (cuda; host for the
# tiny model without a GPU), SIZE_SWEEP=1 (also bench/onnx/size_sweep.py, SIZE_BLOCKS "1,2,4,8,12,25,50,100,200,400",
# SIZE_LIMIT_S 30).
#
# Deadlines: the whole run keeps to TIME_BUDGET_S (480) from its start, build included, plus up to 60 s of grace for a
# PyTorch timing in progress. Each model gets an equal share of what is left when it starts; its export and kiln runs
# are killed past it (a kiln run also past KILN_STEP_TIMEOUT_S, 180), and its PyTorch timings that would start past it
# are skipped; every such step leaves an "error" line, and the next model still runs. Batches run largest first. The
# exit status is 1 when any line carries an error (or the build failed), else 0.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
start=$(date +%s)
deadline=$((start + ${TIME_BUDGET_S:-480}))
build=${BUILD_DIR:-build-bench}
results=${OUT:-$root/bench/results/models}
work=${WORK_DIR:-/tmp/kiln-models}
python=${PYTHON:-python3}
backend=${KILN_MODEL_BACKEND:-cuda}
step_limit=${KILN_STEP_TIMEOUT_S:-180}
read -r -a models <<<"${MODELS-resnet50 bert}"
read -r -a batches <<<"${BATCHES:-1 large}"
read -r -a precisions <<<"${PRECISIONS:-fp32 fp16}"
read -r -a systems <<<"${SYSTEMS:-torch_eager torch_compile}"
iterations=${ITERATIONS:-50}
warmup=${WARMUP:-10}
graph_flag=()
[[ ${NO_GRAPH:-0} == 1 ]] && graph_flag=(--no-graph)

mkdir -p "$results" "$work"
lines="$results/models.jsonl"
: >"$lines"
status=0

# An "error" line for a step that printed none of its own (killed or skipped). Arguments: model precision batch
# system message (no quotes or backslashes in any).
error_line() {
    printf '{"bench":"model","model":"%s","precision":"%s","batch":%s,"system":"%s","error":"%s"}\n' \
        "$1" "$2" "${3:-null}" "$4" "$5" >>"$lines"
}
left() { echo $((${1:-$deadline} - $(date +%s))); }
# Runs a step under timeout; one killed there leaves an error line. Arguments: limit model precision batch system,
# then the command.
step() {
    local limit=$1 model=$2 precision=$3 batch=$4 system=$5
    shift 5
    timeout "$limit" "$@"
    local code=$?
    ((code == 124)) && error_line "$model" "$precision" "$batch" "$system" "timeout: killed after $limit s"
    return "$code"
}

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
    targets=(kiln_model_bench)
    [[ ${SIZE_SWEEP:-0} == 1 ]] && targets+=(kiln_onnx_parse_bench)
    echo "run.sh: building ${targets[*]} in $build" >&2
    if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=OFF \
        -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_BENCH=ON && cmake --build "$build" --target "${targets[@]}"; } \
        >"$results/build.log" 2>&1; then
        tail -30 "$results/build.log" >&2
        echo "run.sh: the build failed (kiln_model_bench needs the CUDA backend and the ONNX parser)" >&2
        exit 1
    fi
fi
bench="$build/bench/models/kiln_model_bench"
kiln_common=(--iterations "$iterations" --warmup "$warmup" --backend "$backend" --profile-log "$results/kiln_layers.log"
    "${graph_flag[@]}")
: >"$results/kiln_layers.log"

# The tiny model: kiln_model_bench against numpy, without PyTorch.
if [[ ${SKIP_TINY:-0} != 1 ]]; then
    echo "run.sh: tiny model (kiln_model_bench against numpy)" >&2
    rm -rf "$work/tiny"
    {
        "$python" bench/models/tiny_model.py make "$work/tiny" &&
            timeout 120 "$bench" "$work/tiny/model.onnx" --inputs "$work/tiny/inputs" --name tiny \
                --shapes "$(cat "$work/tiny/shapes.txt")" --dump "$work/tiny/kiln_fp32" "${kiln_common[@]}" \
                >>"$lines" 2>>"$results/kiln_model_bench.log"
        "$python" bench/models/tiny_model.py check "$work/tiny" >>"$lines"
    } 2>"$results/tiny.log" ||
        error_line tiny fp32 4 kiln "the tiny model failed: see tiny.log and kiln_model_bench.log"
fi

if [[ ${#models[@]} -gt 0 && ${models[0]} == all ]]; then
    read -r -a models <<<"$(cd bench/models && "$python" -c 'import zoo; print(*zoo.MODELS)')"
fi
batch_args=()
for batch in "${batches[@]}"; do batch_args+=(--batch "$batch"); done

for index in "${!models[@]}"; do
    model=${models[$index]}
    remaining_models=$((${#models[@]} - index))
    model_deadline=$(($(date +%s) + $(left) / remaining_models))
    echo "run.sh: $model ($(left "$model_deadline") s)" >&2

    if [[ ${SKIP_TORCH:-0} != 1 ]]; then
        rm -rf "${work:?}/$model"
        if (($(left "$model_deadline") <= 0)); then
            error_line "$model" "" null export "skipped: the time budget ran out (TIME_BUDGET_S)"
            continue
        fi
        step "$(left "$model_deadline")" "$model" "" null export "$python" bench/models/torch_models.py export \
            --work "$work" --model "$model" "${batch_args[@]}" >>"$lines" 2>>"$results/torch_models.log"
    fi

    # The largest batch first: when the budget runs short, the throughput figures are the ones kept.
    for batch in $(find "$work/$model" -maxdepth 1 -name 'b[0-9]*' -printf '%f\n' 2>/dev/null | cut -c2- |
        sort -rn); do
        folder="$work/$model/b$batch"
        [[ -f $folder/inputs/manifest.txt ]] || continue
        for precision in "${precisions[@]}"; do
            limit=$(left "$model_deadline")
            ((limit > step_limit)) && limit=$step_limit
            if ((limit <= 0)); then
                error_line "$model" "$precision" "$batch" kiln "skipped: the time budget ran out (TIME_BUDGET_S)"
                continue
            fi
            fp16=()
            [[ $precision == fp16 ]] && fp16=(--fp16)
            rm -rf "$folder/kiln_$precision"
            mkdir -p "$folder/kiln_$precision"
            step "$limit" "$model" "$precision" "$batch" kiln "$bench" "$work/$model/model.onnx" \
                --inputs "$folder/inputs" --name "$model" --batch "$batch" --shapes "$(cat "$folder/shapes.txt")" \
                "${fp16[@]}" --dump "$folder/kiln_$precision" "${kiln_common[@]}" \
                >>"$lines" 2>>"$results/kiln_model_bench.log"
        done
    done

    if [[ ${SKIP_TORCH:-0} != 1 ]] && [[ -d $work/$model ]]; then
        precision_args=() system_args=()
        for precision in "${precisions[@]}"; do precision_args+=(--precision "$precision"); done
        for system in "${systems[@]}"; do system_args+=(--system "$system"); done
        # Timings that would start past model_deadline are skipped; one in progress gets 60 s of grace.
        limit=$(($(left "$model_deadline") + 60))
        ((limit < 30)) && limit=30 # the comparisons still run; "timeout 0" would mean no limit at all
        step "$limit" "$model" "" null torch "$python" bench/models/torch_models.py torch --work "$work" \
            --model "$model" "${batch_args[@]}" "${precision_args[@]}" "${system_args[@]}" \
            --iterations "$iterations" --warmup "$warmup" --compile-mode "${COMPILE_MODE:-default}" \
            --deadline "$model_deadline" "${graph_flag[@]}" >>"$lines" 2>>"$results/torch_models.log"
    fi
done

if [[ ${SIZE_SWEEP:-0} == 1 ]]; then
    limit=$(left)
    ((limit > ${SIZE_LIMIT_S:-30})) && limit=${SIZE_LIMIT_S:-30}
    echo "run.sh: parse and build time against model size" >&2
    "$python" bench/onnx/size_sweep.py --bench "$build/bench/onnx/kiln_onnx_parse_bench" \
        --blocks "${SIZE_BLOCKS:-1,2,4,8,12,25,50,100,200,400}" --limit-s "$((limit > 5 ? limit : 5))" \
        >>"$lines" 2>>"$results/size_sweep.log" || status=1
fi

"$python" bench/report.py "$lines" | tee "$results/report.md"
# Where the time goes: kiln's layer profile grouped by repeated layer (layer_summary.py), below the tables.
if grep -q "^kiln_model_bench: layers of" "$results/kiln_layers.log" 2>/dev/null; then
    { echo; echo "## kiln's layer profile, grouped (kiln_layers.log)"; echo
      "$python" bench/models/layer_summary.py "$results/kiln_layers.log"; } >>"$results/report.md"
fi
grep -Eq '"error": ?"' "$lines" && status=1
echo "run.sh: $(wc -l <"$lines") JSON lines in $lines, $(($(date +%s) - start)) s" >&2
exit "$status"
