"""Pedal wave, 002 (4.38): α_j^d = A sin(ω t + φ (j − 1)), j = 1..N−1 (tail → head).

With φ < 0 the wave travels from tail to head and the robot moves head first (the way the wave
travels along the body, see docs/readings.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..registry import Param, param_names
from ..validation import ConfigError, get, integer, number, reject_unknown
from .base import MAX_FREQUENCY, MAX_REFERENCE, GaitSpec

#: |φ| ≤ 2π: one turn between neighbouring joints [rad].
MAX_PHASE_SHIFT = 2 * np.pi

#: The parameters of 002 (4.38); defaults are 002 §5's reference experiment: A = π/6, ω = π rad/s, φ = −2π/5.
PARAMS = (
    Param("amplitude", np.pi / 6, "rad", "A, joint amplitude of 002 (4.38)", 0.0, MAX_REFERENCE),
    Param("frequency", np.pi, "rad/s", "ω of 002 (4.38), > 0", 0.0, MAX_FREQUENCY),
    Param("phase_shift", -2 * np.pi / 5, "rad", "φ between neighbouring joints of 002 (4.38)", -MAX_PHASE_SHIFT,
          MAX_PHASE_SHIFT),
)


@dataclass(frozen=True)
class PedalWave:
    n_joints: int
    amplitude: float  # A [rad]
    frequency: float  # ω [rad/s]
    phase_shift: float  # φ [rad]
    _phase: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_phase", self.phase_shift * np.arange(self.n_joints, dtype=float))  # φ (j − 1)

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        arg = self.frequency * t + self._phase  # 002 (4.38)
        return self.amplitude * np.sin(arg), self.amplitude * self.frequency * np.cos(arg)


def from_params(n_joints: int, params: Mapping[str, Any], source: str | None = None) -> PedalWave:
    reject_unknown(params, ("type", *param_names(PARAMS)), "gait", source)
    integer(n_joints, "robot.n_joints", source, low=1)
    amplitude = number(get(params, "amplitude", "gait", source), "gait.amplitude", source, low=0.0)
    if amplitude > MAX_REFERENCE:
        raise ConfigError("gait.amplitude", amplitude, f"must be <= {MAX_REFERENCE:.4f} rad (the ±60° joint limit)",
                          source)
    return PedalWave(
        n_joints=n_joints,
        amplitude=amplitude,
        frequency=number(get(params, "frequency", "gait", source), "gait.frequency", source, low=0.0,
                         high=MAX_FREQUENCY, low_open=True),
        phase_shift=number(get(params, "phase_shift", "gait", source), "gait.phase_shift", source,
                           low=-MAX_PHASE_SHIFT, high=MAX_PHASE_SHIFT),
    )


GAIT = GaitSpec("pedal_wave", PARAMS, from_params)
#: 002 §5's reference experiment as gait parameters (as in scenarios).
REFERENCE_GAIT = GAIT.defaults()
