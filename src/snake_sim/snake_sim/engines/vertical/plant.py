"""The simulated robot: the vertical-plane model, its terrain and the actuator inner loop.

:class:`VerticalPlant` evaluates the right-hand side of 002 (4.35) for the integrator,
F = f(q, q̇) + Q^c + 𝔹U, with U the motor-side PD (4.39) on the commanded β^d within the motor's torque–speed line
(:class:`snake_core.actuator.MotorPD`), and its linearisation D = ∂F/∂q̇, K = ∂F/∂q over the stiff terms (see
:mod:`snake_sim.engines.vertical.integrator`).

A solve of a step (evaluation, solve and the secant re-solves of the friction law) runs as one compiled (numba)
function, :func:`plant_step`, over the model's arrays and the data workspace: at the model's size (2N + 1 = 13)
numpy's per-call overhead, not arithmetic, was the cost of a step. U is implicit on the piece of the torque–speed line
(PD, upper or lower bound) that the step's end state is on: a step is solved again from its start on the end state's
pieces until they agree, at most ``BRANCH_ITERATIONS`` solves (the last stands).

:class:`BatchedPlant` steps B plants of one shape together (:mod:`snake_sim.engines.vertical.batch`): every argument of
:func:`plant_step` stacked over runs, and one compiled call, :func:`plant_step_batch`, that runs
:func:`plant_step` for each run in turn; a run's arithmetic is the one it has alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from snake_core.actuator import MotorPD
from snake_core.vertical import ContactParams, Terrain, VerticalModel, initial_configuration
from snake_core.vertical.contact import SLIP_JUMP, contact_kernel, secant_correction
from snake_core.vertical.dynamics import terms_kernel

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
def plant_step_batch(T, Phi, g_r, link_inertia, rotor_mass, gravity, total_mass, stiffness, G, has_ground, ground,
                     boxes, faces_mu, r, mu_c, k_c, d_c, eps, alpha_limit, q, v, u, kp, kd, M, f, c, s, h,
                     secant_iterations, active, n_contact):
    """:func:`plant_step` of every run b with ``active[b]``: each argument but h and the iteration count stacked
    over runs (leading axis); q, v and n_contact are updated in place, inactive runs left as they are."""
    for b in range(q.shape[0]):
        if active[b]:
            q[b], v[b], n_contact[b] = plant_step(
                T[b], Phi[b], g_r[b], link_inertia[b], rotor_mass[b], gravity[b], total_mass[b], stiffness[b], G[b],
                has_ground[b], ground[b], boxes[b], faces_mu[b], r[b], mu_c[b], k_c[b], d_c[b], eps[b], alpha_limit[b],
                q[b], v[b], u[b], kp[b], kd[b], M[b], f[b], c[b], s[b], h, secant_iterations)


def next_branch(pd: MotorPD, branch: np.ndarray, beta: np.ndarray, beta_dot: np.ndarray, beta_d: np.ndarray,
                beta_d_dot: np.ndarray) -> np.ndarray:
    """The pieces of U (:meth:`~snake_core.actuator.MotorPD.branch`) to solve a step with again, given those it was
    solved with and its end state (β, β̇): the end state's piece, but the PD where U jumped from one bound of the line
    to the other (U is monotone in β̇: the solution lies on the PD between them). The rotor's own inertia (J_r) is so
    small that the piece at the start of a step does not tell the one at its end: with the PD's K_D the step is
    overdamped, on the line it is not, and the pieces must agree with the state they produce."""
    end = pd.branch(beta, beta_dot, beta_d, beta_d_dot)
    return np.where(end * branch < 0, 0, end)


@dataclass(eq=False)
class VerticalPlant:
    model: VerticalModel
    terrain: Terrain
    contact: ContactParams
    pd: MotorPD
    _args: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        m, t, p = self.model, self.terrain, self.contact
        self._data = m.create_data()
        # the model, terrain and contact arguments of the compiled functions, in their order
        self._args = (m.T, m.Phi, m.g_r, m.link_inertia, m.rotor_mass, m.gravity, m.total_mass, m.stiffness, m.G_c,
                      t.ground is not None, 0.0 if t.ground is None else float(t.ground), t.boxes,
                      t.faces_friction(p.friction), p.threshold, p.friction, p.stiffness, p.damping, p.slip_velocity,
                      m.robot.joint_limit)
        # one step from rest: loads the compiled kernels (numba's cache, or compiles them) now, not at a
        # simulator node's first step, which would be late by that time (about a second)
        q0, beta = initial_configuration(m), np.zeros(m.n_joints)
        self.step(q0, np.zeros(m.n_q), 1e-3, beta, beta)

    def evaluate(self, q: np.ndarray, v: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """(𝕄, F, D, K, U, number of points in contact) at (q, q̇) under the command β^d."""
        d, ib = self._data, self.model.i_beta
        branch = self.pd.branch(q[ib], v[ib], beta_d, beta_d_dot)
        u, kp, kd = self.pd.on_branch(q[ib], v[ib], beta_d, beta_d_dot, branch)
        F, D, K, contact = _evaluate(*self._args, q, v, u, kp, kd, d.M, d.f, d.cos, d.sin)
        return d.M, F, D, K, u, contact[3]

    def step(self, q: np.ndarray, v: np.ndarray, h: float, beta_d: np.ndarray, beta_d_dot: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Advance by h (linearly implicit Euler); returns (q⁺, v⁺, U⁺, contacts), U⁺ the motor torque at (q⁺, q̇⁺).

        ``beta_d``, ``beta_d_dot`` are the command at the end of the step, t + h: backward Euler
        evaluates U there, on the piece of the torque–speed line that the end state is on (:func:`next_branch`),
        so U(q⁺, q̇⁺) is consistent with the state it produced.
        """
        d, ib = self._data, self.model.i_beta
        beta, beta_dot = q[ib], v[ib]
        branch = self.pd.branch(beta, beta_dot, beta_d, beta_d_dot)
        for _ in range(BRANCH_ITERATIONS):
            u, kp, kd = self.pd.on_branch(beta, beta_dot, beta_d, beta_d_dot, branch)
            q1, v1, n_c = plant_step(*self._args, q, v, u, kp, kd, d.M, d.f, d.cos, d.sin, h, SECANT_ITERATIONS)
            end = next_branch(self.pd, branch, q1[ib], v1[ib], beta_d, beta_d_dot)
            if np.array_equal(end, branch):
                break
            branch = end
        return q1, v1, self.pd.torque(q1[ib], v1[ib], beta_d, beta_d_dot)[0], n_c


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
        # VerticalPlant's arguments of the compiled functions, each stacked over runs (np.stack refuses other shapes)
        self._args = tuple(np.stack([np.asarray(p._args[i]) for p in self.plants]) for i in range(len(first._args)))
        self._M = np.stack([p.model.M_const for p in self.plants])
        m = first.model
        b = len(self.plants)
        self._f, self._c, self._s = np.zeros((b, m.n_q)), np.zeros((b, m.n_links)), np.zeros((b, m.n_links))
        self.pd, self._ib = first.pd, m.i_beta

    def step(self, q: np.ndarray, v: np.ndarray, h: float, beta_d: np.ndarray, beta_d_dot: np.ndarray,
             active: np.ndarray, n_contact: np.ndarray) -> None:
        """:meth:`VerticalPlant.step` of every active run, in place on q, v and n_contact (U⁺: :meth:`torque`)."""
        ib = self._ib
        q0, v0 = q.copy(), v.copy()
        beta, beta_dot = q0[:, ib], v0[:, ib]
        branch = self.pd.branch(beta, beta_dot, beta_d, beta_d_dot)
        todo = active
        for i in range(BRANCH_ITERATIONS):
            u, kp, kd = self.pd.on_branch(beta, beta_dot, beta_d, beta_d_dot, branch)
            plant_step_batch(*self._args, q, v, u, kp, kd, self._M, self._f, self._c, self._s, h, SECANT_ITERATIONS,
                             todo, n_contact)
            end = next_branch(self.pd, branch, q[:, ib], v[:, ib], beta_d, beta_d_dot)
            todo = todo & (end != branch).any(axis=1)
            if not todo.any() or i == BRANCH_ITERATIONS - 1:  # the last solve stands, as in VerticalPlant.step
                break
            q[todo], v[todo] = q0[todo], v0[todo]  # again from the start, on the end state's pieces
            branch = np.where(todo[:, None], end, branch)

    def torque(self, q: np.ndarray, v: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> np.ndarray:
        """U of (4.39) at the states q, q̇ under the commands β_d, β̇_d, (B, N − 1)."""
        return self.pd.torque(q[:, self._ib], v[:, self._ib], beta_d, beta_d_dot)[0]
