"""Recursive Newton–Euler inverse dynamics of a planar open chain, 003 (3.10)–(3.18) after Craig.

003 writes Craig's recursion in 3-D link frames; in the plane every rotation is about Ẑ, so the
outward pass reduces to absolute link angles φ_i = Σ_{j≤i} θ_j, joint positions p_i and centroid
accelerations, and the inward pass to (seed003_rectilinear.md §4.1, planar form)

    f_i = f_{i+1} + m_i (a_{C,i} + g ŷ)                                          (3.14), (3.16)
    n_i = n_{i+1} + I_i φ̈_i + (c_i − p_i) × m_i (a_{C,i} + g ŷ) + (p_{i+1} − p_i) × f_{i+1}   (3.15), (3.17)
    τ_i = n_i · Ẑ                                                                 (3.18)

with gravity entering as an upward base acceleration g ŷ (Craig's trick, 003 §3.3) and
f_{n+1} the force the last link exerts on the environment (minus an external tip force).
Arrays broadcast over leading (sample) axes; complex inputs are allowed (complex-step derivatives).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: 003 does not state g (seed003_rectilinear.md §2.1); standard gravity.
GRAVITY = 9.81


@dataclass(frozen=True)
class PlanarChain:
    """An open chain of rigid links in the vertical plane, base joint at the origin."""

    lengths: np.ndarray  # link lengths l_i [m]
    masses: np.ndarray  # m_i [kg]
    com: np.ndarray  # centroid distance from the proximal joint along the link [m]
    inertias: np.ndarray  # I_i about the centroid [kg·m²]
    gravity: float = GRAVITY

    @staticmethod
    def uniform(n: int, length: float, mass: float, inertia: float, gravity: float = GRAVITY) -> PlanarChain:
        """n identical thin links with the centroid at mid-length (003's model)."""
        return PlanarChain(np.full(n, length), np.full(n, mass), np.full(n, 0.5 * length), np.full(n, inertia),
                           gravity)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Planar cross product a × b = a_x b_y − a_y b_x (the Ẑ component)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def link_kinematics(lengths: np.ndarray, com: np.ndarray, phi: np.ndarray, phid: np.ndarray, phidd: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Outward pass (3.10)–(3.13) in absolute angles.

    Returns joint positions p (…, n+1, 2) (p_0 = 0, p_n the tip), joint accelerations (…, n+1, 2),
    centroid accelerations (…, n, 2) and joint velocities (…, n+1, 2).
    """
    e = np.stack([np.cos(phi), np.sin(phi)], axis=-1)  # link direction
    e_perp = np.stack([-np.sin(phi), np.cos(phi)], axis=-1)
    seg = lengths[:, None] * e
    seg_v = lengths[:, None] * phid[..., None] * e_perp
    seg_a = lengths[:, None] * (phidd[..., None] * e_perp - phid[..., None] ** 2 * e)
    zero = np.zeros((*phi.shape[:-1], 1, 2), dtype=np.result_type(phi, float))
    p = np.concatenate([zero, np.cumsum(seg, axis=-2)], axis=-2)
    v = np.concatenate([zero, np.cumsum(seg_v, axis=-2)], axis=-2)
    a = np.concatenate([zero, np.cumsum(seg_a, axis=-2)], axis=-2)
    a_c = a[..., :-1, :] + com[:, None] * (phidd[..., None] * e_perp - phid[..., None] ** 2 * e)
    return p, a, a_c, v


def inverse_dynamics(chain: PlanarChain, theta: np.ndarray, thetad: np.ndarray, thetadd: np.ndarray,
                     tip_force: np.ndarray | None = None) -> np.ndarray:
    """Joint torques τ (…, n) of the open chain for relative joint angles/rates/accelerations (…, n).

    ``tip_force`` (…, 2) is an external force applied by the environment at the distal end of the
    last link (e.g. a ground reaction); Craig's f_{n+1} is its negative.
    """
    phi, phid, phidd = (np.cumsum(x, axis=-1) for x in (theta, thetad, thetadd))
    p, _, a_c, _ = link_kinematics(chain.lengths, chain.com, phi, phid, phidd)
    g = np.array([0.0, chain.gravity])
    F = chain.masses[:, None] * (a_c + g)  # (3.14) with the base acceleration g ŷ
    e = np.stack([np.cos(phi), np.sin(phi)], axis=-1)
    r_c = chain.com[:, None] * e  # c_i − p_i
    r_next = p[..., 1:, :] - p[..., :-1, :]  # p_{i+1} − p_i
    n = theta.shape[-1]
    f_next = np.zeros((*theta.shape[:-1], 2), dtype=np.result_type(theta, float))
    if tip_force is not None:
        f_next = f_next - tip_force
    n_next = np.zeros(theta.shape[:-1], dtype=f_next.dtype)
    tau = np.zeros(theta.shape, dtype=f_next.dtype)
    for i in range(n - 1, -1, -1):  # inward pass (3.16)–(3.18)
        n_i = (n_next + chain.inertias[i] * phidd[..., i] + cross(r_c[..., i, :], F[..., i, :])
               + cross(r_next[..., i, :], f_next))
        f_next = f_next + F[..., i, :]
        n_next = n_i
        tau[..., i] = n_i
    return tau
