# SPDX-License-Identifier: Apache-2.0
"""Plugin attributes: the types a ``@register`` signature may give them, and how each value becomes a
``PluginField`` (for the network, the creator's ``field_names`` and the plan) and comes back from one.

| Annotation | Field data | PluginFieldType |
| --- | --- | --- |
| ``int`` | int64 array of 1 | INT64 |
| ``float`` | float64 array of 1 | FLOAT64 |
| ``bool`` | int8 array of 1 | INT8 |
| ``str`` | the UTF-8 bytes | CHAR |
| ``bytes`` | the bytes | UNKNOWN |
| ``numpy.typing.NDArray[T]``, T in int8/16/32/64, float32/64 | the 1-D array | INT8/16/32/64, FLOAT32/64 |
| ``NDArray[bool]`` | int8 array | INT8 |
| ``NDArray[float16]`` | the bytes | UNKNOWN |

Decoding follows the annotation, not the field's type, so fields the ONNX parser makes (ints as INT32, floats as
FLOAT32, strings with a trailing NUL) decode to the same values.
"""

from __future__ import annotations

import typing
from typing import Any, Optional

import numpy as np

from .. import _kiln

_FT = _kiln.PluginFieldType

_ARRAY_FIELD_TYPES = {
    np.dtype(np.int8): _FT.INT8,
    np.dtype(np.int16): _FT.INT16,
    np.dtype(np.int32): _FT.INT32,
    np.dtype(np.int64): _FT.INT64,
    np.dtype(np.float32): _FT.FLOAT32,
    np.dtype(np.float64): _FT.FLOAT64,
    np.dtype(np.bool_): _FT.INT8,
    np.dtype(np.float16): _FT.UNKNOWN,
}


