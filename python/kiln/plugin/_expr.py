# SPDX-License-Identifier: Apache-2.0
"""Symbolic extents for ``@register`` functions: :class:`ShapeExpr` (one int32 extent), :class:`ShapeExprs` (a
shape of them), :class:`SizeTensorShapeExpr` (the extent a size-tensor output holds) and :func:`cdiv`, :func:`max`,
:func:`min`.

A ``ShapeExpr`` is one of three things:

* **bound**: it wraps an ``IDimensionExpr`` of the expression builder that kiln passed to ``get_output_shapes``, and
  arithmetic on it asks that builder (``IExprBuilder.operation``);
* **constant**: a plain int, folded in Python until it meets a bound expression;
* **fake**: what ``register`` sees when it is called only to learn the output types (``get_output_data_types``
  gives no shapes). A fake absorbs every operation; asking for its value raises ``RuntimeError``.
"""

from __future__ import annotations

import builtins
from typing import Any, Iterable, Iterator, List, Optional, Union

from .. import _kiln

_Op = _kiln.DimensionOperation

MAX_DIMS = 8


class _UnknownRank(RuntimeError):
    """Raised by fake shapes of unknown rank (an ONNX-imported plugin asked for its output types) when the
    ``register`` function needs the rank."""


def _fold(op: Any, a: int, b: int) -> int:
    if op == _Op.SUM:
        return a + b
    if op == _Op.SUB:
        return a - b
    if op == _Op.PROD:
        return a * b
    if op == _Op.FLOOR_DIV:
        return a // b
    if op == _Op.CEIL_DIV:
        return -(-a // b)
    if op == _Op.MAX:
        return builtins.max(a, b)
    if op == _Op.MIN:
        return builtins.min(a, b)
    if op == _Op.EQUAL:
        return int(a == b)
    if op == _Op.LESS:
        return int(a < b)
    raise ValueError(f"unknown DimensionOperation {op}")


class ShapeExpr:
    """One symbolic int32 extent. ``+ - * //`` (SUM, SUB, PROD, FLOOR_DIV), ``==`` (EQUAL) and ``<`` (LESS) take
    ints or other ``ShapeExpr``s and give a new ``ShapeExpr``; :func:`cdiv`, :func:`max` and :func:`min` give the
    others. ``ShapeExpr(5)`` is the constant 5."""

    __hash__ = None  # == builds an expression

    def __init__(self, value: Union[int, "ShapeExpr", Any, None] = None):
        self._expr = None  # the IDimensionExpr, when bound
        self._builder = None
        self._const: Optional[int] = None
        self._fake = False
        if isinstance(value, ShapeExpr):
            self._expr, self._builder, self._const, self._fake = value._expr, value._builder, value._const, value._fake
        elif isinstance(value, bool):
            raise ValueError("ShapeExpr: a bool is not an extent")
        elif isinstance(value, int):
            self._const = int(value)
        elif value is None:
            self._fake = True
        elif isinstance(value, _kiln.IDimensionExpr):
            raise ValueError("ShapeExpr: an IDimensionExpr needs its builder; use the descriptors kiln passes")
        else:
            raise ValueError(f"ShapeExpr: cannot make an extent of a {type(value).__name__}")

    @classmethod
    def _bound(cls, expr: Any, builder: Any) -> "ShapeExpr":
        self = cls.__new__(cls)
        ShapeExpr.__init__(self, 0)
        self._const = None
        self._expr, self._builder = expr, builder
        return self

    @classmethod
    def _make_fake(cls) -> "ShapeExpr":
        return cls(None)

    # ---- what it is ----
    @property
    def is_fake(self) -> bool:
        """True while ``register`` runs only to give the output types: no value can be read."""
        return self._fake

    @property
    def is_constant(self) -> bool:
        self._check_real("is_constant")
        return self._const is not None or bool(self._expr.is_constant())

    @property
    def is_size_tensor(self) -> bool:
        self._check_real("is_size_tensor")
        return self._expr is not None and bool(self._expr.is_size_tensor())

    def constant_value(self) -> int:
        """The value of a constant extent; ``ValueError`` for one that depends on the inputs' shapes."""
        self._check_real("constant_value")
        if self._const is not None:
            return self._const
        if not self._expr.is_constant():
            raise ValueError("constant_value(): the extent is not a constant")
        return int(self._expr.get_constant_value())

    def __bool__(self) -> bool:
        return self.constant_value() != 0

    def __int__(self) -> int:
        return self.constant_value()

    def _check_real(self, what: str) -> None:
        if self._fake:
            raise RuntimeError(
                f"ShapeExpr.{what}: this extent is fake (the register function is being called only for the output "
                "types), so it has no value"
            )

    # ---- arithmetic ----
    def _materialize(self, builder: Any) -> Any:
        """The IDimensionExpr of this extent in builder's expressions."""
        if self._expr is not None:
            return self._expr
        return builder.constant(self._const)

    def _op(self, op: Any, other: Any, reverse: bool = False) -> "ShapeExpr":
        return _operation(op, other, self) if reverse else _operation(op, self, other)

    def __add__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.SUM, other)

    def __radd__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.SUM, other, True)

    def __sub__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.SUB, other)

    def __rsub__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.SUB, other, True)

    def __mul__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.PROD, other)

    def __rmul__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.PROD, other, True)

    def __floordiv__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.FLOOR_DIV, other)

    def __rfloordiv__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.FLOOR_DIV, other, True)

    def __eq__(self, other: Any) -> "ShapeExpr":  # type: ignore[override]
        return self._op(_Op.EQUAL, other)

    def __lt__(self, other: Any) -> "ShapeExpr":
        return self._op(_Op.LESS, other)

    def __repr__(self) -> str:
        if self._fake:
            return "ShapeExpr(fake)"
        if self._const is not None:
            return f"ShapeExpr({self._const})"
        if self._expr.is_constant():
            return f"ShapeExpr({self._expr.get_constant_value()})"
        return "ShapeExpr(?)"


