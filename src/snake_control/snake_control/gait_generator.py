"""gait_generator: publishes the joint references α_d, α̇_d of a snake_core gait on /gait/reference.

Parameters (config/snake_control.yaml): ``robot`` (robot file; gives the number of joints),
``rate`` [Hz], ``gait.type`` and the gaits' parameters, named as in scenarios and declared from what each
gait of ``snake_core.gaits`` publishes (description, unit, range): e.g. ``gait.amplitude`` (A, rad),
``gait.frequency`` (ω, rad/s), ``gait.phase_shift`` (φ, rad) of the pedal wave 002 (4.38), which start at its
defaults; ``gait.periods`` of the serpenoid; ``gait.angle``, ``gait.step_time`` of the rectilinear gait, unset
until given. A parameter several gaits share is declared once, with the widest range; each gait takes its own
ones (snake_core validates them). The gait parameters can
be changed at run time (``ros2 param set /gait_generator gait.amplitude 0.6``): every update is
validated by building the new gait through ``snake_core.gaits.make_gait``; a refused update leaves
the running gait untouched and the reason is returned to the caller.

Gait time t is ROS time since the node's first tick (sim time under Gazebo or the embedded
simulator: the first /clock the node sees, not the simulation's start), so the reference published
at t is exactly ``gait.reference(t)``; a change of ω takes effect at the next tick without re-phasing.
While the sim clock is stopped or has jumped back (ros_interface.watch_clock) nothing is published and
/diagnostics says ERROR.

Arming (the robot, robot.launch.py: ``armed`` false): a disarmed generator publishes nothing, so the SEA
controllers send no command (at start) or hold (β̇_d = 0, after their stale_timeout) and the robot does not move;
the service ``~/arm`` (std_srvs/SetBool) arms it (data: true; the gait starts at t = 0 at its next tick) or
disarms it (false). A restarted node comes back as ``armed`` says: on the robot, disarmed. The simulators' graphs
start armed (the default). With ``command_controllers`` (the robot: the ros2_control controllers that command the
motors, spawned inactive) arming first activates them through ``controller_manager``'s ``~/switch_controller``
(controller_manager_msgs/srv/SwitchController, STRICT, activate_asap) and arms only if they are active; disarming
stops the reference and, ``hold_wait`` later (the SEA controllers' hold, β̇_d = 0, has then reached the hardware, which
keeps the last command of a deactivated controller), deactivates them. A node started ``armed`` (a restart of an
armed robot's node) does not switch them: they are as the operator left them. With ``estop_topic`` (the robot: the
CAN bridge's e-stop) an engaged emergency stop disarms the gait and arming is refused until it is released; the
robot stays disarmed after the release until an operator arms it again.
"""

from __future__ import annotations

from collections.abc import Sequence

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock
from rclpy.node import Node
from rclpy.task import Future
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from snake_core.gaits import GAITS
from snake_core.gaits.base import Gait
from snake_core.interface import GAIT_REFERENCE, joint_names
from snake_core.registry import Param, merged, param_names
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

from .ros_interface import (
    LATCHED_QOS,
    OK,
    WARN,
    Diagnostics,
    Elapsed,
    accepted,
    declare,
    declare_param,
    declare_params,
    fix_parameters,
    joint_state,
    rejected,
    run,
    started,
    watch_clock,
)

