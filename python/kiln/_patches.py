# SPDX-License-Identifier: Apache-2.0
"""What TensorRT's ``tensorrt/__init__.py`` adds on top of its compiled module, reproduced for kiln: the
``Logger.Severity`` aliases, ``DataType.itemsize``, the module-level DataType names, ``volume``, ``nptype``
and the (deprecated, no-op) context managers."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Iterable

from . import _kiln


def volume(iterable: Iterable[int]) -> int:
    """The product of the elements (1 for an empty iterable); works on Dims, tuples and lists."""
    return functools.reduce(lambda a, b: a * b, iterable, 1)


def nptype(trt_type: "_kiln.DataType") -> Any:
    """The numpy type of a DataType; TypeError for types numpy lacks (BF16, FP8, INT4, FP4, E8M0)."""
    import numpy as np

    mapping = {
        _kiln.DataType.FLOAT: np.float32,
        _kiln.DataType.HALF: np.float16,
        _kiln.DataType.INT8: np.int8,
        _kiln.DataType.INT32: np.int32,
        _kiln.DataType.INT64: np.int64,
        _kiln.DataType.BOOL: np.bool_,
        _kiln.DataType.UINT8: np.uint8,
    }
    if trt_type in mapping:
        return mapping[trt_type]
    raise TypeError(f"Could not resolve TensorRT datatype to an equivalent numpy datatype: {trt_type}")


_ITEMSIZE = {
    "FLOAT": 4,
    "HALF": 2,
    "BF16": 2,
    "INT8": 1,
    "INT32": 4,
    "INT64": 8,
    "BOOL": 1,
    "UINT8": 1,
    "FP8": 1,
    "INT4": 0.5,
    "FP4": 0.5,
}

_CONTEXT_MANAGED = (
    "ILogger",
    "ICudaEngine",
    "IExecutionContext",
    "Runtime",
    "IHostMemory",
    "Builder",
    "INetworkDefinition",
    "OnnxParser",
    "IBuilderConfig",
)


def _enter(self: Any) -> Any:
    warnings.warn(
        "Context managers for TensorRT types are deprecated. Memory will be freed automatically when the "
        "reference count reaches 0.",
        DeprecationWarning,
        stacklevel=2,
    )
    return self


def _exit(self: Any, exc_type: Any, exc_value: Any, traceback: Any) -> None:
    """Does nothing, so exceptions propagate."""


def apply(namespace: dict) -> None:
    """Applies the patches to the package namespace (kiln's globals)."""
    logger = _kiln.Logger
    logger.Severity = _kiln.ILogger.Severity
    for name, member in _kiln.ILogger.Severity.__members__.items():
        setattr(logger, name, member)

    _kiln.DataType.itemsize = property(lambda self: _ITEMSIZE.get(self.name))

    for name, member in (
        ("float32", "FLOAT"),
        ("float16", "HALF"),
        ("bfloat16", "BF16"),
        ("int8", "INT8"),
        ("int32", "INT32"),
        ("int64", "INT64"),
        ("bool", "BOOL"),
        ("uint8", "UINT8"),
        ("fp8", "FP8"),
        ("int4", "INT4"),
        ("fp4", "FP4"),
        ("e8m0", "E8M0"),
    ):
        namespace[name] = getattr(_kiln.DataType, member)

    for name in _CONTEXT_MANAGED:
        cls = getattr(_kiln, name, None)
        if cls is not None:
            cls.__enter__ = _enter
            cls.__exit__ = _exit