class AttrType:
    """What one attribute is: a scalar Python type or a 1-D numpy array of a dtype (None: any, lazy registration
    only)."""

    def __init__(self, name: str, kind: type, dtype: Optional[np.dtype] = None):
        self.name = name
        self.kind = kind  # int, float, bool, str, bytes or np.ndarray
        self.dtype = dtype

    def describe(self) -> str:
        if self.kind is np.ndarray:
            return f"NDArray[{self.dtype}]" if self.dtype is not None else "numpy.ndarray"
        return self.kind.__name__

    # ---- values given by the user ----
    def check(self, value: Any, plugin_id: str) -> Any:
        """value as this attribute's type, or ValueError naming the plugin and the attribute."""
        where = f"plugin {plugin_id!r}, attribute {self.name!r}"
        if self.kind is np.ndarray:
            if not isinstance(value, np.ndarray):
                raise ValueError(f"{where}: expected a numpy array ({self.describe()}), got a {type(value).__name__}")
            if self.dtype is not None and value.dtype != self.dtype:
                raise ValueError(f"{where}: expected an array of {self.dtype}, got one of {value.dtype}")
            if value.dtype not in _ARRAY_FIELD_TYPES:
                raise ValueError(f"{where}: arrays of {value.dtype} cannot be plugin attributes")
            return np.ascontiguousarray(value).reshape(-1)
        if self.kind is float and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return float(value)
        if self.kind is int and isinstance(value, np.integer):
            return int(value)
        if self.kind is float and isinstance(value, np.floating):
            return float(value)
        if self.kind is bool and isinstance(value, np.bool_):
            return bool(value)
        if not isinstance(value, self.kind) or (self.kind is int and isinstance(value, bool)):
            raise ValueError(f"{where}: expected {self.describe()}, got a {type(value).__name__}")
        return value

    # ---- fields ----
    def field(self, value: Any) -> Any:
        """The PluginField that carries value."""
        if self.kind is int:
            return _kiln.PluginField(self.name, np.array([value], np.int64), _FT.INT64)
        if self.kind is float:
            return _kiln.PluginField(self.name, np.array([value], np.float64), _FT.FLOAT64)
        if self.kind is bool:
            return _kiln.PluginField(self.name, np.array([value], np.int8), _FT.INT8)
        if self.kind is str:
            return _kiln.PluginField(self.name, np.frombuffer(value.encode("utf-8"), np.int8).copy(), _FT.CHAR)
        if self.kind is bytes:
            return _kiln.PluginField(self.name, np.frombuffer(value, np.int8).copy(), _FT.UNKNOWN)
        field_type = _ARRAY_FIELD_TYPES[value.dtype]
        if value.dtype == np.float16:
            return _kiln.PluginField(self.name, np.frombuffer(value.tobytes(), np.int8).copy(), field_type)
        if value.dtype == np.bool_:
            return _kiln.PluginField(self.name, value.astype(np.int8), field_type)
        return _kiln.PluginField(self.name, value, field_type)

    def empty_field(self) -> Any:
        """The creator's field_names entry for this attribute."""
        if self.kind is np.ndarray:
            dtype = self.dtype if self.dtype is not None else np.dtype(np.int8)
            return _kiln.PluginField(self.name, np.array([], np.int8 if dtype in (np.float16, np.bool_) else dtype),
                                     _ARRAY_FIELD_TYPES.get(dtype, _FT.UNKNOWN))
        kinds = {int: (np.int64, _FT.INT64), float: (np.float64, _FT.FLOAT64), bool: (np.int8, _FT.INT8),
                 str: (np.int8, _FT.CHAR), bytes: (np.int8, _FT.UNKNOWN)}
        dtype, field_type = kinds[self.kind]
        return _kiln.PluginField(self.name, np.array([], dtype), field_type)

    def decode(self, field: Any) -> Any:
        """The value a PluginField (from this package, the plan or the ONNX parser) carries."""
        data = np.asarray(field.data)
        if self.kind is str:
            return data.tobytes().rstrip(b"\0").decode("utf-8")
        if self.kind is bytes:
            return data.tobytes()
        if self.kind in (int, float, bool):
            if data.size != 1:
                raise ValueError(f"attribute {self.name!r}: a {self.kind.__name__} field must hold 1 value, it holds "
                                 f"{data.size}")
            return self.kind(data.reshape(-1)[0])
        if self.dtype is None:
            return data.copy()
        if self.dtype == np.float16 and field.type != _FT.FLOAT16:
            return np.frombuffer(data.tobytes(), np.float16).copy()
        return data.astype(self.dtype)


def attr_type(name: str, annotation: Any, lazy: bool) -> AttrType:
    """The AttrType of an annotation, or ValueError."""
    if annotation in (int, float, bool, str, bytes):
        return AttrType(name, annotation)
    if annotation is np.ndarray:
        if not lazy:
            raise ValueError(f"attribute {name!r}: a bare numpy.ndarray annotation is allowed only with "
                             "lazy_register=True; annotate numpy.typing.NDArray[dtype]")
        return AttrType(name, np.ndarray)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    dtype_args: tuple = ()
    if origin is np.ndarray:  # NDArray[T] is ndarray[shape, dtype[T]]
        dtype_args = typing.get_args(args[1]) if len(args) == 2 else ()
    elif typing.get_origin(getattr(origin, "__value__", None)) is np.ndarray:
        # numpy >= 2.3 on Python >= 3.12 makes NDArray a type alias (PEP 695): NDArray[T] keeps the alias as origin
        dtype_args = args
    if len(dtype_args) == 1:
        dtype = np.dtype(dtype_args[0])
        if dtype not in _ARRAY_FIELD_TYPES:
            raise ValueError(f"attribute {name!r}: arrays of {dtype} are not supported (int8, int16, int32, "
                             "int64, float16, float32, float64, bool)")
        return AttrType(name, np.ndarray, dtype)
    raise ValueError(f"attribute {name!r}: unsupported annotation {annotation!r} (int, float, bool, str, bytes or "
                     "numpy.typing.NDArray[dtype]; lists and tuples are not allowed)")
