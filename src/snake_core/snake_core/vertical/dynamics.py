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
- Rotor inertia, 002 (4.36) and ambiguities.md: the rotor's angular velocity is only its own, so
  𝕊_1 = 𝕊_2 = 0 and 𝕊_3 = J_r I ("own") or n² J_r I ("reflected"), ``VerticalModel.rotor_term``.
  The motor rows read 𝕊_3 β̈ = U + τ, i.e. (4.36) with the energy-consistent sign of τ.
"""

from __future__ import annotations

import numpy as np

from .kinematics import link_angles, link_positions, rotor_positions
from .model import VerticalData, VerticalModel


def sea_torque(model: VerticalModel, q: np.ndarray) -> np.ndarray:
    """τ_j = K_j (α_j − β_j), 002 (4.36): the torque the SEA measures, shape (N−1,)."""
    return model.stiffness * (q[model.i_alpha] - q[model.i_beta])


def _fill_mass_matrix(model: VerticalModel, M: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Write the configuration-dependent blocks of 𝕄 into M (its constant entries are ``M_const``'s);
    e = cos θ + i sin θ. Returns E = e eᴴ = cos(θ_i − θ_j) + i sin(θ_i − θ_j)."""
    n = model.n_links
    T, Tt = model.T, model.T.T
    E = e[:, None] * e.conj()
    inner = model.Phi * E.real
    inner.flat[:: n + 1] += model.link_inertia  # 𝒞ᵀ𝒥ˡ𝒞
    M[:n, :n] = Tt @ inner @ T  # (A.2)
    # rotor coupling with (p_x, p_z): −𝒯ᵀ(m_r g_r ∘ sin θ), 𝒯ᵀ(m_r g_r ∘ cos θ)
    cp = Tt @ (model.rotor_mass * model.g_r * e)
    M[:n, n] = M[n, :n] = -cp.imag
    M[:n, n + 1] = M[n + 1, :n] = cp.real
    return E


def mass_matrix(model: VerticalModel, q: np.ndarray) -> np.ndarray:
    """𝕄 of (4.35), (2N+1)×(2N+1), symmetric positive definite."""
    th = link_angles(model, q)
    M = model.M_const.copy()  # 𝕄_pp = (N m_l + (N−1) m_r) I and 𝕊_3 (constant)
    _fill_mass_matrix(model, M, np.cos(th) + 1j * np.sin(th))
    return M


def compute_terms(model: VerticalModel, data: VerticalData, q: np.ndarray, v: np.ndarray) -> VerticalData:
    """Fill ``data`` with cos θ, sin θ, 𝕄 and f of (4.35) at (q, q̇); see the module docstring for the formulas."""
    n = model.n_links
    th = link_angles(model, q)
    c, s = np.cos(th, out=data.cos), np.sin(th, out=data.sin)
    e = c + 1j * s
    E = _fill_mass_matrix(model, data.M, e)
    mr_g = model.rotor_mass * model.g_r
    thd2 = (model.T @ v[:n]) ** 2
    f = data.f
    f[:n] = -model.T.T @ ((model.Phi * E.imag) @ thd2 + model.gravity * mr_g * c)  # −ℂ_a − 𝐠_a, (A.3), (4.25)
    pv = (mr_g * thd2) @ e
    f[n] = pv.real
    f[n + 1] = pv.imag - model.gravity * model.total_mass
    tau = model.stiffness * (q[: n - 1] - q[n + 2:])  # τ = K(α − β), (4.36)
    f[: n - 1] -= tau  # −∂V_1/∂α, (4.22)
    f[n + 2:] = tau  # −∂V_1/∂β
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
