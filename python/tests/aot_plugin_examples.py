# SPDX-License-Identifier: Apache-2.0
"""tensorrt.plugin plugins with an ahead-of-time implementation (aot_impl), for test_plugin_aot.py. The PTX is a
literal that the host backend never loads; the GPU test compiles a real kernel with Triton instead.

* ``kiln_aot::scale``: AOT only, y = x * 2 over x [rows, cols]: kernel ``scale_rows(x, n, cols, y)``;
* ``kiln_aot::both``: JIT (impl, numpy) and AOT, y = x + 1;
* ``kiln_aot::bad``: AOT only, its aot_impl returns whatever ``Bad.result`` holds.
"""

from typing import Any, Tuple

import numpy as np

import kiln.plugin as trtp

CALLS = []

PTX = """//
// Generated for kiln's tests: never loaded on the host backend.
//
.version 8.0
.target sm_90
.address_size 64

.visible .entry scale_rows(
    .param .u64 scale_rows_param_0,
    .param .u32 scale_rows_param_1,
    .param .u32 scale_rows_param_2,
    .param .u64 scale_rows_param_3
)
{
    ret;
}
"""


@trtp.register("kiln_aot::scale")
def scale_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.aot_impl("kiln_aot::scale")
def scale_aot(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
              ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
    n = x.shape_expr.numel()
    CALLS.append(("scale", "aot_impl", x.dtype, outputs[0].dtype, x.format, tactic))
    launch = trtp.KernelLaunchParams(grid_x=trtp.cdiv(n, 128), block_x=128, shared_mem=x.shape_expr[1] * 4)
    return "scale_rows", PTX.encode(), launch, trtp.SymIntExprs.from_tuple([trtp.SymInt32(n), x.shape_expr[1]])


@trtp.register("kiln_aot::both")
def both_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("kiln_aot::both")
def both_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    CALLS.append(("both", "impl"))
    np.add(x.numpy(), np.float32(1), out=outputs[0].numpy())


@trtp.aot_impl("kiln_aot::both")
def both_aot(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
             ) -> Tuple[str, str, trtp.KernelLaunchParams, trtp.SymIntExprs]:
    CALLS.append(("both", "aot_impl"))
    n = x.shape_expr.numel()
    launch = trtp.KernelLaunchParams(grid_x=trtp.cdiv(n, 64), block_x=64)
    return "add_one", PTX, launch, trtp.SymIntExprs.from_tuple([n])


class Bad:
    result: Any = None


@trtp.register("kiln_aot::bad")
def bad_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.aot_impl("kiln_aot::bad")
def bad_aot(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
            ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
    return Bad.result(x) if callable(Bad.result) else Bad.result
