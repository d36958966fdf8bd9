# SPDX-License-Identifier: Apache-2.0
""":class:`Tensor`: what an ``@impl`` function receives for each input and output.

On a GPU engine a Tensor wraps device memory: ``data_ptr`` is the device address, ``__cuda_array_interface__`` lets
torch (``torch.as_tensor(t, device="cuda")``) and CuPy (``cupy.asarray(t)``) view it, and ``__dlpack__`` /
``__dlpack_device__`` (kDLCUDA) let ``torch.from_dlpack(t)`` and ``cupy.from_dlpack(t)`` view it, the consumer's
stream made to wait for the plugin's (:mod:`._dlpack`). On kiln's host backend it wraps host memory: ``data_ptr`` is
the host address, and ``__array_interface__``, :meth:`numpy` (kiln's addition) and ``__dlpack__`` (kDLCPU) give numpy
(``np.asarray(t)``, ``np.from_dlpack(t)``) and torch (``torch.from_dlpack(t)``) views of it.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Tuple, Union

from .. import _kiln
from .._patches import nptype
from . import _dlpack
from ._desc import Shape

_HOST, _DEVICE = "host", "device"


def _contiguous_strides(dims: Iterable[int]) -> Tuple[int, ...]:
    dims = list(dims)
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(dims[i + 1], 0) if dims[i + 1] >= 0 else -1
    return tuple(strides)


# Channels-last formats: (the channel's position from the end, the multiple its extent is padded to). kiln stores them
# as [outer...][spatial...][roundUp(C, V)] (src/backends/host/reformat.cpp), which strides describe; the vector-major
# formats (CHW2, CHW4, CHW16, CHW32, CDHW32) and the DLA ones have no strides.
_CHANNELS_LAST = {"HWC": (3, 1), "HWC8": (3, 8), "HWC16": (3, 16), "DHWC": (4, 1), "DHWC8": (4, 8)}


def _format_strides(format: Any, dims: Tuple[int, ...]) -> Optional[Tuple[int, ...]]:  # noqa: A002
    """The strides in elements of a tensor of extents dims (all known) stored in format; None when the format's
    layout has none."""
    if format == _kiln.TensorFormat.LINEAR:
        return _contiguous_strides(dims)
    position, vector = _CHANNELS_LAST.get(format.name, (0, 0))
    if position == 0 or len(dims) < position:
        return None
    channel = len(dims) - position
    strides = [1] * len(dims)
    step = -(-dims[channel] // vector) * vector
    for i in reversed(range(len(dims))):
        if i != channel:
            strides[i] = step
            step *= dims[i]
    return tuple(strides)


def _typestr(dtype: Any, host: bool = False) -> str:
    """numpy's type string for dtype. On the host, as in enqueue_host, types numpy lacks are viewed as raw elements
    of their width (BF16 as uint16, FP8 and E8M0 as uint8); the 4-bit types have no view."""
    import numpy as np

    try:
        return np.dtype(nptype(dtype)).str
    except TypeError:
        raw = {"BF16": "<u2", "FP8": "|u1", "E8M0": "|u1"}.get(dtype.name) if host else None
        if raw is not None:
            return raw
        raise ValueError(f"numpy has no type for {dtype}; read the memory through data_ptr") from None


class Tensor:
    """One input or output of the plugin at run time. Read-only: assigning an attribute raises ``ValueError``.

    ``shape`` has -1 where a data-dependent output's extent is decided by the plugin; :meth:`aliased` then gives a
    Tensor of the real shape over the same memory."""

    def __init__(self, data_ptr: int, dtype: Any, shape: Union[Shape, Iterable[int]], format: Any = None,
                 scale: Optional[float] = None, *, _location: str = _DEVICE, _stream: int = 0,
                 _read_only: bool = False, _keep: Any = None, _device: Optional[int] = None):  # noqa: A002
        set_ = object.__setattr__
        set_(self, "_data_ptr", int(data_ptr))
        set_(self, "_dtype", dtype)
        set_(self, "_shape", shape if isinstance(shape, Shape) else Shape(shape))
        set_(self, "_format", format if format is not None else _kiln.TensorFormat.LINEAR)
        set_(self, "_scale", scale)
        set_(self, "_location", _location)
        set_(self, "_stream", int(_stream))
        set_(self, "_read_only", _read_only)
        set_(self, "_keep", _keep)  # what owns the memory view (kept alive with the Tensor)
        set_(self, "_device", _device)  # the CUDA device's ordinal; asked of the driver when DLPack needs it
        set_(self, "_aliased_to", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ValueError(f"Tensor.{name}: a plugin Tensor is immutable")

    # ---- what it is ----
    @property
    def data_ptr(self) -> int:
        """The address of the first element: a device address on GPU engines, a host one on kiln's host backend."""
        return self._data_ptr

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def shape(self) -> Shape:
        return self._shape

    @property
    def format(self) -> Any:  # noqa: A003
        return self._format

    @property
    def scale(self) -> Optional[float]:
        return self._scale

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def strides(self) -> Any:
        """The strides in elements, as Dims: row-major for LINEAR, channel innermost for the channels-last formats
        (HWC, HWC8, HWC16, DHWC, DHWC8); row-major too for the vectorized formats, which strides cannot describe,
        and with -1 where an extent is data-dependent."""
        strides = None if self._shape.is_dynamic else _format_strides(self._format, tuple(self._shape))
        return _kiln.Dims(strides if strides is not None else _contiguous_strides(self._shape))

    def _view_strides(self) -> Optional[Tuple[int, ...]]:
        """The strides in elements an array view takes (the shape known); None when the format has none."""
        return _format_strides(self._format, tuple(self._shape))

    @property
    def is_data_dependent(self) -> bool:
        return self._shape.is_dynamic

    @property
    def is_aliased(self) -> bool:
        # TensorRT's implementation answers True when the tensor is *not* an alias; kiln follows it.
        return self._aliased_to is None

    @property
    def on_host(self) -> bool:
        """kiln's addition: True when the memory is host memory (kiln's host backend)."""
        return self._location == _HOST

    def numel(self) -> int:
        if self._shape.is_dynamic:
            raise ValueError("numel(): the tensor's shape is data-dependent; call aliased(shape) first")
        return self._shape.numel()

    def get_aliased(self) -> Optional["Tensor"]:
        return self._aliased_to

    def aliased(self, shape: Union[Tuple[int, ...], Shape, Any, None] = None) -> "Tensor":
        """A Tensor over the same memory with another shape (a tuple, a Shape or a PluginTensorDesc): how a
        data-dependent output gets its real shape before it is written."""
        if shape is None:
            dims = list(self._shape)
        elif isinstance(shape, _kiln.PluginTensorDesc):
            dims = list(shape.dims)
        else:
            dims = [int(d) for d in shape]
        if any(d < 0 for d in dims):
            raise ValueError(f"aliased(): the shape {tuple(dims)} has a negative extent")
        alias = Tensor(self._data_ptr, self._dtype, Shape(dims), self._format, self._scale, _location=self._location,
                       _stream=self._stream, _read_only=self._read_only, _keep=self._keep, _device=self._device)
        object.__setattr__(alias, "_aliased_to", self)
        return alias

    # ---- array views: numpy, DLPack, the CUDA array interface ----
    def _interface(self) -> dict:
        if self._shape.is_dynamic:
            raise ValueError("the tensor's shape is data-dependent (-1 extents); call aliased(shape) with the real "
                             "shape first")
        strides = self._view_strides()
        if strides is None:
            raise ValueError(f"the tensor's format is {self._format}, whose layout strides cannot describe; only "
                             "LINEAR and channels-last tensors have an array interface")
        typestr = _typestr(self._dtype, host=self._location == _HOST)
        itemsize = int(typestr[2:])
        linear = self._format == _kiln.TensorFormat.LINEAR
        return {
            "version": 3,
            "shape": tuple(self._shape),
            "typestr": typestr,
            "data": (self._data_ptr, self._read_only),
            "strides": None if linear else tuple(s * itemsize for s in strides),
        }

    @property
    def __array_interface__(self) -> dict:
        """numpy's array interface over host memory (kiln's host backend only)."""
        if self._location != _HOST:
            raise AttributeError("__array_interface__: this Tensor wraps device memory; use "
                                 "__cuda_array_interface__ (torch.as_tensor(t, device='cuda'), cupy.asarray(t))")
        return self._interface()

    def numpy(self) -> Any:
        """kiln's addition: a numpy array viewing the tensor's host memory (no copy), writable unless the tensor is
        an input. Valid only during the impl call."""
        import numpy as np

        if self._location != _HOST:
            raise ValueError("numpy(): this Tensor wraps device memory, which numpy cannot view")
        return np.asarray(self)

    def __dlpack__(self, stream: Any = None, *, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> Any:
        """A DLPack capsule viewing the tensor's memory (no copy), device or host: the array API standard's
        ``__dlpack__``, which ``torch.from_dlpack(t)``, ``cupy.from_dlpack(t)`` and ``np.from_dlpack(t)`` call. On
        the device, stream is the consumer's (see :mod:`._dlpack`); the capsule is versioned when max_version is
        (1, 0) or later. DLPack has no read-only mark kiln sets: inputs are exported writable, as TensorRT marks them
        read-only without enforcing it. Valid only during the impl call."""
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> Tuple[int, int]:
        """``(2, ordinal)`` (kDLCUDA) for device memory, ``(1, 0)`` (kDLCPU) for host memory."""
        return _dlpack.device(self)

    @property
    def __cuda_array_interface__(self) -> dict:
        """The CUDA array interface (version 3) over device memory, with the plugin's stream."""
        if self._location != _DEVICE:
            raise AttributeError("__cuda_array_interface__: this Tensor wraps host memory (kiln's host backend); "
                                 "use numpy() or np.asarray(t)")
        interface = self._interface()
        interface["data"] = (self._data_ptr, False)
        interface["strides"] = tuple(s * _itemsize(self._dtype) for s in self._view_strides())
        interface["stream"] = self._stream if self._stream != 0 else 1  # CAI: 1 is the legacy default stream
        return interface

    def __repr__(self) -> str:
        where = "host" if self._location == _HOST else "device"
        return f"Tensor({where}, dtype={self._dtype}, shape={tuple(self._shape)})"


def _itemsize(dtype: Any) -> int:
    import numpy as np

    return np.dtype(nptype(dtype)).itemsize


def _address(view: Any) -> int:
    """The host address of a numpy view or a PluginHostBuffer."""
    if isinstance(view, _kiln.PluginHostBuffer):
        return int(view.address)
    return int(view.__array_interface__["data"][0])


def _host_tensor(view: Any, desc: Any, read_only: bool) -> Tensor:
    """A host Tensor of what enqueue_host passed for one tensor: a numpy view, or a PluginHostBuffer when kiln does
    not know its size (a data-dependent output, a format other than LINEAR)."""
    return Tensor(_address(view), desc.type, Shape(desc.dims), desc.format, desc.scale, _location=_HOST,
                  _read_only=read_only, _keep=view)


def _device_tensor(address: int, desc: Any, stream: int) -> Tensor:
    return Tensor(address, desc.type, Shape(desc.dims), desc.format, desc.scale, _location=_DEVICE, _stream=stream)
