"""can_bridge: the rclpy node between the joint-module CAN bus and ROS 2 (thin: parameters, message
conversion, a timer; the logic is in :mod:`snake_hardware.bridge` and :mod:`snake_hardware.driver`).

    ros2 run snake_hardware can_bridge --ros-args -p can_interface:=can0 -p robot:=koopaee6

Publishes sensor_msgs/JointState on ``joint_states_topic`` (default /can_bridge/joint_states, read by
ros2_control's topic hardware, joint_state_topic_hardware_interface) and diagnostic_msgs/DiagnosticArray on
/diagnostics; subscribes to sensor_msgs/JointState β_d, β̇_d on ``joint_commands_topic`` (default
/can_bridge/joint_commands, written by that hardware interface) and, if ``array_commands_topic`` is set (e.g. to
/motor_position_controller/commands when running without ros2_control), to a Float64MultiArray. With
``deadman_topic`` (robot.launch.py: /motor_position_controller/commands, what the SEA controllers send into
ros2_control) nothing heard there for ``command_timeout`` holds the robot: Jazzy's forward_command_controller writes
its last command on every update and the topic hardware publishes it with a fresh stamp, so a controller that died or
hangs would otherwise leave the modules on its last β_d and β̇_d.
The interface must be up already (docs/can_protocol.md); the node never configures it.

Service ``~/estop`` (std_srvs/SetBool): ``data: true`` engages the emergency stop of every module, ``data: false``
releases it through the driver (:meth:`snake_hardware.driver.CanDriver.release`): the robot moves again once every
module has confirmed, which ``can_bridge: safety`` on /diagnostics shows. /can_bridge/estop_engaged (std_msgs/Bool,
latched) is true from any e-stop (this service, ``snake-can estop``, a module's own) until that confirmation: the
gait generator disarms on it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

import can
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.clock import Clock
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray
from std_srvs.srv import SetBool

from snake_control.ros_interface import (
    COMMAND_QOS,
    LATCHED_QOS,
    SENSOR_QOS,
    ClockWatchdog,
    declare_params,
    fix_parameters,
    joint_state,
    run,
)
from snake_core.interface import (
    CAN_BRIDGE_ESTOP_ENGAGED,
    CAN_BRIDGE_JOINT_COMMANDS,
    CAN_BRIDGE_JOINT_STATES,
    DIAGNOSTICS,
)
from snake_core.registry import Param
from snake_core.robot import CAN_PROFILES, load_robot
from snake_core.validation import ConfigError

from .bridge import CanBridge
from .driver import CanDriver, DriverConfig, open_bus
from .protocol import PROFILES

DIAGNOSTICS_PERIOD = 1.0  # s, plus at once on any change

#: The node's own parameters, all read-only.
PARAMS = (
    Param("realtime_priority", 0, "", "SCHED_FIFO priority of the bridge's loop (0: normal scheduling)", 0, 98,
          kind=int),
    Param("robot", "koopaee6", "", "robot file config/robots/<robot>.yaml", kind=str),
    Param("can_profile", "", "", "bus profile; empty: the robot file's can.profile", kind=str,
          choices=("", *CAN_PROFILES)),
    Param("can_bus_type", "socketcan", "", "python-can interface (socketcan, virtual, pcan, …)", kind=str),
    Param("can_interface", "can0", "", "CAN channel (SocketCAN interface name)", kind=str),
    Param("rate", 250.0, "Hz", "control loop rate (bus load: snake-can bench)", 1.0, 1000.0),
    Param("command_timeout", 0.1, "s", "no fresh command for this long holds the robot", 0.005, 10.0),
    Param("state_timeout", 0.35, "s", "a module without a state frame this long is lost", 0.05, 10.0),
    Param("joint_states_topic", CAN_BRIDGE_JOINT_STATES, "", "JointState output topic", kind=str),
    Param("joint_commands_topic", CAN_BRIDGE_JOINT_COMMANDS, "", "JointState β_d input topic (motor_<j>)", kind=str),
    Param("array_commands_topic", "", "", "optional Float64MultiArray β_d input (tail → head); empty: none",
          kind=str),
    Param("deadman_topic", "", "", "the controllers' own Float64MultiArray command topic upstream of ros2_control: "
          "nothing on it for command_timeout holds the robot; empty: none", kind=str),
)


class CanBridgeNode(Node):
    def __init__(self, wall_clock: Clock | None = None, **kwargs) -> None:
        """``wall_clock``: what the clock watchdog measures a stop of /clock on (the steady clock; a test's own)."""
        super().__init__("can_bridge", **kwargs)
        fix_parameters(self)  # use_sim_time: set at start only
        own = declare_params(self, PARAMS)
        priority = own["realtime_priority"]
        if priority:  # before the bus and the timers: the threads they start inherit it
            self.get_logger().info(realtime(priority))
        robot = load_robot(own["robot"])
        if own["can_profile"]:
            robot = replace(robot, can_profile=own["can_profile"])
        interface, channel, rate = own["can_bus_type"], own["can_interface"], own["rate"]
        config = DriverConfig(command_timeout=own["command_timeout"], state_timeout=own["state_timeout"])
        states_topic, commands_topic = own["joint_states_topic"], own["joint_commands_topic"]
        array_topic, deadman_topic = own["array_commands_topic"], own["deadman_topic"]
        bus_profile = PROFILES[robot.can_profile]
        try:
            driver = CanDriver(robot, lambda: open_bus(interface, channel, fd=bus_profile.fd), config)
        except (OSError, can.CanError) as exc:
            fd_up = f"dbitrate {bus_profile.data_bitrate:.0f} fd on " if bus_profile.fd else ""
            raise ConfigError("can_interface", channel, f"cannot open the {interface} bus ({exc}); bring it up "
                              f"first: ip link set can0 up type can bitrate 1000000 {fd_up}restart-ms 100") from exc
        self.bridge = CanBridge(driver)
        self._states = self.create_publisher(JointState, states_topic, SENSOR_QOS)
        self._diag = self.create_publisher(DiagnosticArray, DIAGNOSTICS, COMMAND_QOS)
        self._estop = self.create_publisher(Bool, CAN_BRIDGE_ESTOP_ENGAGED, LATCHED_QOS)
        self._estop_engaged: bool | None = None
        self.create_subscription(JointState, commands_topic, self._on_joint_command, COMMAND_QOS)
        if array_topic:
            self.create_subscription(Float64MultiArray, array_topic, self._on_array_command, COMMAND_QOS)
        if deadman_topic:
            driver.watch_upstream(deadman_topic)
            self.create_subscription(Float64MultiArray, deadman_topic, self._on_upstream, COMMAND_QOS)
        self._last_diag: list[tuple[str, int, str]] | None = None
        self._last_diag_time = -1e9
        self.create_timer(1.0 / rate, self._tick)
        # sim time that stops or jumps back holds the robot (and the loop goes on, on the wall clock)
        self._ros_time = ClockWatchdog(self, self._on_clock, self._tick, wall=wall_clock)
        self.create_service(SetBool, "~/estop", self._on_estop)

    def _on_joint_command(self, msg: JointState) -> None:
        self.bridge.on_named_command(list(msg.name), list(msg.position), list(msg.velocity), self._ros_time.monotonic())

    def _on_array_command(self, msg: Float64MultiArray) -> None:
        self.bridge.on_array_command(list(msg.data), self._ros_time.monotonic())

    def _on_upstream(self, _msg: Float64MultiArray) -> None:
        self.bridge.driver.upstream_heard(self._ros_time.monotonic())

    def _on_clock(self, reason: str | None) -> None:
        self.bridge.driver.clock_fault(reason, self._ros_time.monotonic())

    def _on_estop(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        now = self._ros_time.monotonic()
        if request.data:
            self.bridge.driver.estop(now)
            response.message = "emergency stop engaged: every module holds until released"
        else:
            self.bridge.driver.release(now)
            response.message = ("release sent: the robot moves again once every module confirms (can_bridge: safety "
                                "on /diagnostics)")
        self.get_logger().warning(response.message)
        response.success = True
        return response

    def _tick(self) -> None:
        now = self._ros_time.monotonic()
        s = self.bridge.step(now)
        self._states.publish(joint_state(self, s.name, s.position, s.velocity, s.effort))
        engaged = "estop" in self.bridge.driver.faults
        if engaged != self._estop_engaged:
            self._estop_engaged = engaged
            self._estop.publish(Bool(data=engaged))
        records = self.bridge.diagnostics()
        summary = [(r.name, r.level, r.message) for r in records]
        if summary != self._last_diag or now - self._last_diag_time >= DIAGNOSTICS_PERIOD:
            self._last_diag, self._last_diag_time = summary, now
            array = DiagnosticArray(status=[DiagnosticStatus(
                level=bytes([r.level]) if isinstance(DiagnosticStatus.OK, bytes) else r.level,
                name=r.name, message=r.message, hardware_id=r.hardware_id,
                values=[KeyValue(key=k, value=v) for k, v in r.values]) for r in records])
            array.header.stamp = self.get_clock().now().to_msg()
            self._diag.publish(array)

    def destroy_node(self) -> None:
        self.bridge.driver.close()
        super().destroy_node()


def realtime(priority: int) -> str:
    """Run this thread (and the threads it starts from now on) at SCHED_FIFO ``priority`` if the OS allows it;
    the one line that says what happened."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except OSError as exc:
        return (f"real-time priority {priority} (SCHED_FIFO) not granted ({exc.strerror}): the CAN loop runs at normal "
                "priority; grant CAP_SYS_NICE or an rtprio limit (docs/robot.md \"Real-time priority\")")
    return f"CAN loop at real-time priority {priority} (SCHED_FIFO)"


def main(args: Sequence[str] | None = None) -> int:
    return run(CanBridgeNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

