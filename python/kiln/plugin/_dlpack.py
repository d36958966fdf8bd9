# SPDX-License-Identifier: Apache-2.0
"""DLPack export of a plugin :class:`~._tensor.Tensor`: what ``Tensor.__dlpack__`` and ``__dlpack_device__`` do.

``torch.from_dlpack(t)`` (which ``torch.as_tensor(t, device="cuda")`` also goes through), ``cupy.from_dlpack(t)`` and,
for host memory, ``np.from_dlpack(t)`` call them. This module decides what the capsule says (device, DLPack type,
shape, strides in elements, version) and makes the consumer's stream wait for the plugin's; kiln's extension
(python/src/plugin_dlpack.cpp) makes the capsule and keeps the Tensor alive until the consumer releases it.

Streams, as the array API standard gives them for CUDA: the consumer passes the stream it will use, as an int:
``None`` or 1 the legacy default stream, 2 the per-thread default stream, a larger int a stream handle, -1 "do not
synchronize"; 0 is refused as ambiguous. Unless it is -1 or the plugin's own stream, the consumer's stream is made to
wait for the plugin's (an event, through the CUDA driver). Host memory takes only ``None``.
"""

from __future__ import annotations

import operator
from typing import Any, Optional, Tuple

from .. import _kiln
from . import _cuda

KDL_CPU, KDL_CUDA = 1, 2
NEWEST = (1, 1)  # the newest DLPack version kiln writes

# DataType name -> (DLDataTypeCode, bits, the first DLPack version with that code). Every DataType has a row.
DL_TYPES = {
    "FLOAT": (2, 32, (0, 0)),  # kDLFloat
    "HALF": (2, 16, (0, 0)),
    "BF16": (4, 16, (0, 0)),  # kDLBfloat
    "INT8": (0, 8, (0, 0)),  # kDLInt
    "INT32": (0, 32, (0, 0)),
    "INT64": (0, 64, (0, 0)),
    "UINT8": (1, 8, (0, 0)),  # kDLUInt
    "BOOL": (6, 8, (0, 0)),  # kDLBool
    "FP8": (10, 8, (1, 1)),  # kDLFloat8_e4m3fn: TensorRT's FP8 is E4M3 without infinities
    "E8M0": (14, 8, (1, 1)),  # kDLFloat8_e8m0fnu
    # Two to a byte, element 2k in the low nibble: how kiln stores them and how DLPack 1.1 packs sub-byte types.
    "INT4": (0, 4, (1, 1)),
    "FP4": (17, 4, (1, 1)),  # kDLFloat4_e2m1fn
}


def device(tensor: Any) -> Tuple[int, int]:
    """``(kDLCPU, 0)`` for host memory; ``(kDLCUDA, ordinal)`` for device memory, the ordinal asked of the CUDA driver
    once (the device holding the address) unless the Tensor was made with it."""
    if tensor.on_host:
        return (KDL_CPU, 0)
    if tensor._device is None:
        object.__setattr__(tensor, "_device", _cuda.driver().device_of(tensor.data_ptr))
    return (KDL_CUDA, tensor._device)


def export(tensor: Any, stream: Any, max_version: Any, dl_device: Any, copy: Optional[bool]) -> Any:
    """The capsule of ``tensor.__dlpack__(stream, max_version=..., dl_device=..., copy=...)``: versioned
    ("dltensor_versioned", version ``min(max_version, NEWEST)``) when max_version is 1.0 or later, else legacy
    ("dltensor"). ``BufferError`` for what DLPack cannot hold, ``TypeError``/``ValueError`` for bad arguments."""
    where = device(tensor)
    if dl_device is not None and tuple(dl_device) != where:
        raise BufferError(f"__dlpack__: dl_device={tuple(dl_device)}, but the tensor is on {where} and kiln does not "
                          "copy it")
    if copy:
        raise BufferError("__dlpack__: copy=True, but kiln exports the plugin's memory as it is (no copy)")
    version = _version(max_version)
    code, bits = _dl_type(tensor.dtype, version)
    dims = tuple(tensor.shape)
    if any(d < 0 for d in dims):
        raise BufferError(f"__dlpack__: the tensor's shape {dims} is data-dependent (-1 extents); call "
                          "aliased(shape) with the real shape first")
    strides = tensor._view_strides()
    if strides is None:
        raise BufferError(f"__dlpack__: the tensor's format is {tensor.format}, whose layout strides cannot describe; "
                          "DLPack views LINEAR and channels-last (HWC, HWC8, HWC16, DHWC, DHWC8) tensors")
    consumer = _consumer_stream(stream, where[0])
    producer = tensor._stream or _cuda.LEGACY_STREAM
    if consumer is not None and consumer != producer:
        _cuda.driver().wait(consumer, producer, tensor.data_ptr)
    return _kiln._dlpack_capsule(tensor, tensor.data_ptr, where, (code, bits, 1), dims, strides, 0, version)


def _version(max_version: Any) -> Optional[Tuple[int, int]]:
    if max_version is None:
        return None
    try:
        major, minor = (operator.index(v) for v in max_version)
    except (TypeError, ValueError):
        raise TypeError(f"__dlpack__: max_version must be a (major, minor) tuple of ints or None, not "
                        f"{max_version!r}") from None
    return min((major, minor), NEWEST) if major >= 1 else None


def _dl_type(dtype: Any, version: Optional[Tuple[int, int]]) -> Tuple[int, int]:
    row = DL_TYPES.get(getattr(dtype, "name", None))
    if row is None:
        raise BufferError(f"__dlpack__: DLPack has no type for {dtype}")
    code, bits, since = row
    if (version or (0, 0)) < since:
        asked = "a legacy capsule (no max_version)" if version is None else f"DLPack {version[0]}.{version[1]} at most"
        raise BufferError(f"__dlpack__: {dtype} has a DLPack type only since DLPack {since[0]}.{since[1]}, and the "
                          f"consumer asked for {asked}; a consumer passing max_version=(1, 1) gets it, otherwise read "
                          "the memory through data_ptr (or numpy() on the host)")
    return code, bits


def _consumer_stream(stream: Any, device_type: int) -> Optional[int]:
    """The stream the consumer will use, to synchronize with; None for no synchronization."""
    if device_type == KDL_CPU:
        if stream is not None:
            raise ValueError(f"__dlpack__: stream={stream!r}, but host memory has no stream; pass None")
        return None
    if stream is None:
        return _cuda.LEGACY_STREAM
    if isinstance(stream, bool):
        raise TypeError("__dlpack__: stream must be an int (a CUDA stream handle) or None, not bool")
    try:
        stream = operator.index(stream)
    except TypeError:
        raise TypeError(f"__dlpack__: stream must be an int (a CUDA stream handle) or None, not "
                        f"{type(stream).__name__}") from None
    if stream == 0:
        raise ValueError("__dlpack__: stream=0 is ambiguous in DLPack; pass 1 for the legacy default stream, 2 for the "
                         "per-thread default stream, a stream handle, or -1 for no synchronization")
    if stream < -1:
        raise ValueError(f"__dlpack__: stream={stream} is not a stream: pass -1, 1, 2 or a stream handle")
    return None if stream == -1 else stream
