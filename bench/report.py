#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Markdown tables from the JSON lines of kiln_bench and torch_blocks.py, and of the real-model benchmark
(bench/models) and the size sweep (bench/onnx/size_sweep.py), whose tables bench/models/report_models.py makes.

    python3 bench/report.py bench/results/latest.jsonl [more.jsonl ...]  > report.md

Tables: time per block (median ms, with p10-p90) with the ratios kiln/torch_eager and kiln/torch_compile (below 1:
kiln is faster), peak device memory side by side, the identity plugin's copy rate against cudaMemcpyAsync, kiln's
outputs against PyTorch's, and every line that carried an error. Lines it does not recognise are ignored.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))
import report_models  # noqa: E402

MIB = 1024.0 * 1024.0


def load(paths):
    lines = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            for number, text in enumerate(file, 1):
                text = text.strip()
                if not text.startswith("{"):
                    continue
                try:
                    lines.append(json.loads(text))
                except json.JSONDecodeError as error:
                    print(f"report.py: {path}:{number}: not JSON ({error})", file=sys.stderr)
    return lines


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(out)


def ms_cell(line):
    if line is None:
        return "-"
    return f"{line['ms_median']:.3f} ({line['ms_p10']:.3f}-{line['ms_p90']:.3f})"


def ratio(numerator, denominator, key):
    if numerator is None or denominator is None or not denominator.get(key):
        return "-"
    return f"{numerator[key] / denominator[key]:.2f}"


def mib(line):
    if line is None or line.get("peak_device_bytes") is None:
        return "-"
    return f"{line['peak_device_bytes'] / MIB:.1f}"


def timed(lines):
    """Timing lines (no error, no check) by (block, precision, system, mode)."""
    found = {}
    for line in lines:
        if "error" in line or "check" in line or "ms_median" not in line or "block" not in line:
            continue
        found[(line["block"], line.get("precision", ""), line["system"], line.get("mode", "enqueue"))] = line
    return found


def speed_section(found):
    keys = sorted({(b, p, m) for (b, p, s, m) in found if s in ("kiln", "torch_eager", "torch_compile")})
    rows = []
    for block, precision, mode in keys:
        if block == "identity_plugin_copy":
            continue
        kiln = found.get((block, precision, "kiln", mode))
        eager = found.get((block, precision, "torch_eager", mode))
        compiled = found.get((block, precision, "torch_compile", mode))
        tflops = f"{kiln['tflops']:.1f}" if kiln and kiln.get("tflops") else "-"
        rows.append([block, precision, mode, ms_cell(kiln), ms_cell(eager), ms_cell(compiled),
                     ratio(kiln, eager, "ms_median"), ratio(kiln, compiled, "ms_median"), tflops])
    header = ["block", "precision", "mode", "kiln ms", "torch_eager ms", "torch_compile ms", "kiln/eager",
              "kiln/compile", "kiln TFLOP/s"]
    return "## Time (median ms, p10-p90; ratio below 1: kiln is faster)\n\n" + table(header, rows)


def memory_section(found):
    keys = sorted({(b, p) for (b, p, s, m) in found if m == "enqueue" and b != "identity_plugin_copy"})
    rows = []
    for block, precision in keys:
        kiln = found.get((block, precision, "kiln", "enqueue"))
        eager = found.get((block, precision, "torch_eager", "enqueue"))
        compiled = found.get((block, precision, "torch_compile", "enqueue"))
        measured = "-"
        if kiln is not None and kiln.get("measured_device_delta_bytes") is not None:
            measured = f"{kiln['measured_device_delta_bytes'] / MIB:.1f}"
        rows.append([block, precision, mib(kiln), measured, mib(eager), mib(compiled),
                     ratio(kiln, eager, "peak_device_bytes"), ratio(kiln, compiled, "peak_device_bytes")])
    header = ["block", "precision", "kiln MiB (activations+weights+io)", "kiln MiB (cudaMemGetInfo delta)",
              "torch_eager MiB", "torch_compile MiB", "kiln/eager", "kiln/compile"]
    return "## Peak device memory (MiB)\n\n" + table(header, rows)


def copy_section(found):
    keys = sorted({(found[k].get("bytes", 0), k[3]) for k in found if k[0] == "identity_plugin_copy"})
    rows = []
    for size, mode in keys:
        def pick(system, size=size, mode=mode):
            return next((line for k, line in found.items() if k[0] == "identity_plugin_copy" and k[2] == system
                         and k[3] == mode and line.get("bytes") == size), None)

        kiln = pick("kiln")
        memcpy = pick("cudaMemcpyAsync")
        rate = lambda line: f"{line['gb_per_s']:.0f}" if line else "-"  # noqa: E731
        ok = "-" if kiln is None else ("yes" if kiln.get("output_ok") else "NO")
        rows.append([f"{size / MIB:.0f}", mode, rate(kiln), rate(memcpy), ratio(kiln, memcpy, "gb_per_s"),
                     ms_cell(kiln), ms_cell(memcpy), ok])
    header = ["MiB", "mode", "kiln GB/s", "cudaMemcpyAsync GB/s", "kiln/memcpy", "kiln ms", "memcpy ms",
              "copy correct"]
    return ("## identity_plugin_copy (GB/s counts bytes read + written; ratio 1.0: no overhead)\n\n"
            + table(header, rows))


def check_section(lines):
    rows = []
    for line in lines:
        if "check" not in line or "error" in line or "block" not in line:
            continue
        scale = line.get("torch_fp16_vs_fp32_max_abs_diff")
        rows.append([line["block"], line["precision"], f"{line['max_abs_diff']:.3g}", f"{line['mean_abs_diff']:.3g}",
                     f"{line['max_abs_reference']:.3g}", "-" if scale is None else f"{scale:.3g}",
                     "yes" if line.get("kiln_finite") else "NO"])
    if not rows:
        return ""
    header = ["block", "precision", "max abs(kiln - torch_eager)", "mean abs diff", "max abs(torch)",
              "torch fp16 vs fp32 max diff", "kiln finite"]
    return "## kiln's output against PyTorch's\n\n" + table(header, rows)


def error_section(lines):
    rows = [[line.get("block") or line.get("model") or line.get("bench", ""), line.get("precision", ""),
             line.get("batch", ""), line.get("system") or line.get("step", ""), line.get("mode", ""),
             str(line["error"]).replace("|", "\\|").replace("\n", " ")] for line in lines if "error" in line]
    if not rows:
        return ""
    return "## Errors\n\n" + table(["block or model", "precision", "batch", "system", "mode", "error"], rows)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    lines = load(argv[1:])
    found = timed(lines)
    devices = sorted({line["device"] for line in lines if line.get("device") not in (None, "", "unknown", "cpu")})
    sections = [f"# kiln benchmark ({', '.join(devices) or 'no device'})"]
    if found:
        sections += [speed_section(found), memory_section(found), copy_section(found)]
    sections += [check_section(lines), *report_models.sections(lines), error_section(lines)]
    print("\n\n".join(section for section in sections if section))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
