"""Parameters that describe themselves, and registries of plug-in modules (gaits, head trackers).

A gait or a head tracker publishes its parameters beside its code as :class:`Param` entries (name, default,
range, unit, description); the nodes declare their ROS parameters from them and the runtimes dispatch by name
through a :class:`Registry`. A registry finds its entries by importing every module of a package that
defines the registry's attribute (e.g. ``GAIT``), so adding one is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .validation import choice


@dataclass(frozen=True)
class Param:
    """One parameter of a gait or tracker.

    ``default``: the paper's value (what a node starts with; None: no default, the user must give it, or the
    owner computes it, as the description says). ``low``/``high``: the accepted range (None: unbounded).
    ``vector``: a number or a list of numbers (a diagonal gain); ``scalar`` False: not a number at all (e.g.
    a mapping of control points), given in scenarios only.
    """

    name: str
    default: Any
    unit: str
    description: str
    low: float | None = None
    high: float | None = None
    vector: bool = False
    scalar: bool = True

    @property
    def text(self) -> str:
        """The description with its unit, as a node's parameter description."""
        return f"{self.description} [{self.unit}]" if self.unit else self.description


class Entry(Protocol):
    """What a registry holds: a named thing with parameters."""

    name: str
    params: tuple[Param, ...]


E = TypeVar("E", bound=Entry)


def param_names(params: Sequence[Param]) -> tuple[str, ...]:
    """The names of ``params`` in order."""
    return tuple(p.name for p in params)


class Registry(Generic[E]):
    """name → entry, found in the modules of ``package`` that define ``attribute`` (imported on first use)."""

    def __init__(self, package: str, attribute: str, field: str):
        self.package, self.attribute, self.field = package, attribute, field
        self._entries: dict[str, E] | None = None

    @property
    def entries(self) -> dict[str, E]:
        if self._entries is None:
            found = {}
            for info in pkgutil.iter_modules(importlib.import_module(self.package).__path__):
                entry = getattr(importlib.import_module(f"{self.package}.{info.name}"), self.attribute, None)
                if entry is not None:
                    found[entry.name] = entry
            self._entries = found
        return self._entries

    def get(self, name: Any, source: str | None = None) -> E:
        """The entry ``name``; a ConfigError naming ``field`` and the known names otherwise."""
        return self.entries[choice(name, self.field, tuple(self.entries), source)]


def merged(params_by_owner: Mapping[str, Sequence[Param]], first: str) -> dict[str, tuple[Param, str]]:
    """One declaration per parameter name across owners (gaits sharing ``amplitude``): the default of owner
    ``first`` (None if it has no such parameter), the widest range, the descriptions joined with their owners."""
    out: dict[str, tuple[Param, str]] = {}
    order = [first, *(o for o in params_by_owner if o != first)]
    for owner in order:
        for p in params_by_owner[owner]:
            if not p.scalar:
                continue
            if p.name not in out:
                default = p.default if owner == first else None
                out[p.name] = (Param(p.name, default, p.unit, p.description, p.low, p.high, p.vector),
                               f"{p.text} ({owner})")
                continue
            q, text = out[p.name]
            low = None if q.low is None or p.low is None else min(q.low, p.low)
            high = None if q.high is None or p.high is None else max(q.high, p.high)
            out[p.name] = (Param(q.name, q.default, q.unit, q.description, low, high, q.vector or p.vector),
                           f"{text}; {p.text} ({owner})")
    return out
