"""Input → acceleration maps, invariant norms, slippage ratio and input region (001 (20)-(31)).

Written, as in 001, with the unit-mass inertias M̄ = M_s/m and Ī_obj = I_obj/(κm). For (22)-(29)
to equal the constrained dynamics, the G_c inside them must be the unit-mass metric
Ḡ_c = J_s M̄⁻¹ J_sᵀ + (1/κ) Gᵀ Ī_obj⁻¹ G = m G_c, and (28) must read M̄⁻¹ where 001 prints M_s⁻¹
(seed001_pushing.md §2.7-2.8, verified by the tests against a direct KKT solve). The maps assume
every constraint is active (the object contact held); :mod:`snake_core.pushing.response` adds
the unilateral contact and the bounded wheel friction.

The functions take the matrices, not a configuration, so that the invariance of the norms under
a change of coordinates (001 §"Mathematical background") can be checked by re-parameterising.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from snake_core.pushing.projectors import _t, constraint_metric


@dataclass(frozen=True)
class InputMaps:
    """The linear maps of 001 at one configuration (or a batch), all constraints active."""

    q_tau: np.ndarray  # Φ_{q̈,τ} (22), (..., n_s, n_a)
    q_f: np.ndarray  # Φ_{q̈,f} (23), (..., n_s, n_op)
    a_tau: np.ndarray  # Φ_{a,τ} (24), (..., n_op, n_a)
    a_f: np.ndarray  # Φ_{a,f} (25), (..., n_op, n_op)
    lam_tau: np.ndarray  # λ* = lam_tau τ + lam_f f_obj (17), (..., n_c, n_a)
    lam_f: np.ndarray  # (..., n_c, n_op)
    Xi_tau: np.ndarray  # Ξ_τ (28)
    Xi_f: np.ndarray  # Ξ_f (26)
    Xi_tau_f: np.ndarray  # _τΞ_f (26)
    Omega_tau: np.ndarray  # Ω_τ (29)
    Omega_f: np.ndarray  # Ω_f (27)
    Omega_tau_f: np.ndarray  # _τΩ_f (27)
    Lambda_tau: np.ndarray  # ‖λ⃗‖² = τᵀ Λ_τ τ (f_obj = 0), the metric G_c of e_c* (001 (14), (2))
    W: np.ndarray  # input region metric (31): τᵀ W τ ≤ 1


def input_maps(M_bar: np.ndarray, I_obj_bar: np.ndarray, J_s: np.ndarray, G: np.ndarray, B: np.ndarray,
               m: float, kappa: float, names: Sequence[str] | None = None) -> InputMaps:
    """001 (22)-(29) and (31) from unit-mass M̄ (n_s×n_s), Ī_obj, J_s (n_c×n_s), G (n_op×n_c), B."""
    m_inv = np.linalg.inv(M_bar)
    i_inv = np.linalg.inv(I_obj_bar)
    n_s = M_bar.shape[-1]
    a = np.concatenate((-J_s, _t(G)), axis=-1)  # 001 (9)
    i_bar_inv = np.zeros(a.shape[:-2] + (a.shape[-1],) * 2)
    i_bar_inv[..., :n_s, :n_s] = m_inv
    i_bar_inv[..., n_s:, n_s:] = i_inv / kappa
    g_c = constraint_metric(i_bar_inv, a, names)  # Ḡ_c = J_s M̄⁻¹ J_sᵀ + (1/κ) Gᵀ Ī⁻¹ G
    g_c_inv = np.linalg.inv(g_c)
    j_hat_t = _t(J_s) @ g_c_inv @ J_s @ m_inv  # Ĵ_sᵀ (after 001 (29))
    eye_s = np.eye(n_s)
    lam_tau = g_c_inv @ J_s @ m_inv @ B
    lam_f = -(g_c_inv @ _t(G) @ i_inv) / kappa
    q_tau = m_inv @ (eye_s - j_hat_t) @ B / m  # (22)
    q_f = m_inv @ _t(J_s) @ g_c_inv @ _t(G) @ i_inv / (kappa * m)  # (23)
    a_tau = i_inv @ G @ lam_tau / (kappa * m)  # (24)
    a_f = i_inv @ (np.eye(I_obj_bar.shape[-1]) - G @ g_c_inv @ _t(G) @ i_inv / kappa) / (kappa * m)  # (25)
    x = (eye_s - j_hat_t) @ B
    xi_tau = _t(x) @ m_inv @ x / m  # (28), with M̄⁻¹
    omega_tau = _t(lam_tau) @ _t(G) @ i_inv @ G @ lam_tau / (kappa * m)  # (29)
    m_s = M_bar * m
    i_obj = I_obj_bar * kappa * m
    return InputMaps(
        q_tau=q_tau, q_f=q_f, a_tau=a_tau, a_f=a_f, lam_tau=lam_tau, lam_f=lam_f,
        Xi_tau=xi_tau, Xi_f=_t(q_f) @ m_s @ q_f, Xi_tau_f=2.0 * _t(q_tau) @ m_s @ q_f,  # (26)
        Omega_tau=omega_tau, Omega_f=_t(a_f) @ i_obj @ a_f, Omega_tau_f=2.0 * _t(a_tau) @ i_obj @ a_f,  # (27)
        Lambda_tau=_t(lam_tau) @ g_c @ lam_tau / m,
        W=input_region_metric(M_bar, B),
    )


def input_region_metric(M_bar: np.ndarray, B: np.ndarray) -> np.ndarray:
    """W = Bᵀ M̄⁻¹ B of the input region τᵀ W τ ≤ 1 (001 (31)).

    001 prints τᵀ M̄_s⁻¹ τ, whose dimensions do not match (τ ∈ ℝ^{n_a}, M̄_s ∈ ℝ^{n_s×n_s}); the
    wrench metric (001 (2)) restricted to the actuated generalised forces Bτ is the reading
    taken (seed001_pushing.md §2.10).
    """
    return _t(B) @ np.linalg.solve(M_bar, B)


def slippage_ratio(a_obj_sq: np.ndarray, qdd_sq: np.ndarray) -> np.ndarray:
    """sr = ‖a⃗_obj‖² / (‖a⃗_obj‖² + ‖q̈⃗_s‖²) ∈ [0, 1] (001 (30)).

    NaN where both vanish (an input fully reacted by the constraints moves nothing: sr is 0/0).
    """
    a_obj_sq = np.asarray(a_obj_sq, dtype=float)
    total = a_obj_sq + np.asarray(qdd_sq, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0.0, a_obj_sq / np.where(total > 0.0, total, 1.0), np.nan)


def max_over_input_region(Q: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max τᵀQτ subject to τᵀWτ ≤ 1 (001 (31)) = λ_max(W⁻¹Q); returns (value, maximiser τ)."""
    chol = np.linalg.cholesky(W)  # W = L Lᵀ, τ = L⁻ᵀ u with ‖u‖ ≤ 1
    l_inv = np.linalg.inv(chol)
    vals, vecs = np.linalg.eigh(l_inv @ Q @ _t(l_inv))
    return vals[..., -1], np.einsum("...ji,...j->...i", l_inv, vecs[..., :, -1])


