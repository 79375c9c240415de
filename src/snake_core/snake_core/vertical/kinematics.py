"""Kinematics of the vertical-plane snake in 002's matrix form, (4.2)–(4.17), (4.31)–(4.32).

Every point set is x = p_x + 𝒢 cos θ, z = p_z + 𝒢 sin θ (see :mod:`.model`), so its velocity is
ẋ = ṗ_x − 𝒢 𝒮_θ θ̇, ż = ṗ_z + 𝒢 𝒞_θ θ̇ with θ̇ = 𝒯 [α̇; θ̇_N]: (4.8)–(4.9), (4.15)–(4.16), (4.31)–(4.32).
"""

from __future__ import annotations

import numpy as np

from .model import VerticalModel


def link_angles(model: VerticalModel, q: np.ndarray) -> np.ndarray:
    """Absolute link angles θ_i = Σ_{k=i}^{N−1} α_k + θ_N (§4.3.1), tail → head, shape (N,)."""
    return model.T.dot(q[: model.n_links])  # ndarray.dot: T @ q's products at less call overhead


def _points(model: VerticalModel, q: np.ndarray, G: np.ndarray, th: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    th = link_angles(model, q) if th is None else th
    return q[model.i_px] + G.dot(np.cos(th)), q[model.i_pz] + G.dot(np.sin(th))


def link_poses(model: VerticalModel, q: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """(centres of mass (x_i^l, z_i^l), (4.2)–(4.5); link angles θ, §4.3.1), the angles computed once."""
    th = link_angles(model, q)
    return _points(model, q, model.G_l, th), th


def link_positions(model: VerticalModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centres of mass (x_i^l, z_i^l) of the links, (4.2)–(4.5)."""
    return _points(model, q, model.G_l)


def rotor_positions(model: VerticalModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotor centres (x_j^r, z_j^r) = the joints, (4.11)–(4.14)."""
    return _points(model, q, model.G_r)


def contact_points(model: VerticalModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2N+1 contact candidates of §4.6: N link centres, then tail tip, N−1 joints, head tip."""
    return _points(model, q, model.G_c)


def point_jacobians(model: VerticalModel, q: np.ndarray, G: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """∂ẋ/∂q̇ and ∂ż/∂q̇ of a point set (default: the contact candidates), shape (P, 2N+1) each.

    Columns of β are zero (𝒪 in (4.8)–(4.9), (4.31)–(4.32)): the body shape does not depend on β.
    """
    G = model.G_c if G is None else G
    n = model.n_links
    th = link_angles(model, q)
    Jx = np.zeros((G.shape[0], model.n_q))
    Jz = np.zeros((G.shape[0], model.n_q))
    Jx[:, :n] = -(G * np.sin(th)) @ model.T  # 𝒜 𝒮_θ 𝒞, (4.8)
    Jz[:, :n] = (G * np.cos(th)) @ model.T  # −𝒜 𝒞_θ 𝒞, (4.9)
    Jx[:, model.i_px] = 1.0  # ℬ_1
    Jz[:, model.i_pz] = 1.0  # ℬ_2
    return Jx, Jz


def initial_configuration(model: VerticalModel, tail_x: float = 0.0, tail_z: float = 0.0,
                          alpha: np.ndarray | None = None, theta_n: float = 0.0,
                          beta: np.ndarray | None = None) -> np.ndarray:
    """q with the tail tip at (tail_x, tail_z): inverts x_0 = p_x − (1/N)𝐕ˡᵀ𝓗ˡ cos θ of (4.4)–(4.5).

    Default: the body straight along +x (head pointing to +x), motors at the link angles.
    """
    n = model.n_links
    q = np.zeros(model.n_q)
    q[model.i_alpha] = 0.0 if alpha is None else alpha
    q[model.i_theta] = theta_n
    q[model.i_beta] = q[model.i_alpha] if beta is None else beta
    th = link_angles(model, q)
    mean_row = model.H_l.sum(axis=0) / n
    q[model.i_px] = tail_x + mean_row @ np.cos(th)
    q[model.i_pz] = tail_z + mean_row @ np.sin(th)
    return q
