"""The simulated robot: the vertical-plane model, its terrain and the actuator inner loop.

:class:`VerticalPlant` evaluates the right-hand side of 002 (4.35) for the integrator,
F = f(q, q̇) + Q^c + 𝔹U, with U the motor-side PD (4.39) on the commanded β^d within the motor's torque–speed line
(:class:`snake_core.actuator.MotorPD`), and its linearisation D = ∂F/∂q̇, K = ∂F/∂q over the stiff terms (see
:mod:`snake_sim.engines.vertical.integrator`).

A step runs as one compiled (numba) function, :func:`sea_step`, over the model's arrays and the data workspace: at
the model's size (2N + 1 = 13) numpy's per-call overhead, not arithmetic, was the cost of a step. U is implicit on the
piece of the torque–speed line (PD, upper or lower bound, :func:`piece`) that the step's end state is on: a step
(:func:`plant_step`: evaluation, solve and the secant re-solves of the friction law) is solved again from its start
on the end state's pieces until they agree, at most ``BRANCH_ITERATIONS`` solves (the last stands). A control period,
its steps under the command extrapolated from the control instant, is one call too (:func:`sea_period`): the SEA
loop (:mod:`snake_sim.core.sea_loop`) pays Python's per-call work once a period, not once a step.

:class:`BatchedPlant` steps B plants of one shape together (:mod:`snake_sim.engines.vertical.batch`): every argument of
:func:`sea_period` but the actuator's stacked over runs, and one compiled call, :func:`sea_period_batch`, that runs
:func:`sea_period` for each run in turn; a run's arithmetic is the one it has alone.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from numba import njit

from snake_core.actuator import MotorPD
from snake_core.vertical import ContactParams, Terrain, VerticalModel, initial_configuration
from snake_core.vertical.contact import SLIP_JUMP, contact_kernel, secant_correction
from snake_core.vertical.dynamics import terms_kernel

from ...core.sea_loop import extrapolated_command
from .integrator import implicit_euler_step

#: Secant re-solves of a step before the dissipative fallback (see ``ContactResult.friction_secant``).
SECANT_ITERATIONS = 2
#: The ±60° limit on the joint angle α (002 Table 3.2) as a one-sided spring–damper on α beyond it, taken implicitly
#: as the SEA spring: a joint pressed into it by 1 N·m (near the stall torque) overshoots by 1/stiffness rad (0.6°).
ALPHA_LIMIT_STIFFNESS = 100.0  # [N·m/rad]
ALPHA_LIMIT_DAMPING = 0.1  # [N·m·s/rad]
#: Re-solves of a step whose end state puts U of a joint on another piece of the torque–speed line (:func:`settled`).
BRANCH_ITERATIONS = 3


@njit(cache=True)
def _evaluate(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G, has_ground, ground,
              boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, q, v, u, kp, kd, M, f, c, s):
    """(F, D, K, contact results) of (4.35) at (q, q̇): 𝕄 and f into the workspace M, f (c, s: cos θ, sin θ),
    F = f + Q^c + 𝔹U (+ the ±60° limit on α), D and K the contact's plus the SEA spring (4.22), the limit and the
    PD (4.39) with the per-joint gains kp, kd (−∂U/∂β, −∂U/∂β̇ of :meth:`~snake_core.actuator.MotorPD.on_branch`)."""
    n = T.shape[0]
    terms_kernel(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, q, v, M, f, c, s)
    contact = contact_kernel(G, T, has_ground, ground, boxes, faces_mu, r, mu_c, k_c, d_c, eps, q[n], q[n + 1],
                             c, s, v)
    F = f + contact[0]
    D, K = contact[1], contact[2]
    for j in range(n - 1):
        a, b = j, n + 2 + j
        F[b] += u[j]  # 𝔹U
        K[a, a] -= stiffness[j]  # −∂(K_E q)/∂q, (4.22)
        K[a, b] += stiffness[j]
        K[b, a] += stiffness[j]
        K[b, b] -= stiffness[j] + kp[j]  # ∂U/∂β
        D[b, b] -= kd[j]  # ∂U/∂β̇
        beyond = abs(q[a]) - alpha_limit
        if beyond > 0.0:  # the ±60° limit on α_j = q[a]
            F[a] -= np.sign(q[a]) * ALPHA_LIMIT_STIFFNESS * beyond + ALPHA_LIMIT_DAMPING * v[a]
            K[a, a] -= ALPHA_LIMIT_STIFFNESS
            D[a, a] -= ALPHA_LIMIT_DAMPING
    return F, D, K, contact


@njit(cache=True)
def plant_step(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G, has_ground, ground,
               boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, q, v, u, kp, kd, M, f, c, s, h,
               secant_iterations):
    """(q⁺, q̇⁺, points in contact) of one linearly implicit Euler step (see :meth:`VerticalPlant.step`)."""
    F, D, K, contact = _evaluate(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G,
                                 has_ground, ground, boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, q, v, u,
                                 kp, kd, M, f, c, s)
    n_active, Jt, vt, fn, slope, mu = contact[3], contact[9], contact[10], contact[5], contact[11], contact[12]
    q1, v1 = implicit_euler_step(q, v, h, M, F, D, K)
    if n_active == 0:
        return q1, v1, n_active
    # A slip velocity that jumped by many ε: re-solve with the chord slope of the friction law until
    # the slip velocities settle; if they do not, fall back to the dissipative (damper) form.
    tol = SLIP_JUMP * eps
    settled = False
    for _ in range(secant_iterations):
        big, dD = secant_correction(Jt, vt, fn, slope, mu, eps, v1, False)
        if not big:
            settled = True
            break
        v_prev = v1
        q1, v1 = implicit_euler_step(q, v, h, M, F, D + dD, K)
        if np.max(np.abs(Jt @ (v1 - v_prev))) < tol:
            settled = True
            break
    if not settled:
        big, dD = secant_correction(Jt, vt, fn, slope, mu, eps, v1, True)
        if big:
            q1, v1 = implicit_euler_step(q, v, h, M, F, D + dD, K)
    return q1, v1, n_active


@njit(cache=True)
def piece(pd, beta, beta_dot, beta_d, beta_d_dot):
    """Which piece of U acts on a joint (``pd``: :func:`pd_args`): +1 the torque–speed line's upper bound, −1 its
    lower bound, 0 the PD (4.39) (:meth:`~snake_core.actuator.MotorPD.torque` in compiled code, one joint)."""
    kp, kd, stall_torque, slope, saturate = pd
    if not saturate:
        return 0
    u = -kp * (beta - beta_d) - kd * (beta_dot - beta_d_dot)  # (4.39)
    line = slope * beta_dot
    return int(u >= stall_torque - line) - int(u <= -stall_torque - line)


@njit(cache=True)
def on_piece(pd, branch, beta, beta_dot, beta_d, beta_d_dot):
    """U of a joint on the piece ``branch`` (:func:`piece`) and its gains −∂U/∂β, −∂U/∂β̇: each piece is affine in
    (β, β̇), so an implicit step can take it exactly (on the state's own piece U is the PD clipped to the line)."""
    kp, kd, stall_torque, slope, _ = pd
    if branch == 0:
        return -kp * (beta - beta_d) - kd * (beta_dot - beta_d_dot), kp, kd  # (4.39)
    return stall_torque * branch - slope * beta_dot, 0.0, slope


@njit(cache=True)
def pieces(pd, q, v, beta_d, beta_d_dot):
    """:func:`piece` of every joint at (q, q̇) under the command (β_d, β̇_d)."""
    n = beta_d.shape[0]
    ib = q.shape[0] - n  # β: the last N − 1 coordinates
    out = np.empty(n, dtype=np.int64)
    for j in range(n):
        out[j] = piece(pd, q[ib + j], v[ib + j], beta_d[j], beta_d_dot[j])
    return out


@njit(cache=True)
def on_pieces(pd, branch, q, v, beta_d, beta_d_dot):
    """(U, −∂U/∂β, −∂U/∂β̇) of every joint at (q, q̇) on the pieces ``branch`` (:func:`on_piece`)."""
    n = beta_d.shape[0]
    ib = q.shape[0] - n
    u, kp, kd = np.empty(n), np.empty(n), np.empty(n)
    for j in range(n):
        u[j], kp[j], kd[j] = on_piece(pd, branch[j], q[ib + j], v[ib + j], beta_d[j], beta_d_dot[j])
    return u, kp, kd


@njit(cache=True)
def next_pieces(pd, branch, q, v, beta_d, beta_d_dot):
    """The pieces of U (:func:`piece`) to solve a step with again, given those it was solved with and its end state
    (q, q̇): the end state's piece, but the PD where U jumped from one bound of the line to the other (U is monotone
    in β̇: the solution lies on the PD between them). The rotor's own inertia (J_r) is so small that the piece at the
    start of a step does not tell the one at its end: with the PD's K_D the step is overdamped, on the line it is
    not, and the pieces must agree with the state they produce."""
    end = pieces(pd, q, v, beta_d, beta_d_dot)
    for j in range(end.shape[0]):
        if end[j] * branch[j] < 0:
            end[j] = 0
    return end


@njit(cache=True)
def sea_step(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G, has_ground, ground, boxes,
             faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, pd, q, v, beta_d, beta_d_dot, M, f, c, s, h):
    """(q⁺, q̇⁺, U⁺, points in contact) of one step of h with the command (β_d, β̇_d) at its end (see
    :meth:`VerticalPlant.step`): :func:`plant_step` on the pieces of U of the step's start, then again from the
    start on the pieces of its end state (:func:`next_pieces`) until they agree, at most ``BRANCH_ITERATIONS``
    solves (the last stands); U⁺ is U at the end state."""
    branch = pieces(pd, q, v, beta_d, beta_d_dot)
    for _ in range(BRANCH_ITERATIONS):
        u, kp, kd = on_pieces(pd, branch, q, v, beta_d, beta_d_dot)
        q1, v1, n_contact = plant_step(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G,
                                       has_ground, ground, boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, q,
                                       v, u, kp, kd, M, f, c, s, h, SECANT_ITERATIONS)
        end = next_pieces(pd, branch, q1, v1, beta_d, beta_d_dot)
        if np.array_equal(end, branch):
            break
        branch = end
    u1 = on_pieces(pd, pieces(pd, q1, v1, beta_d, beta_d_dot), q1, v1, beta_d, beta_d_dot)[0]
    return q1, v1, u1, n_contact


@njit(cache=True)
def sea_period(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G, has_ground, ground, boxes,
               faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, pd, q, v, u, beta_d, beta_d_dot, beta_d_acc, M, f, c, s,
               h, substeps):
    """One control period in place on (q, q̇, U): ``substeps`` :func:`sea_step` of h, each with the command
    extrapolated to its end (:func:`snake_sim.core.sea_loop.extrapolated_command`, backward Euler); returns the
    points in contact at its end."""
    q1, v1, n_contact = q, v, 0
    for i in range(1, substeps + 1):
        bd, bd_dot = extrapolated_command(i * h, beta_d, beta_d_dot, beta_d_acc)
        q1, v1, u1, n_contact = sea_step(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G,
                                         has_ground, ground, boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit,
                                         pd, q1, v1, bd, bd_dot, M, f, c, s, h)
        u[:] = u1
    q[:] = q1
    v[:] = v1
    return n_contact


@njit(cache=True)
def sea_period_batch(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G, has_ground, ground,
                     boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, pd, q, v, u, beta_d, beta_d_dot, beta_d_acc,
                     M, f, c, s, h, substeps, active, n_contact):
    """:func:`sea_period` of every run b with ``active[b]``: each argument but the PD, h and ``substeps`` stacked
    over runs (leading axis); q, v, u and n_contact are updated in place, inactive runs left as they are."""
    for b in range(q.shape[0]):
        if active[b]:
            n_contact[b] = sea_period(
                T[b], Phi[b], g_r[b], link_inertia[b], rotor_mass[b], gravity[b], total_mass[b], stiffness[b], G[b],
                has_ground[b], ground[b], boxes[b], faces_mu[b], r[b], mu_c[b], k_c[b], d_c[b], eps[b], alpha_limit[b],
                pd, q[b], v[b], u[b], beta_d[b], beta_d_dot[b], beta_d_acc[b], M[b], f[b], c[b], s[b], h, substeps)


def pd_args(pd: MotorPD) -> tuple[float, float, float, float, bool]:
    """The actuator PD as the compiled functions take it: (K_p, K_D, τ_s, τ_s/ω_0, saturate)."""
    return float(pd.kp), float(pd.kd), float(pd.stall_torque), pd.slope, bool(pd.saturate)


@dataclass(eq=False)
class VerticalPlant:
    model: VerticalModel
    terrain: Terrain
    contact: ContactParams
    pd: MotorPD
    _args: tuple = field(init=False, repr=False)
    _period: partial = field(init=False, repr=False)

    def __post_init__(self) -> None:
        m, t, p = self.model, self.terrain, self.contact
        self._data = m.create_data()
        # the model, terrain, contact and actuator arguments of the compiled functions, in their order
        self._args = (m.T, m.Phi, m.g_r, m.link_inertia, m.rotor_mass, m.gravity, m.total_mass, m.stiffness, m.G_c,
                      t.ground is not None, 0.0 if t.ground is None else float(t.ground), t.boxes,
                      t.faces_friction(p.friction), p.threshold, p.friction, p.stiffness, p.damping, p.slip_velocity,
                      m.robot.alpha_limit, pd_args(self.pd))
        self._period = partial(sea_period, *self._args)  # bound once: a period's call passes only the state on
        # one step from rest: loads the compiled kernels (numba's cache, or compiles them) now, not at a
        # simulator node's first step, which would be late by that time (about a second)
        q0, beta = initial_configuration(m), np.zeros(m.n_joints)
        self.advance(q0, np.zeros(m.n_q), np.zeros(m.n_joints), 1e-3, 1, beta, beta, beta)

    def evaluate(self, q: np.ndarray, v: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """(𝕄, F, D, K, U, number of points in contact) at (q, q̇) under the command β^d."""
        d, pd = self._data, self._args[-1]
        u, kp, kd = on_pieces(pd, pieces(pd, q, v, beta_d, beta_d_dot), q, v, beta_d, beta_d_dot)
        F, D, K, contact = _evaluate(*self._args[:-1], q, v, u, kp, kd, d.M, d.f, d.cos, d.sin)
        return d.M, F, D, K, u, contact[3]

    def step(self, q: np.ndarray, v: np.ndarray, h: float, beta_d: np.ndarray, beta_d_dot: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Advance by h (linearly implicit Euler); returns (q⁺, v⁺, U⁺, contacts), U⁺ the motor torque at (q⁺, q̇⁺).

        ``beta_d``, ``beta_d_dot`` are the command at the end of the step, t + h: backward Euler
        evaluates U there, on the piece of the torque–speed line that the end state is on (:func:`next_pieces`),
        so U(q⁺, q̇⁺) is consistent with the state it produced.
        """
        d = self._data
        return sea_step(*self._args, q, v, beta_d, beta_d_dot, d.M, d.f, d.cos, d.sin, h)

    def advance(self, q: np.ndarray, v: np.ndarray, u: np.ndarray, h: float, substeps: int, beta_d: np.ndarray,
                beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> int:
        """``substeps`` steps of h (:meth:`step`) in one compiled call, in place on q, v and U (C-ordered float arrays),
        the command extrapolated from a control instant (:func:`snake_sim.core.sea_loop.extrapolated_command`) to the
        end of each; returns the points in contact at the end."""
        d = self._data
        return self._period(q, v, u, beta_d, beta_d_dot, beta_d_acc, d.M, d.f, d.cos, d.sin, h, substeps)


def _stacked(arrays: list) -> np.ndarray:
    """The runs' values of one argument stacked (np.stack refuses other shapes), read-only as the model's own: the
    compiled functions then see a run's row as the type of a run alone's argument (one compiled signature)."""
    a = np.stack([np.asarray(x) for x in arrays])
    a.setflags(write=False)
    return a


@dataclass(eq=False)
class BatchedPlant:
    """B plants of one shape (joints, contact candidates, boxes) and one actuator PD stepped together; states are
    (B, 2N + 1) arrays, commands (B, N − 1)."""

    plants: Sequence[VerticalPlant]
    _args: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        first = self.plants[0]
        if any(p.pd != first.pd for p in self.plants):
            raise ValueError("the plants of a batch share one actuator PD (4.39)")
        # VerticalPlant's model, terrain and contact arguments of the compiled functions, each stacked over runs
        n_args = len(first._args) - 1
        self._args = (*(_stacked([p._args[i] for p in self.plants]) for i in range(n_args)), first._args[-1])
        self._M = np.stack([p.model.M_const for p in self.plants])
        m = first.model
        b = len(self.plants)
        self._f, self._c, self._s = np.zeros((b, m.n_q)), np.zeros((b, m.n_links)), np.zeros((b, m.n_links))

    def advance(self, q: np.ndarray, v: np.ndarray, u: np.ndarray, n_contact: np.ndarray, h: float, substeps: int,
                beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray, active: np.ndarray) -> None:
        """:meth:`VerticalPlant.advance` of every active run, in place on q, v, U and n_contact."""
        sea_period_batch(*self._args, q, v, u, beta_d, beta_d_dot, beta_d_acc, self._M, self._f, self._c, self._s, h,
                         substeps, active, n_contact)
