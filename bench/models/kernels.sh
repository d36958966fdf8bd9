#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Per-kernel GPU time of one inference of a model exported by run.sh, in kiln and in torch.compile, under Nsight
# Compute (ncu --clock-control none --metrics gpu__time_duration.sum), summed per kernel name: where the two
# systems' time goes, kernel by kernel (docs/performance.md, "sixth session"). ncu keeps the caches as the kernel
# before left them (CACHE_CONTROL=none, the default here), as in a real run where a layer reads from L2 what the layer
# before wrote; CACHE_CONTROL=all flushes them before each kernel (ncu's own default), which charges every such read to
# memory: ResNet-50 fp16 at batch 1 summed 576 us so against 539 us with the caches kept
# (docs/bench/2026-11-30-h200-resnet50-b1-kernels-{cold,warm}.txt). Needs ncu, a GPU, kiln_model_bench
# built (BUILD_DIR) and the model exported (WORK_DIR/MODEL/bBATCH, as run.sh leaves it).
#
#     MODEL=bert BATCH=32 PRECISION=fp16 BUILD_DIR=build-gpu bash bench/models/kernels.sh
#
# Writes kiln.csv, torch.csv and kernels.txt (the two summaries) to RESULTS ($OUT when set, else bench/results/kernels).
set -uo pipefail
cd "$(dirname "$0")/../.."
model=${MODEL:-bert}
batch=${BATCH:-32}
precision=${PRECISION:-fp16}
build=${BUILD_DIR:-build-bench}
work=${WORK_DIR:-/tmp/kiln-models}
python=${PYTHON:-python3}
results=${OUT:-bench/results/kernels}
cache=${CACHE_CONTROL:-none}
mkdir -p "$results"
folder="$work/$model/b$batch"
[ -d "$folder" ] || { echo "kernels.sh: $folder is missing: export the model with bench/models/run.sh first"; exit 1; }
flags=()
[ "$precision" = fp16 ] && flags+=(--fp16)

summarize() {
    "$python" - "$1" <<'PY'
import collections, csv, sys
lines = [line for line in open(sys.argv[1]) if line.startswith('"')]
times = collections.defaultdict(list)
for row in csv.DictReader(lines):
    times[row["Kernel Name"][:100]].append(float(row["Metric Value"].replace(",", "")) / 1000)
total = sum(sum(v) for v in times.values())
print(f"  total {total:.1f} us in {sum(len(v) for v in times.values())} kernels")
for name, values in sorted(times.items(), key=lambda kv: -sum(kv[1])):
    print(f"  {sum(values):8.1f} us  n={len(values):3d}  mean={sum(values) / len(values):6.2f}  {name}")
PY
}

KILN_BENCH_PROFILER_RANGE=1 ncu --clock-control none --cache-control "$cache" --profile-from-start off --metrics gpu__time_duration.sum --csv \
    "$build/bench/models/kiln_model_bench" "$work/$model/model.onnx" --inputs "$folder/inputs" --name "$model" \
    --batch "$batch" --shapes "$(cat "$folder/shapes.txt")" "${flags[@]}" --iterations 2 --warmup 1 --no-graph \
    >"$results/kiln.csv" 2>"$results/kiln.err" || { echo "kernels.sh: ncu on kiln failed: $results/kiln.err"; exit 1; }
ncu --clock-control none --cache-control "$cache" --profile-from-start off --metrics gpu__time_duration.sum --csv \
    "$python" bench/models/torch_models.py profile-call --work "$work" --model "$model" --batch "$batch" \
    --precision "$precision" >"$results/torch.csv" 2>"$results/torch.err" \
    || { echo "kernels.sh: ncu on torch.compile failed: $results/torch.err"; exit 1; }
{
    echo "== kiln, $model batch $batch $precision"
    summarize "$results/kiln.csv"
    echo "== torch.compile, $model batch $batch $precision"
    summarize "$results/torch.csv"
} | tee "$results/kernels.txt"
