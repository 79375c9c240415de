"""Serpenoid curve, 004 (43): φ_i = (2π T_s / n) α sin(v t − (2π T_s / n) i), i = 1..n−1.

004 numbers joints from the head (i = 1 next to the head link) and measures φ_i = θ_{i+1} − θ_i
from the head side; the phase sign is kept as printed (docs/readings.md, "004 (43)"): with v > 0
the wave travels from head to tail and the robot moves head first. :meth:`Serpenoid.phi` returns
004's φ (head → tail); :meth:`Serpenoid.reference` returns the suite's α (tail → head), with
α_j = φ_{n−j} (:mod:`snake_core.planar.convention`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..registry import Param, param_names
from ..validation import ConfigError, get, integer, non_negative, number, reject_unknown
from .base import MAX_FREQUENCY, MAX_REFERENCE, GaitSpec

#: Largest winding angle α accepted [rad].
MAX_WINDING_ANGLE = np.pi / 2

#: The parameters of 004 (43); defaults are 004 (81), the head-tracking runs' shape: α = π/3, v = 0.18 rad/s,
#: T_s = 1.
PARAMS = (
    Param("amplitude", np.pi / 3, "rad", "winding angle α of 004 (43)", 0.0, MAX_WINDING_ANGLE),
    Param("frequency", 0.18, "rad/s", "v of 004 (43)", -MAX_FREQUENCY, MAX_FREQUENCY),
    Param("periods", 1.0, "", "T_s, periods of the curve along the body, 004 (43)", 0.0),
)


@dataclass(frozen=True)
class Serpenoid:
    n_joints: int
    winding_angle: float  # α [rad]
    frequency: float  # v [rad/s]
    periods: float  # T_s, number of periods of the curve along the body
    _k: np.ndarray = field(init=False, repr=False, compare=False)  # (2π T_s / n) i

    def __post_init__(self) -> None:
        n = self.n_joints + 1
        object.__setattr__(self, "_k", 2 * np.pi * self.periods / n * np.arange(1, n, dtype=float))

    @property
    def amplitude(self) -> float:
        """Joint amplitude (2π T_s / n) α of (43) [rad]."""
        return 2 * np.pi * self.periods / (self.n_joints + 1) * self.winding_angle

    def phi(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """004's φ^r, φ̇^r, φ̈^r at time t, head → tail, (43)."""
        arg = self.frequency * t - self._k
        a, v = self.amplitude, self.frequency
        s, c = np.sin(arg), np.cos(arg)
        return a * s, a * v * c, -a * v * v * s

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        phi, phi_dot, _ = self.phi(t)
        return phi[::-1].copy(), phi_dot[::-1].copy()


def from_params(n_joints: int, params: Mapping[str, Any], source: str | None = None) -> Serpenoid:
    """``gait.amplitude`` is the winding angle α, ``gait.frequency`` v, ``gait.periods`` T_s."""
    reject_unknown(params, ("type", *param_names(PARAMS)), "gait", source)
    integer(n_joints, "robot.n_joints", source, low=1)
    gait = Serpenoid(
        n_joints=n_joints,
        winding_angle=number(get(params, "amplitude", "gait", source), "gait.amplitude", source, low=0.0,
                             high=MAX_WINDING_ANGLE),
        frequency=number(get(params, "frequency", "gait", source), "gait.frequency", source, low=-MAX_FREQUENCY,
                         high=MAX_FREQUENCY),
        periods=non_negative(get(params, "periods", "gait", source), "gait.periods", source),
    )
    if gait.amplitude > MAX_REFERENCE:
        raise ConfigError("gait.amplitude", gait.winding_angle, f"gives joint amplitude (2π T_s/n) α = "
                          f"{gait.amplitude:.4f} rad, must be <= {MAX_REFERENCE:.4f} rad (the ±60° joint limit)",
                          source)
    return gait


GAIT = GaitSpec("serpenoid", PARAMS, from_params)
