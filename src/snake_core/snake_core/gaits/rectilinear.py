"""Vertical rectilinear (travelling-hump) gait of 003 §3: a discrete-step state machine.

Each cycle has N − 1 gait steps of ``step_time`` T (5 for 6 links, :func:`snake_core.rectilinear.cycle.plan`);
in a step one closed-chain mechanism (M1, M2, M3) moves its driven joints along clamped cubic B-splines between
the boundary states 0, ±α (003 §3.5, (3.3)–(3.8)), its passive joint follows from the tip staying on the
ground ((3.19)–(3.30)), every other joint holds. The hump travels from the tail to the head and the robot
advances 2l(1 − cos α) per cycle toward the head (003 Eq. 4.1). Joint order tail → head, radians, 002's
α_j = θ_j − θ_{j+1} (see :mod:`snake_core.rectilinear.cycle` for the mapping from 003's numbering and sign).

Parameters (``gait.*``): ``angle`` α [rad] in (0, 60°]; ``step_time`` T [s]; ``control_points`` (optional):
a mapping ``{M1: [[C1, C2, C3] per driven joint], M2: …, M3: …}`` in radians for this α, in 003's local
mechanism frames (as 003 prints its C), e.g. as written by
``snake-sim rectilinear study``; by default 003's optimised C for α = 45° (§3.6), scaled by α / 45° (M3 uses
M2's, which 003 does not print separately).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..rectilinear import bspline
from ..rectilinear.cycle import N_DRIVEN, SIGN_002, StepSpec, boundary_states, plan
from ..rectilinear.mechanism import CLOSURE_LIMIT, closed_motion, driven_trajectory
from ..rectilinear.published import C_FINAL_003
from ..registry import Param, param_names
from ..validation import ConfigError, get, integer, number, positive, reject_unknown
from .base import MAX_REFERENCE, GaitSpec

#: The parameters of 003 §3's gait (no defaults: scenarios give α and T; the control points default to 003's).
PARAMS = (
    Param("angle", None, "rad", "joint angle α of the travelling hump, 003 §3, > 0", 0.0, MAX_REFERENCE),
    Param("step_time", None, "s", "duration T of one gait step, 003 §3, > 0", 0.0),
    Param("control_points", None, "rad", "B-spline control points C per mechanism M1, M2, M3, 003 (3.3)–(3.8) "
          "(default: 003's optimised C for 45°, scaled by α / 45°)", scalar=False),
)
#: Samples per step used to check a gait's references against the joint limit when it is built.
CHECK_SAMPLES = 41


@dataclass(frozen=True)
class RectilinearGait:
    n_joints: int
    angle: float  # α [rad]
    step_time: float  # T [s]
    control_points: Mapping[str, np.ndarray]  # C (n_driven, 3) per mechanism kind [rad]
    steps: tuple[StepSpec, ...] = field(init=False, repr=False)
    states: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        steps = plan(self.n_joints + 1)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "states", boundary_states(steps, self.n_joints, self.angle))

    @property
    def period(self) -> float:
        """Duration of one gait cycle, (N − 1) T [s]."""
        return len(self.steps) * self.step_time

    def step_references(self, k: int, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Joint references (len(u), n_joints) and rates during step ``k`` (0-based) at u = t/T, and sin φ_n."""
        spec = self.steps[k]
        th, thd, thdd = driven_trajectory(spec, self.angle, self.control_points[spec.kind], u, self.step_time)
        motion = closed_motion(spec, th, thd, thdd)
        alpha = np.repeat(self.states[k][None, :], len(u), axis=0)
        rate = np.zeros_like(alpha)
        alpha[:, list(spec.joints)] = SIGN_002 * motion.theta
        rate[:, list(spec.joints)] = SIGN_002 * motion.thetad
        return alpha, rate, motion.closure

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        tc = max(float(t), 0.0) % self.period
        k = min(int(tc // self.step_time), len(self.steps) - 1)
        alpha, rate, _ = self.step_references(k, np.array([tc / self.step_time - k]))
        return alpha[0], rate[0]


def from_params(n_joints: int, params: Mapping[str, Any], source: str | None = None) -> RectilinearGait:
    reject_unknown(params, ("type", *param_names(PARAMS)), "gait", source)
    integer(n_joints, "robot.n_joints", source, low=1)
    plan(n_joints + 1)  # refuses robots the construction cannot handle
    angle = number(get(params, "angle", "gait", source), "gait.angle", source, low=0.0, high=MAX_REFERENCE,
                   low_open=True)
    step_time = positive(get(params, "step_time", "gait", source), "gait.step_time", source)
    given = get(params, "control_points", "gait", source, default={})
    if not isinstance(given, Mapping):
        raise ConfigError("gait.control_points", given, "must be a mapping {M1: [[...]], M2: ..., M3: ...}", source)
    reject_unknown(given, tuple(N_DRIVEN), "gait.control_points", source)
    points = {}
    for kind, nd in N_DRIVEN.items():
        if kind in given:
            arr = np.asarray(given[kind], dtype=object)
            if arr.shape != (nd, bspline.N_FREE):
                raise ConfigError(f"gait.control_points.{kind}", given[kind],
                                  f"must be {nd} rows (driven joints) of {bspline.N_FREE} numbers (C1..C3)", source)
            points[kind] = np.array([[number(v, f"gait.control_points.{kind}", source) for v in row]
                                     for row in given[kind]])
        else:
            points[kind] = angle * C_FINAL_003[kind]
    gait = RectilinearGait(n_joints, angle, step_time, points)
    u = np.linspace(0.0, 1.0, CHECK_SAMPLES)
    for k, spec in enumerate(gait.steps):
        ref, _, closure = gait.step_references(k, u)
        if np.any(np.abs(closure) > CLOSURE_LIMIT):
            raise ConfigError("gait.control_points", spec.kind,
                              f"step {spec.number} ({spec.kind}) cannot keep its tip on the ground with these control "
                              f"points at angle {angle:.4f} rad (|sin φ_n| reaches {np.max(np.abs(closure)):.3f})",
                              source)
        if np.max(np.abs(ref)) > MAX_REFERENCE + 1e-9:
            raise ConfigError("gait.angle", angle, f"step {spec.number} ({spec.kind}) drives a joint to "
                              f"{np.degrees(np.max(np.abs(ref))):.1f}°, beyond the ±60° reference limit", source)
    return gait


GAIT = GaitSpec("rectilinear", PARAMS, from_params)
