"""Roll-over of a 3-D run (002 §6.4, §7.4), shared by the 3-D engines (``mujoco``, ``dart``).

``max_roll_deg`` is the largest |roll| of any module about its own axis over the run, ``rolled_over`` whether it
passed :data:`ROLL_OVER_DEG`, ``time_of_roll_over_s`` when. A symmetric robot on a symmetric world never rolls, so
``sim.perturbation`` sets the initial asymmetry: a roll of the whole body about its axis, a lateral offset and
joint-angle noise drawn from ``seed`` (deterministic for a seed)::

    sim:     {perturbation: {roll_deg: 5, lateral_offset: 0.0, joint_noise_deg: 1, seed: 0}}
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from snake_core.registry import Param, checked, param_names
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

#: A module rolled past this about its own axis has rolled over [deg].
ROLL_OVER_DEG = 60.0


@dataclass(frozen=True)
class Perturbation:
    """Initial asymmetry of a 3-D run (``sim.perturbation``)."""

    roll_deg: float = 0.0  # roll of the whole body about its axis at t = 0 [deg], |·| ≤ 45
    lateral_offset: float = 0.0  # y of the tail tip at t = 0 [m], |·| ≤ 1
    joint_noise_deg: float = 0.0  # standard deviation of the initial joint angles [deg], ≤ 10
    seed: int = 0  # of the joint-angle noise

    def joint_angles(self, n_joints: int, limit: float) -> np.ndarray:
        """Initial α (N−1,) [rad]: Gaussian noise of ``joint_noise_deg`` from ``seed``, within the joint limit."""
        noise = np.random.default_rng(self.seed).normal(0.0, math.radians(self.joint_noise_deg), n_joints)
        return np.clip(noise, -limit, limit)


#: ``sim.perturbation`` (:class:`Perturbation`): the asymmetries 002 names as causes of its roll-overs (§6.4, §7.4).
_P = Perturbation()
PERTURBATION_PARAMS = (
    Param("roll_deg", _P.roll_deg, "deg", "roll of the whole body about its axis at t = 0", -45.0, 45.0,
          source="002 §6.4, §7.4"),
    Param("lateral_offset", _P.lateral_offset, "m", "y of the tail tip at t = 0", -1.0, 1.0),
    Param("joint_noise_deg", _P.joint_noise_deg, "deg", "standard deviation of the initial joint angles", 0.0, 10.0,
          source="002 §6.4, §7.4"),
    Param("seed", _P.seed, "", "of the joint-angle noise", 0, kind=int),
)


def perturbation_from(section: Any, source: str | None = None) -> Perturbation:
    """``sim.perturbation`` of a scenario (None: none), validated; ConfigError naming the field."""
    if section is None:
        return Perturbation()
    if not isinstance(section, dict):
        raise ConfigError("sim.perturbation", section, "must be a mapping with " +
                          ", ".join(param_names(PERTURBATION_PARAMS)), source)
    return Perturbation(**checked(section, PERTURBATION_PARAMS, "sim.perturbation", source))


def start_pose(robot: RobotParams, ground_height: float, start_x: float,
               perturbation: Perturbation) -> tuple[tuple[float, float, float], float, np.ndarray]:
    """Where a 3-D run starts: the body straight along +x up to the perturbation's joint noise [rad], rolled by its
    ``roll_deg`` [rad], the tail tip [m] at x = ``start_x``, y the lateral offset, resting on the ground on the
    octagon's circumscribed circle (so that any initial roll starts above the ground)."""
    radius = 0.5 * robot.module_width / math.cos(math.pi / 8)
    tail_tip = (start_x, perturbation.lateral_offset, ground_height + radius)
    return (tail_tip, math.radians(perturbation.roll_deg),
            perturbation.joint_angles(robot.n_joints, robot.joint_limit))


def module_roll(rotation: np.ndarray, chord: np.ndarray) -> np.ndarray:
    """(…, N) roll of each module about its own axis x_i [rad] from the link orientations ``rotation`` (…, N, 3, 3)
    (columns: the link's axes in the world) and the body's tail → head ``chord`` (…, 3), relative to the vertical
    plane through the body's heading: 0 upright (belly towards the plane's bottom), ±π upside down.

    The heading ĥ is the chord's horizontal direction (link 1's axis where the chord is vertical); the upright
    module's cross axis is y_ref = w − (w·x_i) x_i, w = e_z × ĥ, normalised, and the roll is the angle from y_ref
    to y_i about x_i. Unlike the Euler roll atan2(R_zy, R_zz), it does not flip by π when a link pitches past
    the vertical (a module climbing a box's face); it is undefined only for a link along w."""
    x, y = rotation[..., :, :, 0], rotation[..., :, :, 1]
    heading = np.array(chord, dtype=float)
    heading[..., 2] = 0.0
    norm = np.linalg.norm(heading, axis=-1, keepdims=True)
    first = x[..., 0, :] * np.array([1.0, 1.0, 0.0])
    heading = np.where(norm > 1e-9, heading / np.maximum(norm, 1e-300),
                       first / np.linalg.norm(first, axis=-1, keepdims=True))
    w = np.cross([0.0, 0.0, 1.0], heading)[..., None, :]
    y_ref = w - np.sum(x * w, axis=-1, keepdims=True) * x
    y_ref /= np.linalg.norm(y_ref, axis=-1, keepdims=True)
    z_ref = np.cross(x, y_ref)
    return np.arctan2(np.sum(y * z_ref, axis=-1), np.sum(y * y_ref, axis=-1))


def roll_over(t: np.ndarray, roll: np.ndarray) -> dict[str, Any]:
    """``max_roll_deg``, ``rolled_over``, ``time_of_roll_over_s`` from the (T, N) module rolls [rad] at times t [s]."""
    worst = np.degrees(np.abs(roll)).max(axis=1) if len(t) else np.zeros(0)
    over = np.flatnonzero(worst > ROLL_OVER_DEG)
    return {"max_roll_deg": float(worst.max()) if len(t) else None, "rolled_over": bool(over.size),
            "time_of_roll_over_s": float(t[over[0]] - t[0]) if over.size else None}


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval (lower, upper) of a rate from ``successes`` out of ``trials`` (e.g. runs that rolled
    over out of seeds run): p̂ = k/n, z the normal quantile of (1 + confidence)/2, centre (p̂ + z²/2n)/(1 + z²/n),
    half-width z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²); (0, 1) without trials."""
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within 0..trials, got {successes} of {trials}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    if trials == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 * (1.0 + confidence))
    n, p = float(trials), successes / trials
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
