"""Equations of motion with flexible joints, 002 (4.35)–(4.36) and Appendix A.

    𝕄(q) q̈ = f(q, q̇) + Q^c + 𝔹 U,   f = −ℂ(q, q̇) − 𝐠(q) − K_E q               (4.35)

with, for the link coordinates a = [α; θ_N] and θ = 𝒯 a (see :mod:`.model` for 𝒢, Φ, g_r):

- 𝕄_aa = 𝒯ᵀ (Φ ∘ cos(θ_i − θ_j) + J_l I) 𝒯, the M^L + M^R of (A.2) written with the constant
  Φ = m_l 𝒢ˡᵀ𝒢ˡ + m_r 𝒢ʳᵀ𝒢ʳ (𝒮_θ Φ 𝒮_θ + 𝒞_θ Φ 𝒞_θ = Φ ∘ cos(θ_i − θ_j));
  𝕄_{a,p_x} = −m_r 𝒯ᵀ(𝒢ʳᵀ𝟏 ∘ sin θ), 𝕄_{a,p_z} = m_r 𝒯ᵀ(𝒢ʳᵀ𝟏 ∘ cos θ) (the link centres have
  zero mean offset, so only the rotors couple); 𝕄_pp = (N m_l + (N−1) m_r) I.
- ℂ (A.3): ℂ_a = 𝒯ᵀ (Φ ∘ sin(θ_i − θ_j)) θ̇², ℂ_{p_x} = −m_r (𝒢ʳᵀ𝟏)ᵀ(cos θ ∘ θ̇²),
  ℂ_{p_z} = −m_r (𝒢ʳᵀ𝟏)ᵀ(sin θ ∘ θ̇²).
- 𝐠 from V_2 + V_3 (4.24)–(4.25): 𝐠_a = g m_r 𝒯ᵀ(𝒢ʳᵀ𝟏 ∘ cos θ), 𝐠_{p_z} = g (N m_l + (N−1) m_r).
  (4.41) drops the rotor terms; we keep them (they are exact and cost nothing).
- K_E q (4.21)–(4.22): the spring V_1 = ½(β − α)ᵀK(β − α); with τ = K(α − β) (4.36) it is +τ on
  the α rows and −τ on the β rows.
- Rotor inertia, 002 (4.36) and docs/readings.md: the rotor's angular velocity is only its own, so
  𝕊_1 = 𝕊_2 = 0 and 𝕊_3 = J_r I ("own") or n² J_r I ("reflected"), ``VerticalModel.rotor_term``.
  The motor rows read 𝕊_3 β̈ = U + τ, i.e. (4.36) with the energy-consistent sign of τ.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kinematics import link_angles, link_positions, rotor_positions
from .model import VerticalData, VerticalModel


@njit(cache=True)
def sea_angles(stiffness: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(α, β, τ = K(α − β)) (N−1,) of q (copies), τ the torque the SEA measures, 002 (4.36); compiled: what a joint
    module reads costs one call (q = [α; θ_N; p_x; p_z; β], see :mod:`.model`)."""
    n = stiffness.shape[0]
    alpha = q[:n].copy()
    beta = q[n + 3:2 * n + 3].copy()
    return alpha, beta, stiffness * (alpha - beta)


