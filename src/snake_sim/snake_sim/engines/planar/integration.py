"""How 004's planar system is integrated, shared by the runtime (:mod:`snake_sim.engines.planar.runtime`, the whole
run in one solve) and the stepper of the ROS simulator (:mod:`snake_sim.engines.planar.stepper`, one control period
at a time): the start state, the method, the tolerances and the status of a torque blow-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from snake_core.planar.convention import reverse_joints

if TYPE_CHECKING:
    from .runtime import PlanarSetup


#: Integrator tolerances: 004 §6.1.3's conservation check of g needs rtol ≤ 1e-8 (docs/readings.md "004 §6.1.3").
RTOL = 1e-8
ATOL = 1e-10


def initial_state(setup: PlanarSetup) -> np.ndarray:
    """x(0) = [q0, q̇ = 0] (and, through SEAs, [β = α(0), β̇ = 0])."""
    d = setup.model.dof
    x0 = np.concatenate((setup.q0, np.zeros(d)))
    if setup.sea is not None:
        x0 = np.concatenate((x0, reverse_joints(setup.q0[3:]), np.zeros(setup.model.n_joints)))
    return x0


def integration_method(setup: PlanarSetup) -> str:
    """LSODA where SEA rotors or regularised Coulomb friction make the system stiff, else DOP853."""
    stiff = setup.sea is not None or setup.model.mu_x > 0.0 or setup.model.mu_y > 0.0
    return "LSODA" if stiff else "DOP853"


def blowup_status(setup: PlanarSetup, t: float) -> str:
    """The status of a run stopped at ``t`` because ‖τ‖ exceeded controller.blowup_torque."""
    return (f"torque blow-up: ‖τ‖ exceeded controller.blowup_torque = {setup.blowup_torque:g} N·m at "
            f"t = {t:.3f} s (tracking lost)")
