"""Clamped cubic B-spline joint trajectories of 003 §3.2.4, Eqs. (3.3)–(3.8).

A joint moves from its boundary value θi to θf in one gait step along
p(u) = Σ_i p_i N_{i,4}(u) (3.3), u = t / T ∈ [0, 1], with the knots (3.7)
[0 0 0 0 .25 .5 .75 1 1 1 1] and the control points (3.8) P = [θi θi C1 C2 C3 θf θf]: the repeated end
points make p(0) = θi, p(1) = θf and p'(0) = p'(1) = 0, so steps join with zero joint velocity.
C1..C3 are the free variables the optimiser moves. 003 prints u = 1 ↔ 1 s; for a step time T we take
t = u T ([RECON], seed003_rectilinear.md §3.8).
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import BSpline

#: Knot vector (3.7); order k = 4 (cubic).
KNOTS = np.array([0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0])
DEGREE = 3
#: Free (interior) control points per joint, C1..C3 of (3.8).
N_FREE = 3
N_CONTROL = 7

_BASIS = [BSpline(KNOTS, np.eye(N_CONTROL), DEGREE, extrapolate=False)]
_BASIS += [_BASIS[0].derivative(1), _BASIS[0].derivative(2)]


def basis(u: np.ndarray | float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """N_{i,4}(u) and its first two u-derivatives, each of shape (len(u), 7) (Cox–de Boor, (3.4)–(3.5))."""
    u = np.clip(np.atleast_1d(np.asarray(u, dtype=float)), 0.0, 1.0)
    return tuple(np.nan_to_num(b(u)) for b in _BASIS)  # type: ignore[return-value]


def control_points(theta_i: np.ndarray, free: np.ndarray, theta_f: np.ndarray) -> np.ndarray:
    """P = [θi θi C1 C2 C3 θf θf] (3.8) per joint; ``free`` has shape (..., n_joints, 3)."""
    free = np.asarray(free)
    ti = np.broadcast_to(np.asarray(theta_i)[..., None], (*free.shape[:-1], 1)).astype(free.dtype)
    tf = np.broadcast_to(np.asarray(theta_f)[..., None], (*free.shape[:-1], 1)).astype(free.dtype)
    return np.concatenate([ti, ti, free, tf, tf], axis=-1)


def linear_free_points(theta_i: np.ndarray, theta_f: np.ndarray) -> np.ndarray:
    """003's initial guess Co (§3.6): C1..C3 evenly between θi and θf, shape (n_joints, 3)."""
    frac = np.array([0.25, 0.5, 0.75])
    theta_i, theta_f = np.asarray(theta_i, float), np.asarray(theta_f, float)
    return theta_i[:, None] + (theta_f - theta_i)[:, None] * frac


def evaluate(points: np.ndarray, u: np.ndarray | float, step_time: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """θ, θ̇, θ̈ at u = t/T for control points ``points`` (..., n_joints, 7): arrays (..., len(u), n_joints)."""
    b0, b1, b2 = basis(u)
    pts = np.swapaxes(np.asarray(points), -1, -2)  # (..., 7, n_joints)
    return b0 @ pts, (b1 @ pts) / step_time, (b2 @ pts) / step_time**2
