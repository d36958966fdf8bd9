# SPDX-License-Identifier: Apache-2.0
""":class:`AutoTuneCombination`: the type/format combinations (and custom tactics) an ``@autotune`` function offers.

``io_types`` lists one spec per input, then per output, separated by commas. A spec is one type, ``A|B|…`` (a
**dependent** choice: the k-th entry of every ``|`` spec goes together, so all of them have the same length) or
``A*B*…`` (an **independent** choice, crossed with everything else). Type names are ``DataType`` member names plus
``FP32`` and ``FP16``. ``layouts`` has the same syntax with ``TensorFormat`` names (default ``LINEAR``; a single
spec applies to every input and output). ``tactics`` are positive ints, the same for each combination generated.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from .. import _kiln

_TYPE_ALIASES = {"FP32": "FLOAT", "FP16": "HALF"}


class _Spec:
    """One I/O position's choices: a list of names and whether they are dependent ('|') or independent ('*')."""

    def __init__(self, text: str, kind: str):
        text = text.strip()
        if not text:
            raise ValueError(f"AutoTuneCombination: an empty {kind} spec")
        if "|" in text and "*" in text:
            raise ValueError(f"AutoTuneCombination: {text!r} mixes '|' and '*'; use one separator per spec")
        self.mode = "|" if "|" in text else "*" if "*" in text else None
        self.values = [_resolve(part.strip(), kind) for part in text.replace("*", "|").split("|")]


def _resolve(name: str, kind: str) -> Any:
    if kind == "type":
        member = _TYPE_ALIASES.get(name.upper(), name.upper())
        if member not in _kiln.DataType.__members__:
            raise ValueError(f"AutoTuneCombination: unknown type {name!r} (DataType member names, FP32 or FP16)")
        return _kiln.DataType.__members__[member]
    member = name.upper()
    if member not in _kiln.TensorFormat.__members__:
        raise ValueError(f"AutoTuneCombination: unknown layout {name!r} (TensorFormat member names)")
    return _kiln.TensorFormat.__members__[member]


def _parse(text: str, kind: str) -> List[_Spec]:
    return [_Spec(part, kind) for part in text.split(",")]


def _expand(specs: Sequence[_Spec]) -> List[Tuple[Any, ...]]:
    """Every combination the specs allow: the dependent ('|') specs move together, the independent ('*') ones are
    crossed with them."""
    lengths = {len(spec.values) for spec in specs if spec.mode == "|"}
    if len(lengths) > 1:
        raise ValueError("AutoTuneCombination: all '|' specs must list the same number of choices")
    dependent = lengths.pop() if lengths else 1
    combos = []
    for k in range(dependent):
        choices = []
        for spec in specs:
            if spec.mode == "|":
                choices.append([spec.values[k]])
            else:
                choices.append(spec.values)
        combos.extend(itertools.product(*choices))
    return combos


class AutoTuneCombination:
    """Type/format combinations and custom tactics: see the module's description for the syntax. :meth:`pos`
    sets the specs of some positions at a time."""

    def __init__(self, io_types: Optional[str] = None, layouts: Optional[str] = None,
                 tactics: Optional[Iterable[int]] = None):
        self._types: Dict[int, _Spec] = {}
        self._layouts: Dict[int, _Spec] = {}
        self._all_types: Optional[List[_Spec]] = _parse(io_types, "type") if io_types is not None else None
        self._all_layouts: Optional[List[_Spec]] = _parse(layouts, "layout") if layouts is not None else None
        self._tactics: List[int] = []
        if tactics is not None:
            self.tactics(tactics)

    def pos(self, pos: Iterable[int], io_types: str, layouts: str = "LINEAR") -> None:
        """Sets the type and layout specs of the I/O positions in ``pos`` (inputs first, then outputs)."""
        positions = [pos] if isinstance(pos, int) else list(pos)
        if self._all_types is not None:
            raise ValueError("AutoTuneCombination.pos(): io_types was already given for every position")
        for p in positions:
            if p in self._types:
                raise ValueError(f"AutoTuneCombination.pos(): position {p} is already set")
            self._types[p] = _Spec(io_types, "type")
            self._layouts[p] = _Spec(layouts, "layout")

    def tactics(self, tactics: Iterable[int]) -> None:
        """Sets the custom tactics (positive ints) of every combination this object generates."""
        values = [int(t) for t in tactics]
        if any(t <= 0 for t in values):
            raise ValueError(f"AutoTuneCombination: tactics must be positive ints, got {values}")
        self._tactics = values

    def _combinations(self, num_io: int) -> List[Tuple[Tuple[Any, ...], Tuple[Any, ...], Tuple[int, ...]]]:
        """(types, formats, tactics) for each combination, over num_io inputs and outputs."""
        if self._all_types is not None:
            types = self._all_types
        else:
            missing = [p for p in range(num_io) if p not in self._types]
            if missing:
                raise ValueError(f"AutoTuneCombination: positions {missing} have no io_types")
            types = [self._types[p] for p in range(num_io)]
        if len(types) != num_io:
            raise ValueError(f"AutoTuneCombination: io_types has {len(types)} specs; the plugin has {num_io} inputs "
                             "and outputs")
        if self._all_layouts is not None:
            layouts = self._all_layouts
        elif self._layouts:
            layouts = [self._layouts.get(p, _Spec("LINEAR", "layout")) for p in range(num_io)]
        else:
            layouts = [_Spec("LINEAR", "layout")]
        if len(layouts) == 1:
            layouts = layouts * num_io
        if len(layouts) != num_io:
            raise ValueError(f"AutoTuneCombination: layouts has {len(layouts)} specs; the plugin has {num_io} inputs "
                             "and outputs")
        tactics = tuple(self._tactics)
        return [(t, f, tactics) for t in _expand(types) for f in _expand(layouts)]

    def __repr__(self) -> str:
        return f"AutoTuneCombination(tactics={self._tactics})"


def merge(combinations: Iterable[AutoTuneCombination], num_io: int) -> List[Tuple[Tuple[Any, ...], Tuple[Any, ...],
                                                                                  Tuple[int, ...]]]:
    """The distinct (types, formats) combinations in the order first listed, each with the union of its tactics."""
    merged: Dict[Tuple[Tuple[Any, ...], Tuple[Any, ...]], List[int]] = {}
    for combination in combinations:
        if not isinstance(combination, AutoTuneCombination):
            raise ValueError(f"the autotune function returned a {type(combination).__name__} in its list; it must "
                             "return a list of AutoTuneCombination")
        for types, formats, tactics in combination._combinations(num_io):
            key = (tuple(int(t) for t in types), tuple(int(f) for f in formats))
            into = merged.setdefault(key, [])
            into.extend(t for t in tactics if t not in into)
    return [(types, formats, tuple(tactics)) for (types, formats), tactics in merged.items()]
