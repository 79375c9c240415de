"""Validation of user-supplied values: one clear message naming field, value and allowed range.

Every entry point of the suite (robot and scenario YAML, CLI flags, node parameters, world files,
CAN frames) reports bad input through :class:`ConfigError` so that the user sees a single line
such as ``koopaee6.yaml: links.mass = -0.15 is invalid: must be > 0``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


class _Missing:
    """The value of a required field that is absent; one instance, kept when pickled."""

    def __reduce__(self) -> str:
        return "_MISSING"


_MISSING = _Missing()


class ConfigError(ValueError):
    """A field of a configuration has a value outside what is allowed."""

    def __init__(self, field: str, value: Any, allowed: str, source: str | None = None):
        self.field = field
        self.value = value
        self.allowed = allowed
        self.source = source
        prefix = f"{source}: " if source else ""
        shown = "missing" if value is _MISSING else repr(value)
        super().__init__(f"{prefix}{field} = {shown} is invalid: {allowed}")

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        """Rebuilt from its fields when pickled (a run in a worker process reports it to the parent)."""
        return type(self), (self.field, self.value, self.allowed, self.source)


def get(mapping: Mapping[str, Any], key: str, path: str, source: str | None = None,
        default: Any = _MISSING) -> Any:
    """Return ``mapping[key]``; a missing key without default raises :class:`ConfigError`."""
    if not isinstance(mapping, Mapping):
        raise ConfigError(path or "<root>", mapping, "must be a mapping", source)
    if key in mapping and mapping[key] is not None:
        return mapping[key]
    if default is not _MISSING:
        return default
    raise ConfigError(_join(path, key), _MISSING, "is required", source)


def number(value: Any, field: str, source: str | None = None, *, low: float | None = None,
           high: float | None = None, low_open: bool = False, high_open: bool = False) -> float:
    """Check that ``value`` is a finite real number within [low, high] (open ends if asked)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(field, value, f"must be a finite number{range_text(low, high, low_open, high_open)}",
                          source)
    v = float(value)
    bad_low = low is not None and (v <= low if low_open else v < low)
    bad_high = high is not None and (v >= high if high_open else v > high)
    if bad_low or bad_high:
        raise ConfigError(field, value, "must be" + range_text(low, high, low_open, high_open), source)
    return v


def positive(value: Any, field: str, source: str | None = None) -> float:
    """A finite number > 0."""
    return number(value, field, source, low=0.0, low_open=True)


def non_negative(value: Any, field: str, source: str | None = None) -> float:
    """A finite number >= 0."""
    return number(value, field, source, low=0.0)


def integer(value: Any, field: str, source: str | None = None, *, low: int | None = None,
            high: int | None = None) -> int:
    """An integer within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, value, f"must be an integer{range_text(low, high, False, False)}", source)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(field, value, "must be an integer" + range_text(low, high, False, False), source)
    return value


def flag(value: Any, field: str, source: str | None = None) -> bool:
    """true or false (YAML's booleans; not 0, 1 or a string)."""
    if not isinstance(value, bool):
        raise ConfigError(field, value, "must be true or false", source)
    return value


def choice(value: Any, field: str, allowed: Sequence[str], source: str | None = None) -> str:
    """One of the strings in ``allowed``."""
    if value not in allowed:
        raise ConfigError(field, value, "must be one of " + ", ".join(map(str, allowed)), source)
    return value


def per_joint(value: Any, n_joints: int, field: str, source: str | None = None, *,
              low: float | None = None, low_open: bool = False, high: float | None = None) -> tuple[float, ...]:
    """A scalar (same for every joint) or a list of ``n_joints`` numbers within [low, high], as a tuple."""
    if isinstance(value, (list, tuple)):
        if len(value) != n_joints:
            raise ConfigError(field, value, f"must be a number or a list of {n_joints} numbers (one per joint)",
                              source)
        return tuple(number(v, f"{field}[{i}]", source, low=low, low_open=low_open, high=high)
                     for i, v in enumerate(value))
    return (number(value, field, source, low=low, low_open=low_open, high=high),) * n_joints


def reject_unknown(mapping: Mapping[str, Any], known: Sequence[str], path: str, source: str | None = None) -> None:
    """Refuse keys that are not in ``known`` (a typo must not be ignored silently)."""
    for key in mapping:
        if key not in known:
            raise ConfigError(_join(path, str(key)), mapping[key], "unknown field; allowed: " + ", ".join(known),
                              source)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def range_text(low: float | None, high: float | None, low_open: bool = False, high_open: bool = False) -> str:
    """A range as the errors print it: " in [lo, hi]", " > lo", " <= hi", or "" without bounds."""
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f" {'<' if high_open else '<='} {high:g}"
    return ""
