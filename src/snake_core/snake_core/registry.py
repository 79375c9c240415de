"""Parameters that describe themselves, and registries of plug-in modules (gaits, head trackers).

A gait, a head tracker, an SEA controller mode, a node, a scenario's section (sim, world, outputs, each model's robot,
world and contact) publishes its parameters beside its code as :class:`Param` entries (name, type, default, range,
unit, description, the source's equation or table). From them, and only from them, the scenarios' and ``--set``
values are validated (:func:`checked`), the nodes declare their ROS parameters
(snake_control.ros_interface.declare_param) and the docs print their tables (:func:`param_table`). A
:class:`Registry` maps each name to a function that imports its module (``GAITS``, ``TRACKERS``): adding one is
adding its module and its loader.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from .validation import ConfigError, choice, flag, get, integer, number, per_joint, range_text, reject_unknown


@dataclass(frozen=True)
class Param:
    """One parameter of a gait, a tracker, a controller mode, a node or a scenario's section.

    ``default``: the paper's value (what a node starts with; None: no default, the user must give it
    (``required``), or it is unset, and the owner computes it or leaves it out, as the description says).
    ``low``/``high``: the accepted range (None: unbounded; ``low_open``/``high_open``: the bound itself excluded).
    ``vector``: a number or a list of numbers (a diagonal gain, one value per joint); ``size``: a list of ``size``
    values (0: of any length), each of :attr:`kind` within the range; ``scalar`` False: not a number at all (e.g. a
    mapping of control points, checked by its owner), given in scenarios only. ``kind``: the type of a value
    (float, int, bool or str; a str takes one of ``choices``, the first its default, or any non-empty one, empty
    too if the default is: none). ``source``: where the value and its range come from, as the errors and the docs
    cite it (e.g. "002 Table 7.1").
    """

    name: str
    default: Any
    unit: str
    description: str
    low: float | None = None
    high: float | None = None
    vector: bool = False
    scalar: bool = True
    low_open: bool = False
    high_open: bool = False
    kind: type = float
    choices: tuple[str, ...] = ()
    source: str = ""
    required: bool = False
    size: int | None = None

    @property
    def text(self) -> str:
        """The description with its unit and source, as a node's parameter description."""
        unit = f" [{self.unit}]" if self.unit else ""
        cited = f" ({self.source})" if self.source else ""
        return f"{self.description}{unit}{cited}"

    @property
    def range(self) -> str:
        """The accepted values as the errors and the docs print them ("> 0", "in (0, 10]", "alpha, beta")."""
        if self.choices:
            return ", ".join(c or "empty" for c in self.choices)
        return self._bounds.strip()

    @property
    def _bounds(self) -> str:
        return range_text(self.low, self.high, self.low_open, self.high_open)

    @property
    def _list(self) -> str:
        """A list parameter's type as the errors and the docs name it ("list of 2 numbers")."""
        return f"list of {self.size or 'any number of'} {'integers' if self.kind is int else 'numbers'}"

    def check(self, value: Any, field: str, source: str | None = None, n_joints: int | None = None) -> Any:
        """``value`` of type :attr:`kind` within the range (one per joint if :attr:`vector` and ``n_joints``, a tuple
        of :attr:`size` if it is set); a one-line ConfigError naming ``field``, the range and :attr:`source`
        otherwise. A mapping (not :attr:`scalar`) is its owner's to check."""
        try:
            if not self.scalar:
                return value
            if self.size is not None:
                if not isinstance(value, (list, tuple)) or (self.size and len(value) != self.size):
                    raise ConfigError(field, value, f"must be a {self._list}{self._bounds}", source)
                one = replace(self, size=None, source="")
                return tuple(one.check(v, f"{field}[{i}]", source) for i, v in enumerate(value))
            if self.choices:
                return choice(value, field, self.choices, source)
            if self.kind is str:
                if not isinstance(value, str) or not (value or self.default == ""):
                    raise ConfigError(field, value, "must be a non-empty string", source)
                return value
            if self.kind is bool:
                return flag(value, field, source)
            if self.kind is int:
                return integer(value, field, source, low=self.low, high=self.high)
            if self.vector and n_joints is not None:
                return per_joint(value, n_joints, field, source, low=self.low, low_open=self.low_open,
                                 high=self.high)
            return number(value, field, source, low=self.low, high=self.high, low_open=self.low_open,
                          high_open=self.high_open)
        except ConfigError as exc:
            if not self.source:
                raise
            raise ConfigError(exc.field, exc.value, f"{exc.allowed} ({self.source})", exc.source) from None


