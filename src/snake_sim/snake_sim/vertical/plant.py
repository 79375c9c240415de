"""The simulated robot: the vertical-plane model, its terrain and the actuator inner loop.

:class:`VerticalPlant` evaluates the right-hand side of 002 (4.35) for the integrator,
F = f(q, q̇) + Q^c + 𝔹U, with U the motor-side PD (4.39) on the commanded β^d, and its
linearisation D = ∂F/∂q̇, K = ∂F/∂q over the stiff terms (see :mod:`snake_sim.vertical.integrator`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from snake_core.actuator import MotorPD
from snake_core.vertical import ContactParams, ContactResult, Terrain, VerticalModel, compute_terms, contact_forces
from snake_core.vertical.contact import SLIP_JUMP

from .integrator import implicit_euler_step

#: Secant re-solves of a step before the dissipative fallback (see ``ContactResult.friction_secant``).
SECANT_ITERATIONS = 2


@dataclass(eq=False)
class VerticalPlant:
    model: VerticalModel
    terrain: Terrain
    contact: ContactParams
    pd: MotorPD
    _K_spring: np.ndarray = field(init=False, repr=False)
    _last_contact: ContactResult | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        m = self.model
        self._data = m.create_data()
        K = np.zeros((m.n_q, m.n_q))
        ia = np.arange(m.n_joints)
        ib = ia + m.n_links + 2
        kk = m.stiffness
        # −∂(K_E q)/∂q, (4.22)
        K[ia, ia] = -kk
        K[ia, ib] = kk
        K[ib, ia] = kk
        K[ib, ib] = -kk
        self._K_spring = K
        self._ib_flat = ib * (m.n_q + 1)  # flat indices of the β diagonal

    def evaluate(self, q: np.ndarray, v: np.ndarray, beta_d: np.ndarray, beta_d_dot: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """(𝕄, F, D, K, U, number of points in contact) at (q, q̇) under the command β^d."""
        m = self.model
        d = compute_terms(m, self._data, q, v)
        M, F = d.M, d.f
        c = contact_forces(m, self.terrain, self.contact, q, v, (d.cos, d.sin))
        F += c.Q
        u, linear = self.pd.torque(q[m.i_beta], v[m.i_beta], beta_d, beta_d_dot)
        F[m.i_beta] += u  # 𝔹U
        D = c.D
        K = c.K
        K += self._K_spring
        gain = 1.0 if linear is None else linear
        D.flat[self._ib_flat] -= self.pd.kd * gain  # ∂U/∂β̇ on the β diagonal
        K.flat[self._ib_flat] -= self.pd.kp * gain  # ∂U/∂β
        self._last_contact = c
        return M, F, D, K, u, c.n_active

    def step(self, q: np.ndarray, v: np.ndarray, h: float, beta_d: np.ndarray, beta_d_dot: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Advance by h (linearly implicit Euler); returns (q⁺, v⁺, U⁺, contacts), U⁺ the PD torque at (q⁺, q̇⁺).

        ``beta_d``, ``beta_d_dot`` are the command at the end of the step, t + h: backward Euler
        evaluates the (linear) PD there, so U(q⁺, q̇⁺) is consistent with the state it produced.
        """
        M, F, D, K, _, n_c = self.evaluate(q, v, beta_d, beta_d_dot)
        q1, v1 = implicit_euler_step(q, v, h, M, F, D, K)
        c = self._last_contact
        # A slip velocity that jumped by many ε: re-solve with the chord slope of the friction law until
        # the slip velocities settle; if they do not, fall back to the dissipative (damper) form.
        tol = SLIP_JUMP * self.contact.slip_velocity
        for _ in range(SECANT_ITERATIONS):
            dD = c.friction_secant(self.contact, v1)
            if dD is None:
                break
            v_prev = v1
            q1, v1 = implicit_euler_step(q, v, h, M, F, D + dD, K)
            if np.max(np.abs(c.Jt @ (v1 - v_prev))) < tol:
                break
        else:
            dD = c.friction_secant(self.contact, v1, dissipative=True)
            if dD is not None:
                q1, v1 = implicit_euler_step(q, v, h, M, F, D + dD, K)
        ib = self.model.i_beta
        return q1, v1, self.pd.torque(q1[ib], v1[ib], beta_d, beta_d_dot)[0], n_c
