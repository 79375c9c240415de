"""Reductions of 001's metrics over the input region and over configuration grids (001 §Results).

001 plots one number per configuration (Fig. 5, Table 2) without saying how the input region
(31) is reduced (seed001_pushing.md §7). The reading taken here (REDUCTION): the best value the
input region offers, i.e. max over τᵀWτ ≤ 1 of ‖a⃗_obj‖², ‖λ⃗‖² and sr; Table 2's "best"/"worst"
are then the largest/smallest of these over the configuration grid.

* Scenarios 1 and 3 are linear while the contact is held, and the contact is held on exactly
  one of ±τ, so the maxima are closed-form eigenvalues (:func:`maps.max_over_input_region`,
  :func:`maps.max_ratio`); on the contact-lost half the object does not move (sr = 0) and the
  wheels alone react.
* Scenario 2 is piecewise affine (wheels saturate), so it is sampled: ``directions`` on the
  boundary of the input region at several radii, plus the Scenario 3 maximisers. Its values
  are lower bounds of the supremum, exact to the sampling.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from snake_core.pushing.constraints import constraint_set, object_inertia_bar
from snake_core.pushing.kinematics import actuation_matrix, mass_matrix
from snake_core.pushing.maps import InputMaps, input_maps, max_over_input_region, max_ratio
from snake_core.pushing.model import PushingModel, Scenario
from snake_core.pushing.response import respond

REDUCTION = "max over the input region (31)"
#: 001 case study 1: joint angles over [−135°, 135°] every 10° (28 values, 784 configurations).
ANGLE_LIMIT_DEG = 135.0
ANGLE_STEP_DEG = 10.0
#: Scenario 2 sampling: radii (fractions of the boundary of (31)); the smallest is far below any
#: wheel saturation, where Scenario 2 equals Scenario 3.
SAMPLE_RADII = (1.0, 0.5, 1e-3)


def angle_grid(n_joints: int, limit_deg: float = ANGLE_LIMIT_DEG, step_deg: float = ANGLE_STEP_DEG) -> np.ndarray:
    """All joint-angle combinations of the grid, (C, n_a) in rad, joint 1 (tail) first."""
    values = np.radians(np.arange(-limit_deg, limit_deg + 1e-9, step_deg))
    mesh = np.meshgrid(*([values] * n_joints), indexing="ij")
    return np.stack([g.ravel() for g in mesh], axis=-1)


def configurations(phi: np.ndarray) -> np.ndarray:
    """q_s = [0, 0, 0, φ] (base at the origin, contact link along +x; the metrics do not depend on it)."""
    phi = np.atleast_2d(phi)
    return np.concatenate((np.zeros((*phi.shape[:-1], 3)), phi), axis=-1)


def maps_at(model: PushingModel, q: np.ndarray, scenario: Scenario, with_contact: bool = True) -> InputMaps:
    """001 (22)-(31) at configuration(s) q; ``with_contact=False`` drops the contact row (lost)."""
    cs = constraint_set(model, q, scenario)
    rows = slice(0, None) if with_contact else slice(1, None)
    return input_maps(mass_matrix(model, q) / model.link_mass, object_inertia_bar(model), cs.J_s[..., rows, :],
                      cs.G[..., rows], actuation_matrix(model), model.link_mass, model.kappa, cs.names[rows])


@dataclass(frozen=True)
class Extremes:
    """Per-configuration best values over the input region (REDUCTION), shape (C,)."""

    a_obj_sq: np.ndarray
    sr: np.ndarray
    lam_sq: np.ndarray
    tau_a_obj: np.ndarray  # (C, n_a) maximiser of ‖a_obj‖²
    tau_sr: np.ndarray  # (C, n_a) maximiser of sr (unit of (31); sr is scale-free in Scenarios 1, 3)


def closed_form_extremes(model: PushingModel, q: np.ndarray, scenario: Scenario) -> Extremes:
    full = maps_at(model, q, scenario)
    a_max, tau_a = max_over_input_region(full.Omega_tau, full.W)
    sr_max, tau_sr = max_ratio(full.Omega_tau, full.Omega_tau + full.Xi_tau)
    lam_max, _ = max_over_input_region(full.Lambda_tau, full.W)
    if scenario != Scenario.NO_FRICTION:  # contact-lost half: the wheels alone react
        lam_max = np.maximum(lam_max, max_over_input_region(maps_at(model, q, scenario, False).Lambda_tau, full.W)[0])
    # the maximisers as pushing inputs: the sign that keeps the contact (λ_c ≥ 0)
    for tau in (tau_a, tau_sr):
        tau *= np.where(np.einsum("ci,ci->c", full.lam_tau[:, 0, :], tau) < 0.0, -1.0, 1.0)[:, None]
    tau_sr /= np.sqrt(np.einsum("ci,cij,cj->c", tau_sr, full.W, tau_sr))[:, None]
    return Extremes(a_obj_sq=a_max, sr=sr_max, lam_sq=lam_max, tau_a_obj=tau_a, tau_sr=tau_sr)


def sphere_directions(n: int, count: int) -> np.ndarray:
    """Nearly uniform unit vectors in ℝⁿ (n = 1, 2: exact circle; n ≥ 3: Fibonacci / random)."""
    if n == 1:
        return np.array([[1.0], [-1.0]])
    if n == 2:
        t = np.linspace(0.0, 2.0 * np.pi, count, endpoint=False)
        return np.stack((np.cos(t), np.sin(t)), axis=-1)
    if n == 3:
        i = np.arange(count) + 0.5
        z = 1.0 - 2.0 * i / count
        phi = np.pi * (1.0 + 5**0.5) * i
        r = np.sqrt(1.0 - z**2)
        return np.stack((r * np.cos(phi), r * np.sin(phi), z), axis=-1)
    u = np.random.default_rng(0).normal(size=(count, n))
    return u / np.linalg.norm(u, axis=-1, keepdims=True)


def sampled_extremes(model: PushingModel, q: np.ndarray, scenario: Scenario, directions: int) -> Extremes:
    ideal = closed_form_extremes(model, q, Scenario.IDEAL_WHEELS if scenario == Scenario.BOUNDED_WHEELS else scenario)
    w = maps_at(model, q, scenario).W
    chol = np.linalg.cholesky(w)
    u = sphere_directions(model.n_joints, directions)
    tau_unit = np.linalg.solve(np.swapaxes(chol, -1, -2)[:, None], u[None, :, :, None])[..., 0]  # τᵀWτ = 1
    tau_unit = np.concatenate((tau_unit, ideal.tau_a_obj[:, None], ideal.tau_sr[:, None]), axis=1)
    tau = np.concatenate([r * tau_unit for r in SAMPLE_RADII], axis=1)
    res = respond(model, q, tau, scenario)
    a_sq = res.a_obj_sq
    sr = np.where(res.contact, np.nan_to_num(res.sr, nan=0.0), 0.0)
    best_a = np.argmax(a_sq, axis=1)
    best_sr = np.argmax(sr, axis=1)
    rows = np.arange(q.shape[0])
    return Extremes(a_obj_sq=a_sq[rows, best_a], sr=sr[rows, best_sr], lam_sq=res.lam_sq.max(axis=1),
                    tau_a_obj=tau[rows, best_a], tau_sr=tau[rows, best_sr])


def extremes(model: PushingModel, q: np.ndarray, scenario: Scenario, *, directions: int = 48,
             chunk: int = 256, progress: Callable[[int], None] | None = None) -> Extremes:
    """Best ‖a⃗_obj‖², sr and ‖λ⃗‖² over the input region for each configuration q (C, n_s).

    ``progress(k)`` is called after each chunk of k configurations (for a progress bar).
    """
    q = np.atleast_2d(np.asarray(q, dtype=float))
    parts = []
    for start in range(0, q.shape[0], chunk):
        block = q[start:start + chunk]
        parts.append(sampled_extremes(model, block, scenario, directions) if scenario == Scenario.BOUNDED_WHEELS
                     else closed_form_extremes(model, block, scenario))
        if progress is not None:
            progress(block.shape[0])
    return Extremes(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in Extremes.__dataclass_fields__})


def input_ellipse_grid(model: PushingModel, q: np.ndarray, points: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A points × points grid over the bounding box of the 2-D input region (31) at q (001 Fig. 4).

    Returns the τ₁ and τ₂ axes, the grid points τ (points², 2) (row-major, τ₂ along rows) and
    the mask of the points inside the region, τᵀWτ ≤ 1.
    """
    if model.n_joints != 2:
        raise ValueError(f"input_ellipse_grid needs a two-joint model (001 Fig. 4), got n_joints = {model.n_joints}")
    w = maps_at(model, q, Scenario.NO_FRICTION).W
    half = np.sqrt(np.diag(np.linalg.inv(w)))  # extent of the ellipse along each axis
    t1 = np.linspace(-half[0], half[0], points)
    t2 = np.linspace(-half[1], half[1], points)
    g1, g2 = np.meshgrid(t1, t2, indexing="xy")
    tau = np.stack((g1.ravel(), g2.ravel()), axis=-1)
    return t1, t2, tau, np.einsum("ki,ij,kj->k", tau, w, tau) <= 1.0
