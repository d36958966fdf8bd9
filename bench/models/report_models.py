# SPDX-License-Identifier: Apache-2.0
"""The real-model benchmark's and the size sweep's markdown tables, for bench/report.py.

    sections(lines)    # [time, build, outputs, size sweep], each "" when no line is for it

Time: per model, batch, precision and mode, the median ms of kiln, torch_eager and torch_compile, and kiln/compile and
kiln/eager (below 1: kiln is faster). Build: kiln's parse and build seconds beside torch.compile's first call (its
compilation) and the export. Outputs: kiln's against PyTorch's fp32 ("ok" as torch_models.py judges it), and
onnxruntime's. Size sweep: parse and build seconds per number of blocks.
"""


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(out)


def number(value, digits=3):
    return "-" if value is None else f"{value:.{digits}g}"


def model_timings(lines):
    """Timing lines of the model bench (no error, no check) by (model, batch, precision, system, mode)."""
    found = {}
    for line in lines:
        if line.get("bench") == "model" and "ms_median" in line and "error" not in line and "check" not in line:
            found[(line["model"], line["batch"], line["precision"], line["system"], line.get("mode", ""))] = line
    return found


def ratio(numerator, denominator):
    if numerator is None or denominator is None or not denominator.get("ms_median"):
        return "-"
    return f"{numerator['ms_median'] / denominator['ms_median']:.2f}"


def ms(line):
    return "-" if line is None else f"{line['ms_median']:.3f}"


def time_section(found):
    keys = sorted({(m, b, p, mode) for (m, b, p, s, mode) in found})
    rows = []
    for model, batch, precision, mode in keys:
        kiln, eager, compiled = (found.get((model, batch, precision, s, mode))
                                 for s in ("kiln", "torch_eager", "torch_compile"))
        layout = next((line.get("memory_format") for line in (eager, compiled) if line), "-")
        rows.append([model, batch, precision, mode, ms(kiln), ms(eager), ms(compiled), ratio(kiln, compiled),
                     ratio(kiln, eager), layout])
    if not rows:
        return ""
    header = ["model", "batch", "precision", "mode", "kiln ms", "torch_eager ms", "torch_compile ms", "kiln/compile",
              "kiln/eager", "torch memory format"]
    return "## Real models: time (median ms; ratio below 1: kiln is faster)\n\n" + table(header, rows)


def build_section(lines, found):
    exports = {line["model"]: line for line in lines if line.get("step") == "export" and "error" not in line}
    rows = []
    for (model, batch, precision, system, mode), line in sorted(found.items()):
        if system != "kiln" or mode != "enqueue":
            continue
        compiled = found.get((model, batch, precision, "torch_compile", "enqueue"), {})
        export = exports.get(model, {})
        rows.append([model, batch, precision, number(line.get("parse_s")), number(line.get("build_s")),
                     number(compiled.get("first_call_s")), line.get("engine_layers", "-"),
                     number(line.get("plan_bytes", 0) / 1e6), number(export.get("onnx_bytes", 0) / 1e6 or None),
                     number(export.get("export_s"))])
    if not rows:
        return ""
    header = ["model", "batch", "precision", "kiln parse s", "kiln build s", "torch.compile first call s",
              "kiln layers", "plan MB", "ONNX MB", "export s"]
    return "## Real models: parse and build\n\n" + table(header, rows)


def check_section(lines):
    rows = []
    for line in lines:
        if line.get("bench") != "model" or "check" not in line or "error" in line:
            continue
        ok = line.get("ok")
        rows.append([line["model"], line["batch"], line["precision"], line.get("system"), line.get("output"),
                     number(line.get("rel_l2")), number(line.get("max_abs_diff")),
                     number(line.get("max_abs_reference")), number(line.get("torch_fp16_rel_l2")),
                     number(line.get("top1_agreement")), "-" if ok is None else ("yes" if ok else "NO")])
    if not rows:
        return ""
    header = ["model", "batch", "precision", "system", "output", "rel L2 vs reference", "max abs diff",
              "max abs(torch)", "torch fp16 rel L2", "top-1 agreement", "ok"]
    return "## Real models: outputs against the reference (PyTorch fp32; numpy for tiny)\n\n" + table(header, rows)


def size_section(lines):
    rows = []
    for line in lines:
        if line.get("bench") != "onnx_size" or "blocks" not in line:
            continue
        parse_s, build_s = line.get("parse_s"), line.get("build_s")
        per_block = "-" if parse_s is None else f"{1e3 * parse_s / line['blocks']:.2f}"
        rows.append([line["blocks"], line.get("nodes", "-"), number(parse_s), number(build_s), per_block,
                     line.get("layers", "-"), line.get("status", "-")])
    if not rows:
        return ""
    header = ["blocks", "ONNX nodes", "parse s", "build s (host)", "parse ms per block", "layers", "status"]
    return "## Parse and build time against model size\n\n" + table(header, rows)


def sections(lines):
    found = model_timings(lines)
    return [time_section(found), build_section(lines, found), check_section(lines), size_section(lines)]
