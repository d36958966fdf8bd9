# SPDX-License-Identifier: Apache-2.0
"""``import tensorrt as trt`` backed by kiln: re-exports the kiln package (without kiln's own helpers, such as
``kiln.run``), with ``__version__`` in TensorRT's "major.minor.patch.build" form at kiln's compatibility level, so
that version checks in user code take the TensorRT 10.16 paths.

Installing this distribution (``pip install ./python/tensorrt_compat``) is an explicit choice: it shadows NVIDIA's
``tensorrt`` package in the same environment.
"""

import kiln as _kiln
from kiln._kiln import *  # noqa: F401,F403
from kiln import nptype, volume  # noqa: F401
from kiln import (  # noqa: F401
    bfloat16,
    bool,
    e8m0,
    float16,
    float32,
    fp4,
    fp8,
    int4,
    int8,
    int32,
    int64,
    uint8,
)

__version__ = _kiln.tensorrt_version

del _kiln
