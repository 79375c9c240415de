"""The whole snake behind emulated modules (``snake-can emulate --body WORLD``): the embedded simulator's
vertical-plane model stepped once per firmware tick. The simulator's side of the emulator: snake_hardware finds it
through the entry point group ``snake_hardware.bodies`` (snake_hardware.cli.BODY_GROUP) and never imports it;
only that mode loads the simulator."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from snake_hardware.emulator import TICK
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical.model import build


class BodyPlant:
    """The whole snake behind the modules: the embedded simulator's vertical-plane model (002 (4.35),
    contacts with the world, gravity), stepped once per firmware tick. Its motor-side PD is 002 (4.39)
    with the robot file's gains (the firmware's CONFIG gains, integral term and stall limit are not
    used in this mode); a disabled module is free (β_d = β, β̇_d = β̇: U = 0). ``overrides`` (``KEY=VALUE``, as
    ``snake-sim run --set``) change the body's scenario fields, validated as a scenario's (e.g. ``contact.friction``,
    ``robot.motor_kp``, ``robot.sea_stiffness``: a body that is not the robot file's, for calibration tests)."""

    def __init__(self, robot_name: str, world: str = "flat", overrides: Sequence[str] = ()):
        setup = build(load_scenario("pedal-wave", [f"robot.name={robot_name}", f"world.file={world}", *overrides]))
        self.plant, self.model = setup.plant, setup.model
        self.n_joints = self.model.n_joints
        self.q, self.v = setup.q0.copy(), np.zeros_like(setup.q0)

    def step(self, beta_d: np.ndarray, beta_rate_d: np.ndarray) -> None:
        self.q, self.v, _, _ = self.plant.step(self.q, self.v, TICK, beta_d, beta_rate_d)

    def joint(self, j: int) -> np.ndarray:
        """(α_j, α̇_j, β_j, β̇_j) of joint j (0-based, tail → head)."""
        ia, ib = self.model.i_alpha, self.model.i_beta
        return np.array([self.q[ia][j], self.v[ia][j], self.q[ib][j], self.v[ib][j]])
