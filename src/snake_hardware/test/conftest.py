"""A lock-step rig: the driver and one emulated module per joint on a python-can virtual bus, time
driven explicitly (no sleeping), plus a sniffer that sees every frame on the bus. The ``rig`` fixture
runs every test that uses it on every bus profile (protocol.PROFILES)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import replace

import can
import numpy as np
import pytest

from snake_core.gaits import make_gait
from snake_core.gaits.pedal_wave import REFERENCE_GAIT
from snake_core.robot import RobotParams, load_robot
from snake_hardware import protocol as p
from snake_hardware.driver import CanDriver, DriverConfig
from snake_hardware.emulator import EmulatedRobot
from snake_hardware.faults import FaultSwitches, FaultyBus
from snake_sim_ros.body_plant import BodyPlant

_channels = itertools.count()


class Rig:
    def __init__(self, robot_name: str = "koopaee6", rate: float = 250.0, config: DriverConfig | None = None,
                 true_zero_offsets=None, body: BodyPlant | None = None, profile: str = "classic",
                 robot: RobotParams | None = None):
        self.robot = replace(robot or load_robot(robot_name), can_profile=profile)
        self.channel = f"snake_test_{next(_channels)}"
        self.switches = FaultSwitches()
        self.emu = EmulatedRobot(self.robot, self.bus, true_zero_offsets=true_zero_offsets, body=body)
        self.sniffer = self.bus()
        self.driver = CanDriver(self.robot, lambda: FaultyBus(self.bus(), self.switches), config)
        self.dt = 1.0 / rate
        #: the wire's step of β_d on this profile (1e-4 rad, or one encoder count)
        self.reference_lsb = next(s.scale for s in p.PROFILES[profile].command.signals if s.name.startswith("beta_ref"))
        self.t = 0.0
        self.commands: list[tuple[float, int, float]] = []  # (time, node, β_ref) of every COMMAND on the bus
        self.alpha_at_command: list[float] = []  # the module's true α when it received that command
        self.sent = Counter()  # frames on the bus by kind
        self.wire_bits = np.zeros(2)  # (nominal-rate, data-rate) bits of those frames, worst-case stuffing

    def bus(self) -> can.BusABC:
        return can.Bus(interface="virtual", channel=self.channel, receive_own_messages=False)

    def gait(self, params=None):
        return make_gait("pedal_wave", self.robot.n_joints, params or REFERENCE_GAIT)

    def cycle(self, beta_d=None, beta_rate_d=None) -> None:
        """One control cycle: fresh command (unless None), driver step, modules run until the next cycle."""
        if beta_d is not None:
            self.driver.set_command(beta_d, beta_rate_d, self.t)
        # (α, β) behind the last STATE each module sent: what the driver reads in this step
        self.true_at_step = np.array([m.last_state_true for m in self.emu.modules])
        self.driver.step(self.t)
        self._sniff()
        self.t += self.dt
        self.emu.advance(self.t)

    def _sniff(self) -> None:
        index = {m.model.node: m for m in self.emu.modules}
        while (msg := self.sniffer.recv(timeout=0)) is not None:
            try:
                frame = p.decode(msg.arbitration_id, bytes(msg.data), extended=msg.is_extended_id)
            except p.ProtocolError:
                continue  # injected garbage
            self.sent[frame.kind] += 1
            self.wire_bits += p.phase_bits(p.frame_type(frame.kind), len(msg.data))
            for node, beta in sent_references(self.robot.can_ids, frame):
                self.commands.append((self.t, node, beta))
                self.alpha_at_command.append(float(index[node].x[0]))

    def run_gait(self, duration: float, gait=None, on_cycle=None) -> None:
        gait = gait or self.gait()
        for _ in range(round(duration / self.dt)):
            a_d, a_d_dot = gait.reference(self.t)
            self.cycle(a_d, a_d_dot)  # position mode, 002 C_p: β_d = α_d (4.39)
            if on_cycle is not None:
                on_cycle(self)

    def start(self, settle: float = 0.5) -> None:
        """Let the modules announce themselves and be enabled, then hold still (β_d = measured β)."""
        while self.t < settle:
            self.cycle(self.driver.beta.copy())

    def close(self) -> None:
        self.driver.close()
        self.emu.shutdown()
        self.sniffer.shutdown()

    def true_alpha(self) -> np.ndarray:
        return np.array([m.x[0] for m in self.emu.modules])


def sent_references(nodes, frame: p.Frame) -> list[tuple[int, float]]:
    """(module id, β_d) of every joint a command frame gives a reference to, on any profile."""
    if frame.kind == "COMMAND":
        return [(frame.node, frame.values["beta_ref"])]
    grouped = {prof.command.name: prof for prof in p.PROFILES.values() if prof.command is not p.COMMAND}
    if frame.kind not in grouped:
        return []
    out = []
    for j, node in enumerate(nodes, start=1):
        group, signal = grouped[frame.kind].command_slot(j)
        beta = frame.values.get(signal, math.nan)
        if group == frame.node and not math.isnan(beta):
            out.append((node, beta))
    return out


@pytest.fixture(params=tuple(p.PROFILES))
def profile(request) -> str:
    return request.param


@pytest.fixture
def rig(profile):
    made = []

    def make(**kw) -> Rig:
        r = Rig(**{"profile": profile, **kw})
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


from snake_test_support.ros import ros  # noqa: E402, F401  (the fixture: nodes on real rclpy)