SOURCE = "gait_generator parameters"
#: The gait the node starts with; the other gaits' parameters start unset.
DEFAULT_GAIT = "pedal_wave"
#: The node's own parameters, all read-only (``gait.type``, one of the gaits registered when the node starts, and the
#: gaits' own ``gait.<name>`` are declared beside them from snake_core.gaits, tunable).
PARAMS = (
    Param("robot", "koopaee6", "", "robot file config/robots/<robot>.yaml", kind=str),
    Param("rate", 100.0, "Hz", "publishing rate", 1.0, 1000.0),
    Param("lockstep", False, "", "the graph of a lock-stepped simulator: a /clock that keeps coming without "
          "advancing is the simulator waiting, not a stopped clock", kind=bool),
    Param("armed", True, "", "publish the gait from the start (false: nothing until ~/arm; the robot)", kind=bool),
    Param("command_controllers", "", "", "comma-separated ros2_control controllers that ~/arm activates and "
          "disarming deactivates (the robot's, spawned inactive); empty: none", kind=str),
    Param("controller_manager", "/controller_manager", "", "the controller_manager of command_controllers", kind=str),
    Param("hold_wait", 0.2, "s", "on a disarm, the time from the reference's stop to the command_controllers' "
          "deactivation: at least the SEA controllers' stale_timeout and a control period, so that the hardware "
          "keeps their hold (β̇_d = 0)", 0.0, 5.0),
    Param("estop_topic", "", "", "the robot's emergency stop (std_msgs/Bool, latched; the CAN bridge's "
          "/can_bridge/estop_engaged): true disarms, and arming is refused while it is; empty: none", kind=str),
)


def build_gait(gait_type: str, n_joints: int, values: dict, source: str) -> Gait:
    """The gait ``gait_type`` from the set values of its own parameters (validated by snake_core)."""
    spec = GAITS.get(gait_type, source)
    params = {k: values[k] for k in param_names(spec.params) if values.get(k) is not None}
    return spec.build(n_joints, params, source)


