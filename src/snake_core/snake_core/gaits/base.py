"""The interface every gait implements, and the entry each gait module registers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..registry import Param

#: Joint references are refused beyond this magnitude (docs/design.md "Bad input", 002 §3.3: ±60°).
MAX_REFERENCE = np.pi / 3
#: Largest |ω| of a gait's temporal frequency accepted [rad/s].
MAX_FREQUENCY = 50.0


class Gait(Protocol):
    """Joint-space reference generator; joint order tail (1) → head (N−1)."""

    n_joints: int

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Desired relative joint angles α_d and rates α̇_d at time ``t`` [s], shape (n_joints,)."""
        ...


@dataclass(frozen=True)
class GaitSpec:
    """A gait as its module registers it (``GAIT = GaitSpec(...)``): the ``gait.type`` name, its parameters
    (``gait.<name>``; defaults are the paper's values, scenarios give every parameter without one or state
    them all) and ``build(n_joints, params, source) -> Gait``, which validates ``params``."""

    name: str
    params: tuple[Param, ...]
    build: Callable[[int, Mapping[str, Any], str | None], Gait]

    def defaults(self) -> dict[str, Any]:
        """The parameters that have a default, as a ``gait`` mapping."""
        return {p.name: p.default for p in self.params if p.default is not None}
