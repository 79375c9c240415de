"""gz_ros2_control as Gazebo runs it, from the same file the Gazebo launch loads
(``config/controllers/<robot>_gz.yaml``): the controller manager's update rate, the forward command
controller(s) in front, ``pid_controller/PidController`` on the motor joints' effort interface.

One update (ros2_controllers jazzy, pid_controller.cpp ``update_and_write_commands``; control_toolbox Pid),
every ``1/update_rate`` seconds of simulated time, reading the joint states of the last physics step:

- the forward command controllers copy the last published array (β_d on ``interface_name: position``, and
  β̇_d if a second one writes ``velocity``) into the PID's reference interfaces; before the first message the
  reference is the state at activation (``set_current_state_as_first_setpoint``);
- per dof: ``u = ff·r_v + p e + i ∫e + d ė`` with e = r − x, ė = r_v − ẋ when both
  ``reference_and_state_interfaces`` are given (position, velocity) and the velocity reference is set, else
  the difference quotient of e (control_toolbox ``compute_command(error, dt)``); the feed-forward
  ``ff = feedforward_gain`` multiplies the velocity reference (two interfaces) or the position reference
  (one), only with ``enable_feedforward``; the I term i ∫e is clamped to [i_clamp_min, i_clamp_max];
- gz_ros2_control writes u to the joint's force command at every physics step (held between updates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from snake_core import locator, yaml_files
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

PID_TYPE = "pid_controller/PidController"
FORWARD_TYPE = "forward_command_controller/ForwardCommandController"
PID_NAME = "motor_pd_controller"


@dataclass(frozen=True)
class PidGains:
    """One dof's ``gains`` of pid_controller (defaults: pid_controller.yaml, jazzy)."""

    p: float = 0.0
    i: float = 0.0
    d: float = 0.0
    feedforward_gain: float = 0.0
    i_clamp_max: float = math.inf
    i_clamp_min: float = -math.inf


@dataclass(frozen=True)
class GzControl:
    """The controllers file of a SEA robot in Gazebo, as the controller manager reads it."""

    path: Path
    update_rate: float  # controller_manager update_rate [Hz]
    dofs: tuple[str, ...]  # pid dof_names (motor_1 … motor_{N−1})
    interfaces: tuple[str, ...]  # reference_and_state_interfaces: ("position",) or ("position", "velocity")
    enable_feedforward: bool
    gains: tuple[PidGains, ...]  # per dof
    forwards: tuple[str, ...]  # the interfaces the forward command controllers write: "position"[, "velocity"]

    def summary(self) -> dict[str, Any]:
        """What summary.json reports of the Gazebo configuration."""
        g = self.gains[0]
        return {"controllers_file": self.path.name, "update_rate_hz": self.update_rate,
                "reference_and_state_interfaces": list(self.interfaces), "enable_feedforward": self.enable_feedforward,
                "p": g.p, "i": g.i, "d": g.d, "feedforward_gain": g.feedforward_gain,
                "forward_commands": list(self.forwards)}


def _params(cfg: dict[str, Any], name: str, source: str) -> dict[str, Any]:
    try:
        params = cfg[name]["ros__parameters"]
    except (KeyError, TypeError) as exc:
        raise ConfigError(name, None, "missing ros__parameters", source) from exc
    if not isinstance(params, dict):
        raise ConfigError(f"{name}.ros__parameters", params, "must be a mapping", source)
    return params


