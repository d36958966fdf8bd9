# SPDX-License-Identifier: Apache-2.0
"""``tensorrt.plugin`` on kiln: plugins written as decorated Python functions (TensorRT's "quickly deployable
plugins"), built on kiln's class-based Python plugins.

    import numpy as np, tensorrt as trt, tensorrt.plugin as trtp
    from typing import Tuple

    @trtp.register("demo::add_k")
    def add_k_desc(x: trtp.TensorDesc, k: float) -> trtp.TensorDesc:
        return x.like()                                   # same type and extents as x

    @trtp.impl("demo::add_k")
    def add_k_impl(x: trtp.Tensor, k: float, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        np.add(x.numpy(), np.float32(k), out=outputs[0].numpy())   # kiln's host backend: host memory

    layer = network.add_plugin(trtp.op.demo.add_k(x, k=2.0))

``register`` registers a creator (name ``add_k``, version ``"1"``, namespace ``demo``) in
``tensorrt.get_plugin_registry()``, so the ONNX parser finds the plugin and a plan that holds it loads in any
process that imported the module defining these functions. ``autotune`` offers type/format combinations and custom
tactics. ``aot_impl`` gives an ahead-of-time kernel (PTX) that the engine keeps and launches itself, without Python
(CUDA backend only); see ``_aot.py``.
"""

from __future__ import annotations

from .. import _kiln
from ._aot import KernelLaunchParams, SymExprs, SymInt8, SymInt16, SymInt32, SymIntExprs, aot_impl
from ._autotune import AutoTuneCombination
from ._desc import Shape, SizeTensorDesc, TensorDesc, from_shape_expr, size_tensor
from ._expr import ShapeExpr, ShapeExprs, SizeTensorShapeExpr, cdiv, max, min  # noqa: A004
from ._registry import QDP_CREATORS, QDP_REGISTRY, autotune, impl, op, register  # noqa: F401
from ._tensor import Tensor

__all__ = [
    "register",
    "impl",
    "aot_impl",
    "autotune",
    "op",
    "cdiv",
    "max",
    "min",
    "size_tensor",
    "from_shape_expr",
    "TensorDesc",
    "SizeTensorDesc",
    "Tensor",
    "Shape",
    "ShapeExpr",
    "SizeTensorShapeExpr",
    "ShapeExprs",
    "SymExprs",
    "SymIntExprs",
    "SymInt32",
    "SymInt16",
    "SymInt8",
    "KernelLaunchParams",
    "AutoTuneCombination",
]

_kiln.Logger().log(_kiln.ILogger.Severity.WARNING, "tensorrt.plugin is experimental in TensorRT.")
