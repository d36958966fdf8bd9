# SPDX-License-Identifier: Apache-2.0
"""Tensor descriptors for ``@register`` and ``@autotune`` functions: :class:`TensorDesc`, :class:`SizeTensorDesc`,
:class:`Shape`, :func:`from_shape_expr` and :func:`size_tensor`.

``register`` receives one immutable ``TensorDesc`` per input, with symbolic extents (``shape_expr``), and returns
the output descriptors: ``x.like()`` (same type and extents, to change), ``from_shape_expr(extents, dtype)``,
``x.aliased()`` (an in-place output that shares the input's memory) or ``size_tensor(opt, upper_bound)`` (the
element count of a data-dependent output). ``autotune`` receives descriptors with concrete ``shape``s.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional, Tuple, Union

from .. import _kiln
from ._expr import ShapeExpr, ShapeExprs, SizeTensorShapeExpr, _as_expr


class Shape:
    """Concrete extents: ``len``, iteration, ``[i]``, ``[i] = v``, :meth:`numel`; ``is_dynamic`` when an extent is
    -1; ``min``, ``opt`` and ``max`` (the optimization profile's extents) when dynamic and known."""

    def __init__(self, dims: Iterable[int] = (), min: Optional[Iterable[int]] = None,  # noqa: A002
                 opt: Optional[Iterable[int]] = None, max: Optional[Iterable[int]] = None):  # noqa: A002
        self._dims = [int(d) for d in dims]
        self._min = tuple(int(d) for d in min) if min is not None else None
        self._opt = tuple(int(d) for d in opt) if opt is not None else None
        self._max = tuple(int(d) for d in max) if max is not None else None

    @property
    def is_dynamic(self) -> bool:
        return any(d < 0 for d in self._dims)

    def _profile(self, values: Optional[Tuple[int, ...]], name: str) -> Tuple[int, ...]:
        if not self.is_dynamic:
            raise ValueError(f"Shape.{name}: the shape is not dynamic")
        if values is None:
            raise ValueError(f"Shape.{name}: the profile's extents are not known for this shape")
        return values

    @property
    def min(self) -> Tuple[int, ...]:  # noqa: A003
        return self._profile(self._min, "min")

    @property
    def opt(self) -> Tuple[int, ...]:
        return self._profile(self._opt, "opt")

    @property
    def max(self) -> Tuple[int, ...]:  # noqa: A003
        return self._profile(self._max, "max")

    def numel(self) -> int:
        if self.is_dynamic:
            raise ValueError("Shape.numel(): the shape has data-dependent or dynamic (-1) extents")
        total = 1
        for d in self._dims:
            total *= d
        return total

    def __len__(self) -> int:
        return len(self._dims)

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._dims))

    def __getitem__(self, index: int) -> int:
        return self._dims[index]

    def __setitem__(self, index: int, value: int) -> None:
        self._dims[index] = int(value)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Shape):
            return self._dims == other._dims
        try:
            return self._dims == [int(d) for d in other]
        except TypeError:
            return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"Shape({tuple(self._dims)})"


def _check_dtype(dtype: Any) -> Any:
    if dtype is not None and not isinstance(dtype, _kiln.DataType):
        raise ValueError(f"dtype must be a tensorrt.DataType, got a {type(dtype).__name__}")
    return dtype