#: Eigenvalues of the denominator below this fraction of its largest are its null space (inputs
#: fully reacted by the constraints, e.g. Scenario 3: no motion, sr undefined).
RATIO_NULL_TOL = 1e-12


def max_ratio(N: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max τᵀNτ / τᵀDτ over τ ∉ null(D), for PSD N ⪯ D (so null(D) ⊂ null(N)).

    Used for the best slippage ratio of a configuration, N = Ω_τ, D = Ω_τ + Ξ_τ (001 (30)): sr is
    homogeneous of degree 0 in τ while all constraints are active. D's null directions are
    given D's largest eigenvalue (they carry no N), so the generalised eigenproblem stays
    regular (seed001_pushing.md §2.8: D is singular in Scenario 3). Returns (value, maximiser).
    """
    d, v = np.linalg.eigh(D)
    d_max = d[..., -1:]
    d = np.where(d > RATIO_NULL_TOL * d_max, d, d_max)
    s = v * (1.0 / np.sqrt(d))[..., None, :]  # D'^{-1/2} = V diag(d^{-1/2}) (columns), then Vᵀ
    d_half_inv = s @ _t(v)
    vals, vecs = np.linalg.eigh(d_half_inv @ N @ d_half_inv)
    return vals[..., -1], np.einsum("...ij,...j->...i", d_half_inv, vecs[..., :, -1])
