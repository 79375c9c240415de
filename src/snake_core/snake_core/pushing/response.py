"""Accelerations from rest with the unilateral contact and bounded wheel friction (001 (12)-(18), (30)).

The maps of :mod:`snake_core.pushing.maps` hold while every constraint is active. 001 adds two
inequalities that it does not solve explicitly (its (16) is written "≥"; seed001_pushing.md §7):

* the object contact is unilateral: λ_c ≥ 0, A_c a ≥ 0, λ_c · A_c a = 0;
* Scenario 2 bounds each wheel's lateral force, |λ_w| ≤ μ_s N; a wheel whose required force
  exceeds it slides, and then carries λ_w = σ μ_s N with the friction opposing the onset of
  sliding, σ · A_w a ≤ 0 (a 1-D limit surface per wheel).

From rest, these are the optimality conditions of Gauss's principle with a convex friction term
(min ½(a − I⁻¹f)ᵀI(a − I⁻¹f) + Σ μ_s N |A_w a| s.t. A_c a ≥ 0, ideal rows A a = 0), so the
accelerations are unique. They are found by enumerating the active sets (contact on/off ×
each wheel stuck / sliding ±) and keeping, per input, the one that satisfies all the
conditions; each active set is a Blajer projection (001 (17)-(18)). Batched over
configurations and inputs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from snake_core.pushing.constraints import ConstraintSet, compute_terms
from snake_core.pushing.errors import ContactLostError, PushingError
from snake_core.pushing.kinematics import actuation_matrix
from snake_core.pushing.maps import slippage_ratio
from snake_core.pushing.model import PushingData, PushingModel, Scenario
from snake_core.pushing.projectors import left_pseudo_inverse
from snake_core.validation import ConfigError

#: Relative tolerance of the complementarity checks (λ ≥ 0, |λ_w| ≤ μN, …), against 1 + ‖f‖∞.
ACTIVE_SET_TOL = 1e-9


@dataclass(frozen=True)
class Response:
    """Accelerations from rest for a batch of inputs; leading shape (..., S)."""

    qdd: np.ndarray  # q̈_s (..., S, n_s)
    a_obj: np.ndarray  # (..., S, n_op)
    lam: np.ndarray  # λ* of every constraint row (..., S, n_c); 0 for a lost contact
    contact: np.ndarray  # (..., S) bool: the object contact is held (λ_c ≥ 0)
    slip: np.ndarray  # (..., S, n_wheels) int: 0 stuck, ±1 sliding (Scenario 2)
    qdd_sq: np.ndarray  # ‖q̈⃗_s‖² = q̈ᵀ M_s q̈ (001 (1), (26))
    a_obj_sq: np.ndarray  # ‖a⃗_obj‖² = aᵀ I_obj a (001 (27))
    lam_sq: np.ndarray  # ‖λ⃗‖² = (Aᵀλ)ᵀ I⁻¹ (Aᵀλ) (001 (2); = λᵀ G_c λ with all rows active)

    @property
    def sr(self) -> np.ndarray:
        """Slippage ratio (001 (30)); NaN where the contact is lost (001 draws sr → 0 there; here
        the lost contact is reported through :attr:`contact`) or nothing moves."""
        return np.where(self.contact, slippage_ratio(self.a_obj_sq, self.qdd_sq), np.nan)


def _combos(scenario: Scenario, n_wheels: int) -> list[tuple[bool, tuple[int, ...]]]:
    """Active sets to try, fewest sliding wheels first (most inputs resolve in the first two)."""
    wheel_states = {Scenario.NO_FRICTION: [()], Scenario.IDEAL_WHEELS: [(0,) * n_wheels],
                    Scenario.BOUNDED_WHEELS: list(itertools.product((0, 1, -1), repeat=n_wheels))}[scenario]
    combos = [(contact, w) for w in wheel_states for contact in (True, False)]
    return sorted(combos, key=lambda c: sum(s != 0 for s in c[1]))


def _check_inputs(model: PushingModel, q: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q as (C, n_s) and τ as (C, S, n_a) finite joint torques, or one clear error."""
    if tau.ndim == 2:
        tau = np.broadcast_to(tau, q.shape[:1] + tau.shape)
    if tau.ndim != 3 or tau.shape[-1] != model.n_joints or tau.shape[0] != q.shape[0]:
        raise ConfigError("tau", f"array of shape {tau.shape}",
                          f"must be (S, {model.n_joints}) or ({q.shape[0]}, S, {model.n_joints}) joint torques [N·m]")
    if not np.all(np.isfinite(tau)):
        raise ConfigError("tau", "non-finite values", "joint torques must be finite numbers [N·m]")
    return q, tau


