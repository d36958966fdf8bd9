#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kiln's per-layer profile (kiln_layers.log, written by kiln_model_bench's LayerProfile) grouped by repeated layer.

A model's repeated blocks give layers whose names differ only in a block number ("/model/encoder/layer.7/attention/
self/MatMul_1" is "/model/encoder/layer.N/attention/self/MatMul_1"): each group's layers, their mean time per layer and
their total, the largest totals first, per profiled (model, precision, batch). Each layer's time includes the
profiler's own events (about 1.5 us on an H200), so the profile's total exceeds a CUDA graph's time.

    python3 bench/models/layer_summary.py bench/results/models/kiln_layers.log [--top 12]
"""
import argparse
import re
import sys

HEADER = re.compile(r"^kiln_model_bench: layers of (\S+) (\S+) batch (\d+) \(mean ms of (\d+) runs\):$")
LAYER = re.compile(r"^\s+(-?[0-9.]+(?:e-?\d+)?)\s+(.+?)\s*$")
TOTAL = re.compile(r"^\(\d+ layers\)$")
# A block number: digits after a dot or an underscore that end a path segment's word ("layer.7/", "block_12/").
BLOCK_NUMBER = re.compile(r"(?<=[._])\d+(?=/)")


def group_name(layer):
    """The layer's name with its block numbers replaced by N."""
    return BLOCK_NUMBER.sub("N", layer)


def parse(text):
    """The profiles in a log: a list of ((model, precision, batch, runs), [(ms, layer), ...], total ms or None)."""
    profiles = []
    for line in text.splitlines():
        header = HEADER.match(line)
        if header:
            model, precision, batch, runs = header.groups()
            profiles.append([(model, precision, int(batch), int(runs)), [], None])
            continue
        entry = LAYER.match(line)
        if not entry or not profiles:
            continue
        ms, name = float(entry.group(1)), entry.group(2)
        if TOTAL.match(name):
            profiles[-1][2] = ms
        else:
            profiles[-1][1].append((ms, name))
    return [tuple(profile) for profile in profiles]


def groups(layers):
    """[(group, count, mean ms, total ms)] of the layers, the largest totals first (ties: the group's name)."""
    sums = {}
    for ms, name in layers:
        count, total = sums.get(group_name(name), (0, 0.0))
        sums[group_name(name)] = (count + 1, total + ms)
    rows = [(name, count, total / count, total) for name, (count, total) in sums.items()]
    return sorted(rows, key=lambda row: (-row[3], row[0]))


def report(profiles, top):
    """Markdown: one table per profile."""
    out = []
    for (model, precision, batch, runs), layers, total in profiles:
        summed = sum(ms for ms, _ in layers)
        out.append(f"### {model} {precision} batch {batch} (mean of {runs} runs; {len(layers)} layers, "
                   f"{summed:.4f} ms in all)")
        out.append("")
        out.append("| layers | count | mean us | total us | share |")
        out.append("|---|---|---|---|---|")
        for name, count, mean, group_total in groups(layers)[:top]:
            share = group_total / summed if summed > 0 else 0.0
            out.append(f"| {name} | {count} | {mean * 1000:.1f} | {group_total * 1000:.1f} | {share:.1%} |")
        out.append("")
    return "\n".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="kiln_layers.log")
    parser.add_argument("--top", type=int, default=12, help="groups per profile (12)")
    args = parser.parse_args(argv)
    with open(args.log, encoding="utf-8") as log:
        profiles = parse(log.read())
    if not profiles:
        print(f"layer_summary.py: no profile in {args.log}", file=sys.stderr)
        return 1
    print(report(profiles, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