class TensorDesc:
    """A tensor's type, format and extents as ``register``, ``autotune`` and ``aot_impl`` see them.

    ``shape_expr`` (symbolic extents) is there in ``register``; ``shape`` (concrete extents) only where
    ``has_shape`` (``autotune``), else ``ValueError``. Input descriptors are immutable (``ValueError`` on
    assignment): :meth:`like` gives a copy to change."""

    def __init__(self, shape_expr: Optional[Union[ShapeExprs, Tuple[Any, ...]]] = None, dtype: Any = None,
                 format: Any = None, scale: Optional[float] = None):  # noqa: A002
        object.__setattr__(self, "_immutable", False)
        self._shape_expr = None
        self._dtype = _check_dtype(dtype)
        self._format = format if format is not None else _kiln.TensorFormat.LINEAR
        self._scale = scale
        self._shape: Optional[Shape] = None
        self._aliased_to: Optional[TensorDesc] = None
        self._index: Optional[int] = None  # the input index, for input descriptors
        if shape_expr is not None:
            self.shape_expr = shape_expr

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_immutable", False):
            raise ValueError(f"TensorDesc.{name.lstrip('_')}: this descriptor is immutable (an input's, or aliased); "
                             "use like() for a copy to change")
        object.__setattr__(self, name, value)

    # ---- properties ----
    @property
    def dtype(self) -> Any:
        return self._dtype

    @dtype.setter
    def dtype(self, value: Any) -> None:
        self._dtype = _check_dtype(value)

    @property
    def shape_expr(self) -> ShapeExprs:
        if self._shape_expr is None:
            raise ValueError("TensorDesc.shape_expr: this descriptor has no symbolic extents")
        return self._shape_expr

    @shape_expr.setter
    def shape_expr(self, value: Union[ShapeExprs, Tuple[Any, ...]]) -> None:
        if not isinstance(value, ShapeExprs):
            value = ShapeExprs.from_tuple(value)
        self._shape_expr = value

    @property
    def shape(self) -> Shape:
        if self._shape is None:
            raise ValueError("TensorDesc.shape: concrete extents are known only in autotune (has_shape is False "
                             "here); use shape_expr")
        return self._shape

    @shape.setter
    def shape(self, value: Union[Shape, Iterable[int]]) -> None:
        self._shape = value if isinstance(value, Shape) else Shape(value)

    @property
    def format(self) -> Any:  # noqa: A003
        return self._format

    @format.setter
    def format(self, value: Any) -> None:  # noqa: A003
        self._format = value

    @property
    def scale(self) -> Optional[float]:
        return self._scale

    @scale.setter
    def scale(self, value: Optional[float]) -> None:
        self._scale = value

    @property
    def ndim(self) -> int:
        if self._shape is not None:
            return len(self._shape)
        return len(self.shape_expr)

    @property
    def has_shape(self) -> bool:
        return self._shape is not None

    @property
    def has_shape_expr(self) -> bool:
        return self._shape_expr is not None

    @property
    def is_dynamic(self) -> bool:
        return self._shape is not None and self._shape.is_dynamic

    @property
    def is_aliased(self) -> bool:
        return self._aliased_to is not None

    @property
    def is_size_tensor(self) -> bool:
        return False

    def numel(self) -> int:
        return self.shape.numel()

    # ---- copies ----
    def _copy(self) -> "TensorDesc":
        copy = TensorDesc()
        copy._dtype, copy._format, copy._scale = self._dtype, self._format, self._scale
        if self._shape_expr is not None:
            copy._shape_expr = self._shape_expr._copy()
        if self._shape is not None:
            copy._shape = Shape(self._shape, self._shape._min, self._shape._opt, self._shape._max)
        return copy

    def like(self) -> "TensorDesc":
        """A mutable copy: same type, format and extents."""
        return self._copy()

    def aliased(self) -> "TensorDesc":
        """An immutable copy for an output that shares this input's memory (an in-place output)."""
        if self._index is None:
            raise ValueError("aliased(): only an input descriptor can be aliased")
        copy = self._copy()
        copy._aliased_to = self
        return copy._freeze()

    def get_aliased(self) -> Optional["TensorDesc"]:
        """The input descriptor this output aliases, or None."""
        return self._aliased_to

    def _freeze(self) -> "TensorDesc":
        if self._shape_expr is not None:
            self._shape_expr._immutable = True
        object.__setattr__(self, "_immutable", True)
        return self

    def __repr__(self) -> str:
        parts = [f"dtype={self._dtype}"]
        if self._shape is not None:
            parts.append(f"shape={self._shape!r}")
        elif self._shape_expr is not None:
            parts.append(f"shape_expr={self._shape_expr!r}")
        return "TensorDesc(" + ", ".join(parts) + ")"


class SizeTensorDesc(TensorDesc):
    """A 0-D size-tensor output: at run time it holds the extent (an element count) of a data-dependent output,
    between 0 and ``upper_bound``; ``opt`` is the value to optimize for. Its type is int32 unless set
    (``st.dtype = trt.int64``). :meth:`expr` is that extent, for the other output's ``shape_expr``."""

    def __init__(self, opt: Union[int, ShapeExpr] = 0, upper_bound: Union[int, ShapeExpr] = 0):
        TensorDesc.__init__(self, ShapeExprs(0), _kiln.DataType.INT32)
        self._opt = _as_expr(opt, "size_tensor(opt)")
        self._upper_bound = _as_expr(upper_bound, "size_tensor(upper_bound)")
        self._declared = None  # the IDimensionExpr declare_size_tensor gave, once its index is known
        self._index_out: Optional[int] = None
        self._expr = SizeTensorShapeExpr(self)

    @property
    def opt(self) -> ShapeExpr:
        return self._opt

    @property
    def upper_bound(self) -> ShapeExpr:
        return self._upper_bound

    @property
    def index(self) -> Optional[int]:
        """The output index, once the register function has returned this size tensor."""
        return self._index_out

    @property
    def is_size_tensor(self) -> bool:
        return True

    def expr(self) -> SizeTensorShapeExpr:
        return self._expr

    def like(self) -> "TensorDesc":
        raise ValueError("like(): a size tensor cannot be copied; make another with size_tensor()")

    def __repr__(self) -> str:
        return f"SizeTensorDesc(dtype={self._dtype}, opt={self._opt!r}, upper_bound={self._upper_bound!r})"


def from_shape_expr(shape_expr: Union[ShapeExprs, Tuple[Any, ...]], dtype: Any) -> TensorDesc:
    """A descriptor of the given extents (a ShapeExprs or a tuple of ints and ShapeExprs) and type."""
    if dtype is None:
        raise ValueError("from_shape_expr(): dtype is required")
    return TensorDesc(shape_expr, dtype)


def size_tensor(opt: Union[int, ShapeExpr], upper_bound: Union[int, ShapeExpr]) -> SizeTensorDesc:
    """A size-tensor output (0-D, int32 unless its ``dtype`` is set) whose value is the extent
    :meth:`SizeTensorDesc.expr` of another, data-dependent output; ``opt`` is the value to optimize for and
    ``upper_bound`` the largest it can be."""
    return SizeTensorDesc(opt, upper_bound)