def _solve_active_sets(data: PushingData, scenario: Scenario, f_k: np.ndarray, cfg: np.ndarray
                       ) -> tuple[np.ndarray, ...]:
    """Per input k (generalised force f_k at configuration cfg[k]): the active set that satisfies all the
    complementarity conditions, tried fewest sliding wheels first; returns (a, λ, contact held, wheel slip)."""
    cs: ConstraintSet = data.constraints
    i_inv = data.inertia_inv
    n = f_k.shape[-1]
    n_c = cs.A.shape[-2]
    n_w = n_c - 1
    tol = ACTIVE_SET_TOL * (1.0 + np.abs(f_k).max(axis=-1))
    out_a = np.full((f_k.shape[0], n), np.nan)
    out_lam = np.zeros((f_k.shape[0], n_c))
    out_contact = np.zeros(f_k.shape[0], dtype=bool)
    out_slip = np.zeros((f_k.shape[0], n_w), dtype=int)
    todo = np.arange(f_k.shape[0])  # inputs still unresolved (most resolve with all wheels stuck)
    for contact, wheels in _combos(scenario, n_w):
        if todo.size == 0:
            break
        active = ([0] if contact else []) + [1 + k for k, s in enumerate(wheels) if s == 0]
        c = cfg[todo]
        a_all = cs.A[c]  # (K', n_c, n)
        lam = np.zeros((todo.size, n_c))
        for k, s in enumerate(wheels):
            if s != 0:  # sliding wheel: friction at its bound, opposing the onset of sliding
                lam[:, 1 + k] = s * cs.bound[1 + k]
        f_c = f_k[todo] + np.einsum("kcn,kc->kn", a_all, lam)  # A_wᵀ λ_w of the sliding wheels
        if active:
            names = [cs.names[i] for i in active]
            phi = left_pseudo_inverse(i_inv, cs.A[:, active, :], names)[c]  # Φ = A^{T†} (001 (14))
            lam[:, active] = -np.einsum("krn,kn->kr", phi, f_c)  # 001 (17)
            f_c = f_c + np.einsum("krn,kr->kn", a_all[:, active, :], lam[:, active])
        acc = np.einsum("kij,kj->ki", i_inv[c], f_c)  # 001 (18)
        gap = np.einsum("kcn,kn->kc", a_all, acc)  # A a: constraint accelerations
        t = tol[todo]
        ok = (lam[:, 0] >= -t) if contact else (gap[:, 0] >= -t)
        for k, s in enumerate(wheels):
            ok &= (np.abs(lam[:, 1 + k]) <= cs.bound[1 + k] + t) if s == 0 else (s * gap[:, 1 + k] <= t)
        hit = todo[ok]
        out_a[hit] = acc[ok]
        out_lam[hit] = lam[ok]
        out_contact[hit] = contact
        out_slip[hit] = np.array(wheels, dtype=int)
        todo = todo[~ok]
    if todo.size:
        raise PushingError(f"no consistent contact/friction state for {todo.size} input(s) "
                           "(active-set enumeration failed; this indicates a numerical problem)")
    return out_a, out_lam, out_contact, out_slip


def respond(model: PushingModel, q: np.ndarray, tau: np.ndarray, scenario: Scenario,
            f_obj: np.ndarray | None = None) -> Response:
    """Accelerations of snake and object from rest for joint torques ``tau``.

    q: (n_s,) or (C, n_s); tau: (S, n_a) shared by all configurations or (C, S, n_a).
    f_obj: external wrench on the object (n_op,), default 0.
    """
    q = np.asarray(q, dtype=float)
    single = q.ndim == 1
    q, tau = _check_inputs(model, q[None] if single else q, np.asarray(tau, dtype=float))
    data = compute_terms(model, model.create_data(), q, scenario)
    inertia, cs = data.inertia, data.constraints
    n = inertia.shape[-1]
    f = np.zeros((*tau.shape[:-1], n))
    f[..., :model.n_s] = np.einsum("ij,csj->csi", actuation_matrix(model), tau)  # B τ (001 (12))
    if f_obj is not None:
        f[..., model.n_s:] = np.asarray(f_obj, dtype=float)
    shape = tau.shape[:-1]
    # flatten (C, S) → K inputs with their configuration index
    out_a, out_lam, out_contact, out_slip = _solve_active_sets(data, scenario, f.reshape(-1, n),
                                                               np.repeat(np.arange(shape[0]), shape[1]))
    out_a = out_a.reshape((*shape, n))
    out_lam = out_lam.reshape((*shape, out_lam.shape[-1]))
    wrench = np.einsum("ckn,csk->csn", cs.A, out_lam)
    qdd, a_obj = out_a[..., :model.n_s], out_a[..., model.n_s:]
    resp = Response(
        qdd=qdd, a_obj=a_obj, lam=out_lam, contact=out_contact.reshape(shape),
        slip=out_slip.reshape((*shape, out_slip.shape[-1])),
        qdd_sq=np.einsum("csi,cij,csj->cs", qdd, inertia[:, :model.n_s, :model.n_s], qdd),
        a_obj_sq=np.einsum("csi,cij,csj->cs", a_obj, inertia[:, model.n_s:, model.n_s:], a_obj),
        lam_sq=np.einsum("csi,cij,csj->cs", wrench, data.inertia_inv, wrench),
    )
    if single:
        resp = Response(**{k: v[0] for k, v in resp.__dict__.items()})
    return resp


@dataclass(frozen=True)
class Push:
    """One input at one configuration, with the contact held."""

    qdd: np.ndarray
    a_obj: np.ndarray
    lam: np.ndarray
    slip: np.ndarray
    qdd_sq: float
    a_obj_sq: float
    lam_sq: float
    sr: float


def push(model: PushingModel, q: np.ndarray, tau: np.ndarray, scenario: Scenario,
         f_obj: np.ndarray | None = None) -> Push:
    """The response to one input; raises :class:`ContactLostError` if it does not push the object."""
    r = respond(model, np.asarray(q, dtype=float), np.asarray(tau, dtype=float)[None], scenario, f_obj)
    if not r.contact[0]:
        raise ContactLostError(
            f"τ = {np.round(np.asarray(tau, dtype=float), 6).tolist()} N·m pulls link {model.contact_link} away "
            "from the object (the contact force would have to pull, λ_c < 0): the contact is lost and nothing "
            "is pushed")
    return Push(qdd=r.qdd[0], a_obj=r.a_obj[0], lam=r.lam[0], slip=r.slip[0], qdd_sq=float(r.qdd_sq[0]),
                a_obj_sq=float(r.a_obj_sq[0]), lam_sq=float(r.lam_sq[0]), sr=float(r.sr[0]))