def load_gz_control(robot: RobotParams, path: Path | None = None) -> GzControl:
    """Read ``config/controllers/<robot>_gz.yaml`` (or ``path``); ConfigError naming the field if it is not the
    chain forward command controller(s) → pid_controller on the motor joints' effort interface."""
    path = path or locator.data_dir() / "config" / "controllers" / f"{robot.name}_gz.yaml"
    source = path.name
    cfg = yaml_files.safe_load(path.read_text())
    cm = _params(cfg, "controller_manager", source)
    types = {k: v.get("type") for k, v in cm.items() if isinstance(v, dict)}
    update_rate = float(cm.get("update_rate", 100))
    if types.get(PID_NAME) != PID_TYPE:
        raise ConfigError(f"controller_manager.{PID_NAME}.type", types.get(PID_NAME), f"must be {PID_TYPE}",
                          source)
    pid = _params(cfg, PID_NAME, source)
    dofs = tuple(pid.get("dof_names", ()))
    motors = tuple(f"motor_{j}" for j in range(1, robot.n_joints + 1))
    if dofs != motors:
        raise ConfigError(f"{PID_NAME}.dof_names", list(dofs), f"must be {list(motors)}", source)
    if pid.get("command_interface") != "effort":
        raise ConfigError(f"{PID_NAME}.command_interface", pid.get("command_interface"), "must be effort", source)
    interfaces = tuple(pid.get("reference_and_state_interfaces", ()))
    if interfaces not in (("position",), ("position", "velocity")):
        raise ConfigError(f"{PID_NAME}.reference_and_state_interfaces", list(interfaces),
                          "must be [position] or [position, velocity]", source)
    gains = []
    for name in dofs:
        g = pid.get("gains", {}).get(name)
        if not isinstance(g, dict):
            raise ConfigError(f"{PID_NAME}.gains.{name}", g, "must be a mapping of p, i, d", source)
        gains.append(PidGains(**{k: float(g[k]) for k in PidGains.__dataclass_fields__ if k in g}))
    forwards = []
    for name, typ in types.items():
        if typ != FORWARD_TYPE:
            continue
        fwd = _params(cfg, name, source)
        if list(fwd.get("joints", ())) != [f"{PID_NAME}/{n}" for n in dofs]:
            raise ConfigError(f"{name}.joints", fwd.get("joints"), f"must be {PID_NAME}/<dof> for every dof", source)
        forwards.append(fwd.get("interface_name"))
    if not forwards or forwards[0] != "position" or (len(forwards) > 1 and forwards[1:] != ["velocity"]):
        raise ConfigError("controller_manager", sorted(types), "needs a forward command controller on the PID's "
                          "position references (and optionally one on its velocity references)", source)
    return GzControl(path, update_rate, dofs, interfaces, bool(pid.get("enable_feedforward", False)),
                     tuple(gains), tuple(forwards))


@dataclass(eq=False)
class PidState:
    """The controllers' state between updates: references, the integral and the last error per dof."""

    reference: np.ndarray  # position reference r [rad]
    reference_rate: np.ndarray  # velocity reference r_v [rad/s] (NaN: never written)
    integral: np.ndarray  # the I term, i ∫e, clamped [N·m]
    last_error: np.ndarray  # NaN before the first update


def activate(control: GzControl, position: np.ndarray) -> PidState:
    """The state at activation: the current positions as the first setpoint."""
    n = len(control.dofs)
    return PidState(np.array(position, dtype=float), np.full(n, np.nan), np.zeros(n), np.full(n, np.nan))


def forward(control: GzControl, state: PidState, beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
    """The forward command controllers: the last published β_d (and β̇_d if one writes velocity references)."""
    state.reference[:] = beta_d
    if "velocity" in control.forwards:
        state.reference_rate[:] = beta_d_dot


def update(control: GzControl, state: PidState, x: np.ndarray, x_dot: np.ndarray, dt: float) -> np.ndarray:
    """One pid_controller update: the effort commands (N−1,) [N·m] from the states x, ẋ; ``dt`` the update period."""
    p = np.array([g.p for g in control.gains])
    i = np.array([g.i for g in control.gains])
    d = np.array([g.d for g in control.gains])
    ff = np.array([g.feedforward_gain for g in control.gains]) if control.enable_feedforward else 0.0
    two = len(control.interfaces) == 2
    rate_set = two & np.isfinite(state.reference_rate)
    error = state.reference - x
    feedforward = np.where(rate_set, ff * state.reference_rate, 0.0) if two else ff * state.reference
    error_dot = np.where(rate_set, state.reference_rate - x_dot,
                         np.where(np.isfinite(state.last_error), (error - state.last_error) / dt, 0.0))
    state.integral = np.clip(state.integral + i * dt * error,
                             [g.i_clamp_min for g in control.gains], [g.i_clamp_max for g in control.gains])
    state.last_error = error
    return feedforward + p * error + state.integral + d * error_dot