class GaitGeneratorNode(Node):
    def __init__(self, wall_clock: Clock | None = None, **kwargs) -> None:
        """``wall_clock``: what the clock watchdog measures a stop of /clock on (the steady clock; a test's own)."""
        super().__init__("gait_generator", **kwargs)
        fix_parameters(self)
        own = declare_params(self, PARAMS)
        robot, rate, lockstep = load_robot(own["robot"]), own["rate"], own["lockstep"]
        declare(self, "gait.type", DEFAULT_GAIT, "gait of snake_core.gaits", choices=tuple(GAITS.entries))
        self._keys = []
        for param, description in merged({name: spec.params for name, spec in GAITS.entries.items()},
                                         DEFAULT_GAIT).values():
            declare_param(self, "gait", param, description)
            self._keys.append(param.name)
        self.names = joint_names(robot.n_joints)
        self._n_joints = robot.n_joints
        self.gait = build_gait(self._gait_type(), robot.n_joints, self._gait_params(), SOURCE)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        # transient local: a lock-stepped controller that matches late still gets the reference of the tick
        # (volatile subscribers match as well)
        self._pub = self.create_publisher(JointState, GAIT_REFERENCE, LATCHED_QOS)
        self._diag = Diagnostics(self, "gait")
        self._elapsed = Elapsed(self)
        # a stopped or restarted sim clock: no reference
        self.clock_watchdog = watch_clock(self, self._diag, lockstep, wall=wall_clock)
        self.armed, names, manager = own["armed"], own["command_controllers"], own["controller_manager"]
        self._controllers = [n.strip() for n in names.split(",") if n.strip()]
        self._hold_wait = own["hold_wait"]
        self._switch, self._no_switch = None, ""
        if self._controllers:
            try:
                from controller_manager_msgs.srv import SwitchController  # the robot's ROS install: ros2_control
            except ImportError:  # then arming is refused, with this reason
                self._no_switch = (f"cannot activate {names}: no controller_manager_msgs (ros2_control) in this ROS "
                                   "installation")
            else:
                # its own callback group: the ~/arm callback awaits its answer, which the node's default (mutually
                # exclusive) group would hold back until that callback ended
                self._switch = self.create_client(SwitchController, f"{manager.rstrip('/')}/switch_controller",
                                                  callback_group=MutuallyExclusiveCallbackGroup())
        # arming, disarming and the e-stop one at a time, in a group of their own: the reference's timer runs on
        # while they wait (for the hold, for the controller_manager); waits run in another group again
        arming, self._waits = MutuallyExclusiveCallbackGroup(), MutuallyExclusiveCallbackGroup()
        self.estop_engaged = False
        estop = own["estop_topic"]
        if estop:
            self.create_subscription(Bool, estop, self._on_estop, LATCHED_QOS, callback_group=arming)
        self.create_service(SetBool, "~/arm", self._on_arm, callback_group=arming)
        self._timer = self.create_timer(1.0 / rate, self._tick)
        started(self, f"{self._gait_type()} for {robot.n_joints} joints on {GAIT_REFERENCE}", rate, lockstep=lockstep,
                **{k: v for k, v in self._gait_params().items() if v is not None})

    async def _on_arm(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        """Arm (the command controllers activated first, if any) or disarm (the reference stopped first)."""
        if request.data and self.estop_engaged:
            response.success, response.message = False, "emergency stop engaged: release it first, then arm"
            return response
        if request.data == self.armed:
            response.success, response.message = True, "already " + ("armed" if self.armed else "disarmed")
            return response
        error = await self._arm() if request.data else await self._disarm()
        if error:
            response.success, response.message = False, error
            self.get_logger().error(error)
            return response
        response.success = True
        response.message = "armed: the gait runs" if self.armed else "disarmed: no reference, the controllers hold"
        self.get_logger().warning(response.message)
        return response

    async def _on_estop(self, msg: Bool) -> None:
        self.estop_engaged = bool(msg.data)
        if self.estop_engaged and self.armed:
            self.get_logger().error("emergency stop engaged: disarmed (arm again once it is released)")
            error = await self._disarm()
            if error:
                self.get_logger().error(error)

    async def _arm(self) -> str:
        """The command controllers activated, then the gait started at t = 0 at the next tick; an error text, or
        ""."""
        if self._controllers:
            error = await self._switch_controllers(True) if self._switch is not None else self._no_switch
            if error:
                return error
        self._elapsed = Elapsed(self)
        self.armed = True
        return ""

    async def _disarm(self) -> str:
        """The reference stopped, then, after ``hold_wait``, the command controllers deactivated; an error text, or
        ""."""
        self.armed = False
        if not self._controllers:
            return ""
        await self._sleep(self._hold_wait)
        return await self._switch_controllers(False) if self._switch is not None else self._no_switch

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of ROS time (sim time on a simulator) without holding the node's other callbacks."""
        if seconds <= 0.0:
            return
        done = Future()
        timer = self.create_timer(seconds, lambda: done.done() or done.set_result(None), callback_group=self._waits)
        try:
            await done
        finally:
            self.destroy_timer(timer)

    async def _switch_controllers(self, activate: bool) -> str:
        """Activate or deactivate ``command_controllers`` through the controller_manager; an error text, or ""."""
        request = self._switch.srv_type.Request()
        names = list(self._controllers)
        request.activate_controllers, request.deactivate_controllers = (names, []) if activate else ([], names)
        request.strictness = request.STRICT
        request.activate_asap = True
        request.timeout.sec = 5
        verb = "activate" if activate else "deactivate"
        if not self._switch.service_is_ready():
            return f"could not {verb} {', '.join(names)}: no {self._switch.srv_name} service"
        result = await self._switch.call_async(request)
        if result is None or not result.ok:
            return (f"could not {verb} {', '.join(names)}: the controller_manager refused"
                    + (f" ({result.message})" if result is not None and result.message else ""))
        return ""

    def _gait_type(self, updates: dict | None = None) -> str:
        return (updates or {}).get("gait.type", self.get_parameter("gait.type").value)

    def _gait_params(self, updates: dict | None = None) -> dict:
        values = {key: self.get_parameter(f"gait.{key}").value for key in self._keys}
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
        if not self.armed:
            why = "disarmed by the emergency stop: no reference until its release and" if self.estop_engaged else \
                "disarmed: no reference until"
            self._diag.report(WARN, f"{why} ~/arm (data: true)")
            return
        t = self._elapsed()
        alpha_d, alpha_d_dot = self.gait.reference(t)
        self._pub.publish(joint_state(self, self.names, alpha_d, alpha_d_dot))
        self._diag.report(OK, f"{self._gait_type()} running")


def main(args: Sequence[str] | None = None) -> int:
    return run(GaitGeneratorNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