def checked(mapping: Mapping[str, Any], params: Sequence[Param], path: str, source: str | None = None, *,
            n_joints: int | None = None, also: Sequence[str] = ()) -> dict[str, Any]:
    """name → value of each of ``params`` in ``mapping`` (a scenario's ``path:`` mapping, ``--set path.*``
    included), checked by :meth:`Param.check`, the default where it is unset (None: the owner computes it; a
    ``required`` one missing is an error; ``path`` "": the top level of a file). A key that is neither a parameter nor
    in ``also`` is refused, and so is a ``mapping`` that is none."""
    if not isinstance(mapping, Mapping):
        raise ConfigError(path or "<root>", mapping, "must be a mapping", source)
    reject_unknown(mapping, (*also, *param_names(params)), path, source)
    out = {}
    for p in params:
        value = get(mapping, p.name, path, source) if p.required else get(mapping, p.name, path, source, p.default)
        field = f"{path}.{p.name}" if path else p.name
        out[p.name] = None if value is None else p.check(value, field, source, n_joints)
    return out


def defaults(params: Sequence[Param]) -> dict[str, Any]:
    """name → default of ``params`` (None where the owner computes it or the user must give it)."""
    return {p.name: p.default for p in params}


#: How the docs name a parameter's type.
KIND_NAMES = {float: "number", int: "integer", bool: "true or false", str: "string"}


def param_table(params: Sequence[Param], prefix: str) -> str:
    """The Markdown table of ``params`` as the docs print it (one row each: ``<prefix>.<name>`` (``<name>`` without a
    prefix), type, default, range, unit, description, source)."""
    rows = ["| parameter | type | default | range | unit | meaning | source |", "|---|---|---|---|---|---|---|"]
    for p in params:
        name = f"{prefix}.{p.name}" if prefix else p.name
        rows.append(f"| `{name}` | {_kind_text(p)} | {_default_text(p)} | {p.range or 'any'} | {p.unit or '-'} | "
                    f"{p.description} | {p.source or '-'} |")
    return "\n".join(rows)


def _kind_text(p: Param) -> str:
    """A parameter's type as the docs name it."""
    if not p.scalar:
        return "see meaning"
    if p.size is not None:
        return p._list
    return "string" if p.choices else "number or list (per joint)" if p.vector else KIND_NAMES[p.kind]


def _default_text(p: Param) -> str:
    """A parameter's default as the docs print it."""
    if p.default is None:
        return "required" if p.required else "unset"
    if isinstance(p.default, tuple):
        return f"[{', '.join(f'{v:g}' for v in p.default)}]"
    if isinstance(p.default, float):
        return f"{p.default:g}"
    return str(p.default).lower() if isinstance(p.default, bool) else str(p.default) or "empty"


class Entry(Protocol):
    """What a registry holds: a named thing with parameters."""

    name: str
    params: tuple[Param, ...]


E = TypeVar("E", bound=Entry)


def param_names(params: Sequence[Param]) -> tuple[str, ...]:
    """The names of ``params`` in order."""
    return tuple(p.name for p in params)


class Registry(Generic[E]):
    """name → entry, each loaded by a function of its package that imports its module (a plain import, which static
    tools and the import-graph test see) the first time it is asked for: a run of one gait loads no other.
    ``field`` names the choice in errors (e.g. ``gait.type``)."""

    def __init__(self, loaders: Mapping[str, Callable[[], E]], field: str):
        self.loaders, self.field = dict(loaders), field
        self._loaded: dict[str, E] = {}

    @property
    def entries(self) -> dict[str, E]:
        """Every entry, loaded."""
        for name in self.loaders:
            self._load(name)
        return self._loaded

    def get(self, name: Any, source: str | None = None) -> E:
        """The entry ``name``; a ConfigError naming ``field`` and the known names otherwise."""
        if isinstance(name, str) and name in self._loaded:  # a list or a mapping from YAML: the ConfigError below
            return self._loaded[name]
        return self._load(choice(name, self.field, tuple(self.loaders), source))

    def _load(self, name: str) -> E:
        if name not in self._loaded:
            entry = self.loaders[name]()
            if entry.name != name:
                raise ValueError(f"registry entry {name!r} loads {entry.name!r}")
            self._loaded[name] = entry
        return self._loaded[name]


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
                out[p.name] = (replace(p, default=default), f"{p.text} ({owner})")
                continue
            q, text = out[p.name]
            low = None if q.low is None or p.low is None else min(q.low, p.low)
            high = None if q.high is None or p.high is None else max(q.high, p.high)
            out[p.name] = (replace(q, low=low, high=high, vector=q.vector or p.vector), f"{text}; {p.text} ({owner})")
    return out