class SizeTensorShapeExpr(ShapeExpr):
    """The extent a size-tensor output holds (:meth:`SizeTensorDesc.expr`): usable as an extent of another output,
    but not in arithmetic."""

    def __init__(self, size_tensor: Any):
        ShapeExpr.__init__(self, None)
        self._fake = False
        self._size_tensor = size_tensor

    @property
    def is_fake(self) -> bool:
        return False

    @property
    def is_constant(self) -> bool:
        return False

    @property
    def is_size_tensor(self) -> bool:
        return True

    def constant_value(self) -> int:
        raise ValueError("constant_value(): a size tensor's extent is known only when the plugin runs")

    def _op(self, op: Any, other: Any, reverse: bool = False) -> "ShapeExpr":
        raise ValueError("a size tensor's extent (SizeTensorDesc.expr()) cannot take part in arithmetic")

    def _materialize(self, builder: Any) -> Any:
        declared = self._size_tensor._declared
        if declared is None:
            raise ValueError(
                "an output uses a size tensor's expr(), but that size tensor is not among the outputs the register "
                "function returned"
            )
        return declared

    def __repr__(self) -> str:
        return "SizeTensorShapeExpr()"


def _as_expr(value: Any, what: str) -> ShapeExpr:
    if isinstance(value, ShapeExpr):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return ShapeExpr(value)
    raise ValueError(f"{what}: expected an int or a ShapeExpr, got a {type(value).__name__}")


def _operation(op: Any, a: Any, b: Any) -> ShapeExpr:
    a, b = _as_expr(a, "ShapeExpr arithmetic"), _as_expr(b, "ShapeExpr arithmetic")
    for side in (a, b):
        if isinstance(side, SizeTensorShapeExpr):
            side._op(op, None)  # raises
    if a._fake or b._fake:
        return ShapeExpr._make_fake()
    if a._const is not None and b._const is not None:
        return ShapeExpr(_fold(op, a._const, b._const))
    builder = a._builder if a._builder is not None else b._builder
    return ShapeExpr._bound(builder.operation(op, a._materialize(builder), b._materialize(builder)), builder)


def _binary(name: str, op: Any, a: Any, b: Any) -> ShapeExpr:
    if not isinstance(a, ShapeExpr) and not isinstance(b, ShapeExpr):
        raise ValueError(f"{name}(): at least one argument must be a ShapeExpr (for two ints use Python's own)")
    return _operation(op, a, b)


