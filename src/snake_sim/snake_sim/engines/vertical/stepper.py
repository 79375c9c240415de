"""002's vertical-plane model stepped from outside with motor commands (see :mod:`snake_sim.core.stepping`).

The forward command controller sends β_d only (std_msgs/Float64MultiArray), so β̇_d, which the motor-side
PD (002 (4.39)) feeds forward, is the backward difference of successive commands, as a module's firmware
would form it (a caller that has the controllers' β̇_d may pass it). A period is then integrated by the SEA
loop's :class:`~snake_sim.core.sea_loop.CommandRamp`, as the embedded runtime integrates it
(:mod:`snake_sim.engines.vertical.runtime`): the command extrapolated to second order with the rate change of the
last period, so that driven by the runtime's controllers the stepper gives the runtime's run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from snake_core.interface import plane_quaternion
from snake_core.planar.head_state import to_head_frame
from snake_core.vertical.dynamics import sea_torque
from snake_core.vertical.kinematics import contact_points, link_angles

from ...core.sea_loop import CommandRamp
from ...core.stepping import HeadSample, JointSample, SimulationDiverged, check_command

if TYPE_CHECKING:
    from .model import VerticalData, VerticalSetup


class VerticalStepper:
    """002's vertical-plane model (4.35) with the motor-side PD (4.39) and the scenario's world."""

    command_interface = "position"

    def __init__(self, setup: VerticalSetup, data: VerticalData) -> None:
        self.setup, self.data = setup, data
        self.t = 0.0
        self.control_period = setup.control_period
        self._ramp = CommandRamp(setup.control_period)
        self._previous_command: np.ndarray | None = None
        self._tip = self._tip_pose()
        self._tip_rate = (np.zeros(3), 0.0)

    def _tip_pose(self) -> tuple[np.ndarray, float]:
        """Head tip (x, 0, z) — the last contact candidate of §4.6 — and the head link's angle θ_N."""
        model = self.setup.model
        x, z = contact_points(model, self.data.q)
        return np.array([x[-1], 0.0, z[-1]]), float(link_angles(model, self.data.q)[-1])

    def joints(self) -> JointSample:
        model, q, v = self.setup.model, self.data.q, self.data.v
        return JointSample(q[model.i_alpha].copy(), v[model.i_alpha].copy(), sea_torque(model, q),
                           beta=q[model.i_beta].copy(), beta_dot=v[model.i_beta].copy(),
                           motor_torque=self.data.u.copy())

    def head(self) -> HeadSample:
        (position, theta), (velocity, rate) = self._tip, self._tip_rate
        forward, up = to_head_frame(velocity[0], velocity[2], theta)
        # RunLog's "xz" plane: θ about −y (snake_core.interface.plane_quaternion), so the head turns at −θ̇ about its y
        return HeadSample(position, plane_quaternion("xz", np.array(theta)), np.array([forward, 0.0, up]),
                          np.array([0.0, -rate, 0.0]))

    def hold_command(self) -> np.ndarray:
        """β_d that keeps the motors where they are (before any command arrives)."""
        return self.data.q[self.setup.model.i_beta].copy()

    def step(self, command: np.ndarray, rate: np.ndarray | None = None) -> None:
        """Advance one control period with the motor command β_d (tail → head) and its rate β̇_d (default: the
        backward difference of successive commands)."""
        setup = self.setup
        beta_d = check_command(command, setup.model.n_joints)
        previous = beta_d if self._previous_command is None else self._previous_command
        beta_d_dot = (beta_d - previous) / self.control_period if rate is None else check_command(
            rate, setup.model.n_joints)
        self._previous_command = beta_d
        self._ramp.advance(setup, self.data, beta_d, beta_d_dot)
        if not setup.finite(self.data):
            raise SimulationDiverged(f"non-finite state at t = {self.t + self.control_period:.4f} s with "
                                     f"sim.time_step = {setup.time_step:g} s")
        self.t += self.control_period
        previous_tip, self._tip = self._tip, self._tip_pose()
        self._tip_rate = ((self._tip[0] - previous_tip[0]) / self.control_period,
                          (self._tip[1] - previous_tip[1]) / self.control_period)