@njit(cache=True)
def sea_reading(stiffness: np.ndarray, q: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """Rows of ``out`` (4, N−1) = α, α̇, β and τ = K(α − β) of (q, q̇) (:func:`sea_angles` and α̇), in place: what the
    joint modules read every control period, without making arrays."""
    n = stiffness.shape[0]
    for j in range(n):
        alpha, beta = q[j], q[n + 3 + j]
        out[0, j], out[1, j], out[2, j], out[3, j] = alpha, v[j], beta, stiffness[j] * (alpha - beta)


def sea_torque(model: VerticalModel, q: np.ndarray) -> np.ndarray:
    """τ_j = K_j (α_j − β_j), 002 (4.36): the torque the SEA measures, shape (N−1,)."""
    return sea_angles(model.stiffness, q)[2]


@njit(cache=True)
def terms_kernel(T: np.ndarray, Phi: np.ndarray, g_r: np.ndarray, link_inertia: float, rotor_mass: float,
                 gravity: float, total_mass: float, stiffness: np.ndarray, q: np.ndarray, v: np.ndarray,
                 M: np.ndarray, f: np.ndarray, c: np.ndarray, s: np.ndarray) -> None:
    """Write cos θ, sin θ into c, s, the configuration-dependent blocks of 𝕄 into M (its constant entries
    are ``M_const``'s) and f of (4.35) into f; compiled (numba), the formulas of the module docstring."""
    n = T.shape[0]
    a = q[:n]
    ad = v[:n]
    thd2 = np.empty(n)
    for i in range(n):  # θ = 𝒯 a, θ̇ = 𝒯 ȧ (§4.3.1)
        th, thd = 0.0, 0.0
        for k in range(n):
            th += T[i, k] * a[k]
            thd += T[i, k] * ad[k]
        c[i], s[i] = np.cos(th), np.sin(th)
        thd2[i] = thd * thd
    inner = np.empty((n, n))  # Φ ∘ cos(θ_i − θ_j) + J_l I
    cor = np.zeros(n)  # (Φ ∘ sin(θ_i − θ_j)) θ̇² + g m_r g_r ∘ cos θ
    for i in range(n):
        for j in range(n):
            inner[i, j] = Phi[i, j] * (c[i] * c[j] + s[i] * s[j])
            cor[i] += Phi[i, j] * (s[i] * c[j] - c[i] * s[j]) * thd2[j]
        inner[i, i] += link_inertia
        cor[i] += gravity * rotor_mass * g_r[i] * c[i]
    TtI = T.T @ inner
    M[:n, :n] = TtI @ T  # (A.2)
    for k in range(n):  # rotor coupling with (p_x, p_z): −𝒯ᵀ(m_r g_r ∘ sin θ), 𝒯ᵀ(m_r g_r ∘ cos θ)
        cx, cz, fa = 0.0, 0.0, 0.0
        for i in range(n):
            cx += T[i, k] * rotor_mass * g_r[i] * s[i]
            cz += T[i, k] * rotor_mass * g_r[i] * c[i]
            fa += T[i, k] * cor[i]
        M[k, n] = M[n, k] = -cx
        M[k, n + 1] = M[n + 1, k] = cz
        f[k] = -fa  # −ℂ_a − 𝐠_a, (A.3), (4.25)
    px, pz = 0.0, 0.0
    for i in range(n):
        w = rotor_mass * g_r[i] * thd2[i]
        px += w * c[i]
        pz += w * s[i]
    f[n] = px
    f[n + 1] = pz - gravity * total_mass
    for j in range(n - 1):
        tau = stiffness[j] * (q[j] - q[n + 2 + j])  # τ = K(α − β), (4.36)
        f[j] -= tau  # −∂V_1/∂α, (4.22)
        f[n + 2 + j] = tau  # −∂V_1/∂β


def mass_matrix(model: VerticalModel, q: np.ndarray) -> np.ndarray:
    """𝕄 of (4.35), (2N+1)×(2N+1), symmetric positive definite."""
    return compute_terms(model, model.create_data(), q, np.zeros(model.n_q)).M


def compute_terms(model: VerticalModel, data: VerticalData, q: np.ndarray, v: np.ndarray) -> VerticalData:
    """Fill ``data`` with cos θ, sin θ, 𝕄 and f of (4.35) at (q, q̇); see the module docstring for the formulas."""
    terms_kernel(model.T, model.Phi, model.g_r, model.link_inertia, model.rotor_mass, model.gravity,
                 model.total_mass, model.stiffness, q, v, data.M, data.f, data.cos, data.sin)
    return data


def energy(model: VerticalModel, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
    """Kinetic and potential energies from the point velocities and heights (independent of 𝕄).

    T_1 (4.18), T_2 (4.19) with the rotor term of (4.36), V_1 (4.20), V_2 + V_3 (4.23)–(4.25).
    """
    n = model.n_links
    th = link_angles(model, q)
    thd = model.T @ v[:n]
    c, s = np.cos(th), np.sin(th)
    xd_l = v[model.i_px] - model.G_l @ (s * thd)
    zd_l = v[model.i_pz] + model.G_l @ (c * thd)
    xd_r = v[model.i_px] - model.G_r @ (s * thd)
    zd_r = v[model.i_pz] + model.G_r @ (c * thd)
    t1 = 0.5 * model.link_mass * (xd_l @ xd_l + zd_l @ zd_l) + 0.5 * model.link_inertia * thd @ thd
    bd = v[model.i_beta]
    t2 = 0.5 * model.rotor_mass * (xd_r @ xd_r + zd_r @ zd_r) + 0.5 * model.rotor_term * bd @ bd
    defl = q[model.i_alpha] - q[model.i_beta]
    v1 = 0.5 * defl @ (model.stiffness * defl)
    _, z_l = link_positions(model, q)
    _, z_r = rotor_positions(model, q)
    v23 = model.gravity * (model.link_mass * z_l.sum() + model.rotor_mass * z_r.sum())
    return {"kinetic": float(t1 + t2), "spring": float(v1), "gravity": float(v23),
            "total": float(t1 + t2 + v1 + v23)}