def cdiv(first: Union[int, ShapeExpr], second: Union[int, ShapeExpr]) -> ShapeExpr:
    """``ceil(first / second)`` (CEIL_DIV); at least one argument must be a ShapeExpr."""
    return _binary("cdiv", _Op.CEIL_DIV, first, second)


def max(first: Union[int, ShapeExpr], second: Union[int, ShapeExpr]) -> ShapeExpr:  # noqa: A001
    """The larger extent (MAX); at least one argument must be a ShapeExpr."""
    return _binary("max", _Op.MAX, first, second)


def min(first: Union[int, ShapeExpr], second: Union[int, ShapeExpr]) -> ShapeExpr:  # noqa: A001
    """The smaller extent (MIN); at least one argument must be a ShapeExpr."""
    return _binary("min", _Op.MIN, first, second)


class ShapeExprs:
    """A shape of :class:`ShapeExpr` extents: ``len``, iteration, ``[i]``, ``[i] = int or ShapeExpr``;
    ``IndexError`` past the end, ``ValueError`` over 8 extents."""

    def __init__(self, length: int, _fake: bool = False):
        if not isinstance(length, int) or length < 0:
            raise ValueError(f"ShapeExprs: length must be a non-negative int, got {length!r}")
        if length > MAX_DIMS:
            raise ValueError(f"ShapeExprs: {length} extents; at most {MAX_DIMS} are allowed")
        self._items: List[ShapeExpr] = [ShapeExpr._make_fake() if _fake else ShapeExpr(0) for _ in range(length)]
        self._immutable = False

    @classmethod
    def from_tuple(cls, shape_exprs: Iterable[Union[int, ShapeExpr]]) -> "ShapeExprs":
        items = [_as_expr(value, "ShapeExprs.from_tuple") for value in shape_exprs]
        shape = cls(len(items))
        shape._items = items
        return shape

    def numel(self) -> ShapeExpr:
        """The product of the extents (1 for a 0-D shape)."""
        total: ShapeExpr = ShapeExpr(1)
        for item in self:
            total = total * item
        return total

    def _copy(self) -> "ShapeExprs":
        return ShapeExprs.from_tuple(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[ShapeExpr]:
        return iter(list(self._items))

    def __getitem__(self, index: int) -> ShapeExpr:
        try:
            return self._items[index]
        except IndexError:
            raise IndexError(f"ShapeExprs index {index} out of range for {len(self._items)} extents") from None

    def __setitem__(self, index: int, value: Union[int, ShapeExpr]) -> None:
        if self._immutable:
            raise ValueError("this ShapeExprs belongs to an input descriptor and cannot be changed; use like()")
        if not -len(self._items) <= index < len(self._items):
            raise IndexError(f"ShapeExprs index {index} out of range for {len(self._items)} extents")
        self._items[index] = _as_expr(value, "ShapeExprs[i] =")

    def __repr__(self) -> str:
        return "ShapeExprs(" + ", ".join(repr(item) for item in self._items) + ")"


class _UnknownRankShapeExprs(ShapeExprs):
    """The fake shape of an input whose rank kiln does not know: any index gives a fake extent; ``len`` and
    iteration raise :class:`_UnknownRank`."""

    def __init__(self) -> None:
        ShapeExprs.__init__(self, 0)

    def _copy(self) -> "ShapeExprs":
        return _UnknownRankShapeExprs()

    def numel(self) -> ShapeExpr:
        return ShapeExpr._make_fake()

    def __len__(self) -> int:
        raise _UnknownRank("the rank of an input is not known here")

    def __iter__(self) -> Iterator[ShapeExpr]:
        raise _UnknownRank("the rank of an input is not known here")

    def __getitem__(self, index: int) -> ShapeExpr:
        return ShapeExpr._make_fake()

    def __setitem__(self, index: int, value: Union[int, ShapeExpr]) -> None:
        if self._immutable:
            raise ValueError("this ShapeExprs belongs to an input descriptor and cannot be changed; use like()")
        _as_expr(value, "ShapeExprs[i] =")

    def __repr__(self) -> str:
        return "ShapeExprs(fake, rank unknown)"
