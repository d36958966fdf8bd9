#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kiln's real-model benchmark, PyTorch's side: exports the models to ONNX, then times them in PyTorch (eager and
torch.compile) and compares kiln's outputs with PyTorch's. bench/models/run.sh runs the steps in order:

    python3 bench/models/torch_models.py export --work DIR [--model NAME]... [--batch N|large]... [--opset 17]
    build/bench/models/kiln_model_bench DIR/NAME/model.onnx --inputs DIR/NAME/bB/inputs --dump DIR/NAME/bB/kiln_fp32
    python3 bench/models/torch_models.py torch --work DIR [--model NAME]... [--batch N|large]... [--precision P]...
                                         [--system torch_eager|torch_compile]... [--iterations N] [--warmup N]
                                         [--compile-mode MODE] [--no-graph] [--deadline UNIX_SECONDS]

Models (zoo.py): resnet50 and bert by default; also mobilenet_v3_large, efficientnet_b0, vit_b_16, gpt2; "all".
"large" is the model's large batch (256 for CNNs, 32 for the others). Prints one JSON object per line on stdout
(bench/README.md, "Real models", lists the fields).

export (on the CPU): DIR/NAME/model.onnx (opset 17, the batch axis dynamic), DIR/NAME/weights.pt (the state dict the
torch step loads, so both sides hold the same weights), and per batch DIR/NAME/bB/inputs (tensor_files.py) and
DIR/NAME/bB/shapes.txt (trtexec's --shapes); one "step":"export" line per model, and a check of onnxruntime (CPU)
against PyTorch at the smallest batch when onnxruntime is importable, which tells a wrong export from a kiln error.

torch (on the GPU): per model, batch and precision, first the comparison of kiln's dumped outputs
(DIR/NAME/bB/kiln_<precision>) with PyTorch's fp32 eager outputs ("check":"kiln_vs_torch_fp32"; for fp16, PyTorch's
own fp16-vs-fp32 difference beside it), then the timings: fp16 is model.half() with fp16 float inputs, CNNs run
channels_last ("memory_format"), TF32 is off (kiln's fp32 uses none), torch.compile is mode "default", dynamic=False.
Past --deadline the remaining timings are skipped with an "error" line each.

profile-call (on the GPU, for ncu: kernels.sh): one torch.compile call of the first --model at the first --batch and
--precision, inside cudaProfilerStart/Stop, after three calls that compile and warm it.
"""

import argparse
import copy
import inspect
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensor_files  # noqa: E402
import zoo  # noqa: E402

PRECISIONS = ("fp32", "fp16")
SYSTEMS = ("torch_eager", "torch_compile")
FP32_REL_TOLERANCE = 1e-3  # kiln fp32 against PyTorch fp32: relative L2 error
FP16_ERROR_RATIO = 4.0  # kiln fp16's relative L2 error may be this many times PyTorch fp16's (both against fp32)


def emit(fields):
    """One JSON line; a NaN or infinite number becomes null (strict JSON, as kiln_model_bench writes it)."""
    finite = {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in fields.items()}
    print(json.dumps(finite), flush=True)


def model_line(model, precision, batch, system, **fields):
    return {"bench": "model", "model": model, "precision": precision, "batch": batch, "system": system, **fields}


def batches_of(spec, texts):
    return sorted({spec.large_batch if text == "large" else int(text) for text in texts})


def batch_dir(work, model, batch):
    return os.path.join(work, model, f"b{batch}")


def as_torch(arrays, device="cpu"):
    import torch

    return [torch.from_numpy(array.copy()).to(device) for array in arrays.values()]


# ----------------------------------------------------------------------------------------------------------------
# export
# ----------------------------------------------------------------------------------------------------------------


def export_model(name, args):
    import torch

    spec = zoo.MODELS[name]
    folder = os.path.join(args.work, name)
    os.makedirs(folder, exist_ok=True)
    start = time.perf_counter()
    model = spec.build(for_export=True)
    build_s = time.perf_counter() - start
    sample = spec.inputs(2)  # batch 2 when tracing, so that nothing specializes on an extent of 1
    names = list(sample) + list(spec.outputs)
    options = dict(input_names=list(sample), output_names=list(spec.outputs), opset_version=args.opset,
                   dynamic_axes={n: {0: "batch"} for n in names}, do_constant_folding=True)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        options["dynamo"] = False  # the TorchScript exporter: dynamic_axes as given, one ONNX file
    path = os.path.join(folder, "model.onnx")
    start = time.perf_counter()
    with torch.no_grad():
        torch.onnx.export(model, tuple(as_torch(sample)), path, **options)
    export_s = time.perf_counter() - start
    torch.save(model.state_dict(), os.path.join(folder, "weights.pt"))
    batches = batches_of(spec, args.batch)
    for batch in batches:
        inputs = spec.inputs(batch)
        tensor_files.write_tensors(os.path.join(batch_dir(args.work, name, batch), "inputs"), inputs)
        with open(os.path.join(batch_dir(args.work, name, batch), "shapes.txt"), "w", encoding="utf-8") as file:
            file.write(tensor_files.shape_list(inputs) + "\n")
    emit({"bench": "model", "model": name, "step": "export", "opset": args.opset, "build_s": build_s,
          "export_s": export_s, "onnx_bytes": os.path.getsize(path),
          "parameters": sum(p.numel() for p in model.parameters()), "batches": batches,
          "torch_version": torch.__version__})
    if not args.no_ort:
        check_onnxruntime(name, model, path, batches[0])


def relative_l2(difference, reference):
    norm = float((reference.astype("float64") ** 2).sum()) ** 0.5
    return float((difference.astype("float64") ** 2).sum()) ** 0.5 / norm if norm > 0 else math.inf


def check_onnxruntime(name, model, path, batch):
    """onnxruntime's (CPU) outputs of the exported file against the module's, at one batch."""
    import torch

    try:
        import onnxruntime
    except ImportError as error:
        print(f"torch_models.py: no onnxruntime check ({error})", file=sys.stderr)
        return
    inputs = zoo.MODELS[name].inputs(batch)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    produced = session.run(None, inputs)
    with torch.no_grad():
        expected = [t.numpy() for t in model(*as_torch(inputs))]
    for output, got, want in zip(zoo.MODELS[name].outputs, produced, expected):
        difference = abs(got.astype("float32") - want)
        emit(model_line(name, "fp32", batch, "onnxruntime", check="onnxruntime_vs_torch_fp32", output=output,
                        device="cpu", max_abs_diff=float(difference.max()), rel_l2=relative_l2(got - want, want),
                        max_abs_reference=float(abs(want).max())))


def command_export(args, models):
    failures = 0
    for name in models:
        try:
            export_model(name, args)
        except Exception as error:  # noqa: BLE001 - any failure becomes the line's "error"
            failures += 1
            emit({"bench": "model", "model": name, "step": "export", "error": f"{type(error).__name__}: {error}"})
    return 1 if failures else 0


# ----------------------------------------------------------------------------------------------------------------
# torch: comparison and timing
# ----------------------------------------------------------------------------------------------------------------


def load_model(name, args):
    import torch

    model = zoo.MODELS[name].build(for_export=False)
    model.load_state_dict(torch.load(os.path.join(args.work, name, "weights.pt"), map_location="cpu"))
    return model.eval()


def prepare(model, inputs, precision, kind):
    """The model and inputs on the GPU in the precision (and, for CNNs, memory format) PyTorch runs them in."""
    import torch

    dtype = torch.float32 if precision == "fp32" else torch.float16
    model = copy.deepcopy(model).to(device="cuda", dtype=dtype)
    tensors = []
    for tensor in as_torch(inputs, "cuda"):
        tensors.append(tensor.to(dtype) if tensor.is_floating_point() else tensor)
    if kind == "cnn":
        model = model.to(memory_format=torch.channels_last)
        tensors = [t.contiguous(memory_format=torch.channels_last) for t in tensors]
    return model, tensors


def outputs_of(model, tensors):
    import torch

    with torch.no_grad():
        result = model(*tensors)
    # A model with one output (torchvision's classifiers) returns the tensor itself, not a tuple of them.
    outputs = [result] if isinstance(result, torch.Tensor) else list(result)
    return [t.float() for t in outputs]


def compare(name, batch, precision, args, reference, torch_fp16):
    """One check line per output of kiln's dump against PyTorch's fp32 outputs (reference)."""
    import torch

    folder = os.path.join(batch_dir(args.work, name, batch), f"kiln_{precision}")
    if not os.path.exists(os.path.join(folder, "manifest.txt")):
        return 0
    dumped = tensor_files.read_tensors(folder)
    failures = 0
    for index, (output, want) in enumerate(zip(zoo.MODELS[name].outputs, reference)):
        line = model_line(name, precision, batch, "kiln", check="kiln_vs_torch_fp32", output=output,
                          device=torch.cuda.get_device_name(0))
        if output not in dumped or tuple(dumped[output].shape) != tuple(want.shape):
            got = None if output not in dumped else list(dumped[output].shape)
            emit({**line, "error": f"kiln's output {output}: shape {got}, PyTorch's {list(want.shape)}"})
            failures += 1
            continue
        got = torch.from_numpy(dumped[output].astype("float32")).cuda()
        difference = (got - want).double()
        norm = want.double().norm().item()
        line.update(max_abs_diff=difference.abs().max().item(), mean_abs_diff=difference.abs().mean().item(),
                    max_abs_reference=want.abs().max().item(), rel_l2=difference.norm().item() / norm,
                    kiln_finite=bool(torch.isfinite(got).all().item()))
        if output == "logits" and want.dim() == 2:
            line["top1_agreement"] = (got.argmax(-1) == want.argmax(-1)).float().mean().item()
        if precision == "fp16":
            own = (torch_fp16[index] - want).double()
            line.update(torch_fp16_max_abs_diff=own.abs().max().item(), torch_fp16_rel_l2=own.norm().item() / norm)
            line["error_ratio_vs_torch_fp16"] = line["rel_l2"] / max(line["torch_fp16_rel_l2"], 1e-12)
            line["ok"] = line["kiln_finite"] and line["rel_l2"] <= max(FP16_ERROR_RATIO * line["torch_fp16_rel_l2"],
                                                                        FP32_REL_TOLERANCE)
        else:
            line["ok"] = line["kiln_finite"] and line["rel_l2"] <= FP32_REL_TOLERANCE
        emit(line)
    return failures


def torch_blocks():
    """bench/torch_blocks.py, for its timing helpers (time_calls, capture_graph)."""
    sys.path.insert(0, os.path.dirname(HERE))
    import torch_blocks as helpers

    return helpers


def time_system(line, system, model, tensors, args):
    """The enqueue line and (unless --no-graph) the graph line of one system; the number of error lines."""
    import torch

    helpers = torch_blocks()
    line = {**line, "system": system}
    fn = model
    if system == "torch_compile":
        torch._dynamo.reset()
        fn = torch.compile(model, mode=args.compile_mode, dynamic=False)
        line["compile_mode"] = args.compile_mode

    def call():
        fn(*tensors)  # the outputs are dropped at once, as kiln's are overwritten

    with torch.no_grad():
        start = time.perf_counter()
        call()  # torch_compile compiles here; never timed
        torch.cuda.synchronize()
        first_call_s = time.perf_counter() - start
        torch.cuda.reset_peak_memory_stats()
        timing = helpers.time_calls(call, args.warmup, args.iterations)
        emit({**line, "mode": "enqueue", **timing, "first_call_s": first_call_s,
              "peak_device_bytes": torch.cuda.max_memory_allocated(),
              "memory_method": "torch.cuda.max_memory_allocated"})
        if args.no_graph:
            return 0
        try:
            graph = helpers.capture_graph(call)
            timing = helpers.time_calls(graph.replay, args.warmup, args.iterations)
            emit({**line, "mode": "graph", **timing})
            del graph
        except Exception as error:  # noqa: BLE001 - any failure becomes the line's "error"
            emit({**line, "mode": "graph", "error": f"CUDA graph capture or replay: {type(error).__name__}: {error}"})
            return 1
    return 0


def torch_model(name, args):
    """Comparisons, then timings, for every batch and precision of one model; the number of error lines."""
    import torch

    spec = zoo.MODELS[name]
    model = load_model(name, args)
    fields = {"device": torch.cuda.get_device_name(0),
              "memory_format": "channels_last" if spec.kind == "cnn" else "contiguous"}
    attention = getattr(getattr(getattr(model, "model", None), "config", None), "_attn_implementation", None)
    if attention:
        fields["attention"] = attention
    failures = 0
    for batch in reversed(batches_of(spec, args.batch)):  # the largest first, as run.sh runs kiln
        inputs = tensor_files.read_tensors(os.path.join(batch_dir(args.work, name, batch), "inputs"))
        prepared = {precision: prepare(model, inputs, precision, spec.kind) for precision in args.precision}
        reference = outputs_of(*prepared["fp32"]) if "fp32" in prepared else outputs_of(
            *prepare(model, inputs, "fp32", spec.kind))
        fp16 = outputs_of(*prepared["fp16"]) if "fp16" in prepared else None
        for precision in args.precision:
            failures += compare(name, batch, precision, args, reference, fp16)
        del reference, fp16
        for precision in args.precision:
            line = model_line(name, precision, batch, "", **fields)
            for system in args.system:
                if args.deadline and time.time() > args.deadline:
                    emit({**line, "system": system, "error": "skipped: the time budget ran out"})
                    failures += 1
                    continue
                try:
                    failures += time_system(line, system, *prepared[precision], args)
                except Exception as error:  # noqa: BLE001 - any failure becomes the line's "error"
                    emit({**line, "system": system, "error": f"{type(error).__name__}: {error}"})
                    failures += 1
                torch._dynamo.reset()
                torch.cuda.empty_cache()
        del prepared
        torch.cuda.empty_cache()
    return failures


def command_torch(args, models):
    import torch

    if not torch.cuda.is_available():
        for name in models:
            emit({"bench": "model", "model": name, "system": "torch_eager", "error": "torch sees no CUDA device"})
        return 1
    torch_blocks().set_numerics()  # as torch_blocks.py: no TF32 (kiln's fp32 uses none), cudnn.benchmark
    failures = 0
    for name in models:
        try:
            failures += torch_model(name, args)
        except Exception as error:  # noqa: BLE001 - any failure becomes the line's "error"
            emit({"bench": "model", "model": name, "system": "torch_eager",
                  "error": f"{type(error).__name__}: {error}"})
            failures += 1
        torch.cuda.empty_cache()
    return 1 if failures else 0


def command_profile_call(args, models):
    """One torch.compile call of the model, inside cudaProfilerStart/Stop (for ncu --profile-from-start off:
    kernels.sh), after three calls that compile and warm it."""
    import torch

    torch_blocks().set_numerics()
    name = models[0]
    spec = zoo.MODELS[name]
    batch = batches_of(spec, args.batch)[0]
    inputs = tensor_files.read_tensors(os.path.join(batch_dir(args.work, name, batch), "inputs"))
    model, tensors = prepare(load_model(name, args), inputs, args.precision[0], spec.kind)
    fn = torch.compile(model, mode=args.compile_mode, dynamic=False)
    with torch.no_grad():
        for _ in range(3):
            fn(*tensors)
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        fn(*tensors)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("export", "torch", "profile-call"))
    parser.add_argument("--work", required=True, help="the folder of the ONNX files, inputs and kiln's dumps")
    parser.add_argument("--model", action="append", choices=list(zoo.MODELS) + ["all"])
    parser.add_argument("--batch", action="append", help='a batch size, or "large" (the model\'s large batch)')
    parser.add_argument("--precision", action="append", choices=PRECISIONS)
    parser.add_argument("--system", action="append", choices=SYSTEMS)
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--no-ort", action="store_true", help="export: leave out the onnxruntime check")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--compile-mode", default="default")
    parser.add_argument("--no-graph", action="store_true", help="leave out the CUDA-graph lines")
    parser.add_argument("--deadline", type=float, default=0.0,
                        help="torch: skip the timings that would start after this time (seconds since the epoch)")
    args = parser.parse_args()
    models = list(zoo.MODELS) if "all" in (args.model or []) else list(dict.fromkeys(args.model or zoo.DEFAULT_MODELS))
    args.batch = args.batch or ["1", "large"]
    if any(text != "large" and not (text.isdigit() and int(text) > 0) for text in args.batch):
        parser.error('--batch takes a positive integer or "large"')
    args.precision = list(dict.fromkeys(args.precision or PRECISIONS))
    args.system = list(dict.fromkeys(args.system or SYSTEMS))
    if args.iterations < 1 or args.warmup < 0:
        parser.error("--iterations must be at least 1 and --warmup at least 0")
    commands = {"export": command_export, "torch": command_torch, "profile-call": command_profile_call}
    return commands[args.command](args, models)


if __name__ == "__main__":
    sys.exit(main())
