"""gait_generator: publishes the joint references α_d, α̇_d of a snake_core gait on /gait/reference.

Parameters (config/snake_control.yaml): ``robot`` (robot file; gives the number of joints),
``rate`` [Hz], ``gait.type`` and the gait's parameters, named as in scenarios: ``gait.amplitude``
(A, rad), ``gait.frequency`` (ω, rad/s), ``gait.phase_shift`` (φ, rad) of the pedal wave 002 (4.38);
``gait.periods`` of the serpenoid; ``gait.angle``, ``gait.step_time`` of the rectilinear gait. Each
gait takes the ones it accepts (snake_core validates them). The gait parameters can
be changed at run time (``ros2 param set /gait_generator gait.amplitude 0.6``): every update is
validated by building the new gait through ``snake_core.gaits.make_gait``; a refused update leaves
the running gait untouched and the reason is returned to the caller.

Gait time t is ROS time since the node's first tick (sim time under Gazebo or the embedded
simulator: the first /clock the node sees, not the simulation's start), so the reference published
at t is exactly ``gait.reference(t)``; a change of ω takes effect at the next tick without re-phasing.
While the sim clock is stopped or has jumped back (ros_interface.watch_clock) nothing is published and
/diagnostics says ERROR.
"""

from __future__ import annotations

from collections.abc import Sequence

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from sensor_msgs.msg import JointState

from snake_core.gaits import GAIT_MODULES, make_gait
from snake_core.gaits.base import Gait
from snake_core.gaits.pedal_wave import MAX_PHASE_SHIFT, REFERENCE_GAIT
from snake_core.gaits.serpenoid import MAX_FREQUENCY, MAX_WINDING_ANGLE
from snake_core.interface import GAIT_REFERENCE, joint_names
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

from .ros_interface import (
    LATCHED_QOS,
    OK,
    Diagnostics,
    Elapsed,
    accepted,
    declare,
    fix_parameters,
    joint_state,
    rejected,
    run,
    watch_clock,
)

SOURCE = "gait_generator parameters"

#: Gait parameters with a typed default (002 §5 reference experiment: A = π/6, ω = π, φ = −2π/5) and range.
GAIT_DEFAULTS = {
    "amplitude": (REFERENCE_GAIT["amplitude"], "A [rad] (pedal wave, 002 (4.38)) or winding angle α (serpenoid, "
                  "004 (43))", 0.0, MAX_WINDING_ANGLE),
    "frequency": (REFERENCE_GAIT["frequency"], "ω [rad/s] (002 (4.38)) or v (004 (43))", -MAX_FREQUENCY,
                  MAX_FREQUENCY),
    "phase_shift": (REFERENCE_GAIT["phase_shift"], "φ [rad] between neighbouring joints (pedal wave, 002 (4.38))",
                    -MAX_PHASE_SHIFT, MAX_PHASE_SHIFT),
}
#: Parameters of other gaits, unset unless given (the gait module says when one is required).
GAIT_OPTIONAL = {
    "periods": "T_s, periods of the curve along the body (serpenoid, 004 (43))",
    "angle": "joint angle of the rectilinear gait [rad] (003)",
    "step_time": "duration of one rectilinear step [s] (003)",
}


def build_gait(gait_type: str, n_joints: int, values: dict, source: str) -> Gait:
    """``make_gait`` with the parameters that ``gait_type`` accepts: snake_core's own validation says
    which ones it does not (one "unknown field" refusal per key), so no list is kept here."""
    params = {k: v for k, v in values.items() if v is not None}
    while True:
        try:
            return make_gait(gait_type, n_joints, params, source)
        except ConfigError as exc:
            key = exc.field.removeprefix("gait.")
            if not exc.allowed.startswith("unknown field") or key not in params:
                raise
            del params[key]


class GaitGeneratorNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("gait_generator", **kwargs)
        fix_parameters(self)
        robot = load_robot(declare(self, "robot", "koopaee6", "robot file config/robots/<robot>.yaml",
                                   read_only=True))
        rate = declare(self, "rate", 100.0, "publishing rate [Hz]", low=1.0, high=1000.0, read_only=True)
        declare(self, "gait.type", "pedal_wave", "gait of snake_core.gaits", choices=tuple(GAIT_MODULES))
        for key, (default, description, low, high) in GAIT_DEFAULTS.items():
            declare(self, f"gait.{key}", default, description, low=low, high=high)
        for key, description in GAIT_OPTIONAL.items():
            self.declare_parameter(f"gait.{key}", None, ParameterDescriptor(description=description,
                                                                            dynamic_typing=True))
        self.names = joint_names(robot.n_joints)
        self._n_joints = robot.n_joints
        self.gait = build_gait(self._gait_type(), robot.n_joints, self._gait_params(), SOURCE)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        # transient local: a lock-stepped controller that matches late still gets the reference of the tick
        # (volatile subscribers match as well)
        self._pub = self.create_publisher(JointState, GAIT_REFERENCE, LATCHED_QOS)
        self._diag = Diagnostics(self, "gait")
        self._elapsed = Elapsed(self)
        self.clock_watchdog = watch_clock(self, self._diag)  # a stopped or restarted sim clock: no reference
        self._timer = self.create_timer(1.0 / rate, self._tick)

    def _gait_type(self, updates: dict | None = None) -> str:
        return (updates or {}).get("gait.type", self.get_parameter("gait.type").value)

    def _gait_params(self, updates: dict | None = None) -> dict:
        keys = [*GAIT_DEFAULTS, *GAIT_OPTIONAL]
        values = {key: self.get_parameter(f"gait.{key}").value for key in keys}
        values.update({name.removeprefix("gait."): v for name, v in (updates or {}).items() if name != "gait.type"})
        return values

    def _on_set_parameters(self, params: Sequence) -> object:
        updates = {p.name: p.value for p in params if p.name.startswith("gait.")}
        if not updates:
            return accepted()
        try:
            gait = build_gait(self._gait_type(updates), self._n_joints, self._gait_params(updates), SOURCE)
        except ConfigError as exc:
            return rejected(exc)
        self.gait = gait
        return accepted()

    def _tick(self) -> None:
        if self.clock_watchdog.check() is not None:
            return
        t = self._elapsed()
        alpha_d, alpha_d_dot = self.gait.reference(t)
        self._pub.publish(joint_state(self, self.names, alpha_d, alpha_d_dot))
        self._diag.report(OK, f"{self._gait_type()} running")


def main(args: Sequence[str] | None = None) -> int:
    return run(GaitGeneratorNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
