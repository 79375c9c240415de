"""Constraints of 001: object contact and passive wheels, A = [−J_s  Gᵀ] (001 (7)-(11)).

The system velocity is υ = [q̇_s; υ_obj] with υ_obj = [ẋ_o, ẏ_o, ψ̇] (object COM velocity and
angular rate), n = n_s + 3. Row k of A is [−n_kᵀ J_{p_k}, G_kᵀ] (001 (9)-(10)):

* object contact (unilateral, frictionless, 001 Assumption 2): n the contact normal pointing
  from the snake into the object, G_k = [n; r × n] with r the contact point relative to the
  object COM. A_k υ ≥ 0 is "no penetration" (001 (8)); λ_k ≥ 0 pushes the object along +n and
  the snake along −n (001 (11)).
* passive wheel on link i (001 Assumptions 3-4): n = ẑ × e_i (lateral), G_k = 0. Bilateral;
  Scenario 2 bounds |λ_k| ≤ μ_s N, Scenario 3 leaves it unbounded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from snake_core.pushing.kinematics import _perp, link_directions, link_point, mass_matrix, point_jacobian
from snake_core.pushing.model import PushingData, PushingModel, Scenario

N_OP = 3  # planar object: n_op = 3 (001 (6))


@dataclass(frozen=True)
class ConstraintSet:
    """A = [−J_s  Gᵀ] for one scenario; row 0 is always the object contact."""

    A: np.ndarray  # (..., n_c, n)
    J_s: np.ndarray  # (..., n_c, n_s), 001 (10)
    G: np.ndarray  # (..., n_op, n_c), grasp matrix
    names: tuple[str, ...]  # "contact", "wheel 2", …
    bound: np.ndarray  # (n_c,) friction bound μ_s N of each row; inf: unbounded; contact: nan


def contact_normal(model: PushingModel, q: np.ndarray) -> np.ndarray:
    """n ⟂ contact link, on the object's side, shape (..., 2)."""
    return model.contact_side * _perp(link_directions(q)[..., model.contact_link - 1, :])


def object_pose(model: PushingModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Object COM position and orientation (ψ = contact link angle) consistent with the contact."""
    n = contact_normal(model, q)
    t = link_directions(q)[..., model.contact_link - 1, :]
    d_n, d_t = model.object_offset
    c = link_point(model, q, model.contact_link, model.contact_position) + d_n * n + d_t * t
    return c, np.arctan2(t[..., 1], t[..., 0])


def object_inertia_bar(model: PushingModel) -> np.ndarray:
    """Ī_obj = diag(1, 1, ρ²): unit-mass inertia of the object (001 (6))."""
    return np.diag([1.0, 1.0, model.object_gyration**2])


def system_inertia(model: PushingModel, q: np.ndarray) -> np.ndarray:
    """I = blockdiag(M_s, I_obj) (001 (12)), shape (..., n, n)."""
    m_s = mass_matrix(model, q)
    out = np.zeros(m_s.shape[:-2] + (model.n_s + N_OP,) * 2)
    out[..., :model.n_s, :model.n_s] = m_s
    out[..., model.n_s:, model.n_s:] = model.object_mass * object_inertia_bar(model)
    return out


def constraint_set(model: PushingModel, q: np.ndarray, scenario: Scenario) -> ConstraintSet:
    """Assemble the constraints of ``scenario`` at configuration(s) q (001 (7)-(11))."""
    q = np.asarray(q, dtype=float)
    batch = q.shape[:-1]
    n = contact_normal(model, q)
    jp = point_jacobian(model, q, model.contact_link, model.contact_position)
    rows = [np.einsum("...i,...ij->...j", n, jp)]
    d_n, d_t = model.object_offset
    t = link_directions(q)[..., model.contact_link - 1, :]
    r = -(d_n * n + d_t * t)  # contact point − object COM
    g_cols = [np.concatenate((n, (r[..., 0] * n[..., 1] - r[..., 1] * n[..., 0])[..., None]), axis=-1)]
    names = ["contact"]
    bounds = [np.nan]
    if scenario != Scenario.NO_FRICTION:
        e = link_directions(q)
        for link in model.wheel_links:
            lateral = _perp(e[..., link - 1, :])
            rows.append(np.einsum("...i,...ij->...j", lateral, point_jacobian(model, q, link, model.wheel_position)))
            g_cols.append(np.zeros((*batch, N_OP)))
            names.append(f"wheel {link}")
            bounds.append(model.mu_s * model.wheel_normal_load if scenario == Scenario.BOUNDED_WHEELS else np.inf)
    j_s = np.stack(rows, axis=-2)
    g = np.stack(g_cols, axis=-1)
    a = np.concatenate((-j_s, np.swapaxes(g, -1, -2)), axis=-1)  # 001 (9)
    return ConstraintSet(A=a, J_s=j_s, G=g, names=tuple(names), bound=np.array(bounds))


def compute_terms(model: PushingModel, data: PushingData, q: np.ndarray, scenario: Scenario) -> PushingData:
    """Fill ``data`` with I (001 (12)), I⁻¹ and the constraints of ``scenario`` at configurations q (C, n_s)."""
    data.inertia = system_inertia(model, q)
    data.inertia_inv = np.linalg.inv(data.inertia)
    data.constraints = constraint_set(model, q, scenario)
    return data
