"""Unconstrained planar snake of 001: link frames, point Jacobians, M_s and B (001 (3)-(5)).

All functions accept a batch of configurations q (shape (..., n_s)) and return arrays with the
same leading shape. q_s = [x, y, θ₁, φ₁ … φ_{n_a}]: (x, y) the tail end of link 1, θ₁ its absolute
angle, φ_k the relative angle of joint k (between links k and k+1), tail → head.
"""

from __future__ import annotations

import numpy as np

from snake_core.angles import wrap_angle
from snake_core.pushing.model import PushingModel


def _perp(v: np.ndarray) -> np.ndarray:
    """Rotate planar vectors by +90°: ẑ × v."""
    return np.stack((-v[..., 1], v[..., 0]), axis=-1)


def link_angles(q: np.ndarray) -> np.ndarray:
    """Absolute link angles θ_i = θ₁ + Σ_{k<i} φ_k, shape (..., n_ℓ)."""
    q = np.asarray(q, dtype=float)
    zero = np.zeros((*q.shape[:-1], 1))
    return q[..., 2:3] + np.concatenate((zero, np.cumsum(q[..., 3:], axis=-1)), axis=-1)


def link_directions(q: np.ndarray) -> np.ndarray:
    """Unit vectors e_i along each link (tail → head), shape (..., n_ℓ, 2)."""
    theta = link_angles(q)
    return np.stack((np.cos(theta), np.sin(theta)), axis=-1)


def joint_points(model: PushingModel, q: np.ndarray) -> np.ndarray:
    """Link end points p_1 (tail) … p_{n_ℓ+1} (head tip), shape (..., n_ℓ + 1, 2)."""
    q = np.asarray(q, dtype=float)
    steps = model.link_length * link_directions(q)
    start = q[..., None, 0:2]
    return np.concatenate((start, start + np.cumsum(steps, axis=-2)), axis=-2)


def link_point(model: PushingModel, q: np.ndarray, link: int, fraction: float) -> np.ndarray:
    """Position of the point at ``fraction`` of the length of 1-based ``link``, shape (..., 2)."""
    p = joint_points(model, q)
    e = link_directions(q)
    return p[..., link - 1, :] + fraction * model.link_length * e[..., link - 1, :]


def point_jacobian(model: PushingModel, q: np.ndarray, link: int, fraction: float) -> np.ndarray:
    """J_p with ṗ = J_p q̇_s for a point fixed on 1-based ``link`` (the linear rows of 001 (3)).

    ∂p/∂(x, y) = 1; ∂p/∂θ₁ = ẑ × (p − p_1); ∂p/∂φ_k = ẑ × (p − p_{k+1}) for the joints k < link
    between the base and the point, 0 beyond. Shape (..., 2, n_s).
    """
    q = np.asarray(q, dtype=float)
    pts = joint_points(model, q)
    p = link_point(model, q, link, fraction)
    jac = np.zeros((*q.shape[:-1], 2, model.n_s))
    jac[..., 0, 0] = 1.0
    jac[..., 1, 1] = 1.0
    # columns θ₁, φ₁ … φ_{link−1}: rotation about p_1, p_2 … p_link
    jac[..., :, 2:2 + link] = np.swapaxes(_perp(p[..., None, :] - pts[..., :link, :]), -1, -2)
    return jac


def angular_jacobian(model: PushingModel, link: int) -> np.ndarray:
    """J_ω with θ̇_link = J_ω q̇_s (the angular row of 001 (3)), shape (n_s,)."""
    row = np.zeros(model.n_s)
    row[2:2 + link] = 1.0
    return row


def mass_matrix(model: PushingModel, q: np.ndarray) -> np.ndarray:
    """M_s = Σ_i m J_{v,i}ᵀ J_{v,i} + I_com J_{ω,i}ᵀ J_{ω,i} (001 (4)), shape (..., n_s, n_s)."""
    q = np.asarray(q, dtype=float)
    m_s = np.zeros((*q.shape[:-1], model.n_s, model.n_s))
    for link in range(1, model.n_links + 1):
        jv = point_jacobian(model, q, link, 0.5)
        jw = angular_jacobian(model, link)
        m_s += model.link_mass * np.swapaxes(jv, -1, -2) @ jv + model.link_inertia * np.outer(jw, jw)
    return m_s


def actuation_matrix(model: PushingModel) -> np.ndarray:
    """B = [0_{3×n_a}; 1_{n_a}] (001 (5))."""
    return np.vstack((np.zeros((3, model.n_joints)), np.eye(model.n_joints)))


def centre_of_mass(model: PushingModel, q: np.ndarray) -> np.ndarray:
    """Centre of mass of the snake (equal links: the mean of the link centres), shape (..., 2)."""
    pts = joint_points(model, q)
    return 0.5 * (pts[..., :-1, :] + pts[..., 1:, :]).mean(axis=-2)


def com_polar(model: PushingModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(|COM|, ∠COM) of the snake's centre of mass about the contact point (001 §"Polar coordinates").

    |COM| is the distance from the contact point to the COM; ∠COM the angle from the contact
    link's tail → head direction to the vector contact → COM, counter-clockwise, in (−π, π].
    001 does not fix the zero or the sign (seed001_pushing.md §2.12); this reading puts the COM
    of a straight snake touching with its tail link at ∠COM = 0.
    """
    r = centre_of_mass(model, q) - link_point(model, q, model.contact_link, model.contact_position)
    theta = link_angles(q)[..., model.contact_link - 1]
    angle = np.arctan2(r[..., 1], r[..., 0]) - theta
    return np.linalg.norm(r, axis=-1), wrap_angle(angle)
