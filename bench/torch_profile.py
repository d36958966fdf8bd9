#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-kernel GPU times of one benchmark block in PyTorch (eager or torch.compile), from torch.profiler.

    python3 bench/torch_profile.py [--block transformer_block] [--precision fp32] [--system torch_compile]

Prints a table of CUDA kernels (name, calls, total and mean microseconds per block call), the counterpart of the
per-layer times kiln_bench writes to its log, so that the two systems' kernels can be compared layer by layer.
"""

import argparse

import torch
from torch.profiler import ProfilerActivity, profile

import torch_blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--block", default="transformer_block", choices=torch_blocks.BLOCKS)
    parser.add_argument("--precision", default="fp32", choices=torch_blocks.PRECISIONS)
    parser.add_argument("--system", default="torch_compile", choices=torch_blocks.SYSTEMS)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dtype = torch.float32 if args.precision == "fp32" else torch.float16
    params, x, forward, _ = torch_blocks.load_params(args.block, dtype)
    fn = lambda t: forward(params, t)  # noqa: E731
    if args.system == "torch_compile":
        fn = torch.compile(fn, dynamic=False)
    with torch.no_grad():
        for _ in range(5):
            fn(x)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(args.calls):
                fn(x)
            torch.cuda.synchronize()
    rows = {}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        total, count = rows.get(event.name, (0.0, 0))
        rows[event.name] = (total + event.device_time, count + 1)
    print(f"{args.system} {args.block} {args.precision}: per block call")
    grand = 0.0
    for name, (total, count) in sorted(rows.items(), key=lambda item: -item[1][0]):
        per_call = total / args.calls
        grand += per_call
        print(f"{per_call:9.2f} us  x{count / args.calls:4.1f}  {name[:150]}")
    print(f"{grand:9.2f} us  total")


if __name__ == "__main__":
    main()
