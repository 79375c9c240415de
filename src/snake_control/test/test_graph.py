"""The ROS 2 graph on the real middleware, every node in its own process started from its console
script with the parameter files the launch files pass (snake_control.graph, the one definition both
read): gait_generator → sea_joint_controller(s) → (motor_command_mux) → simulator, in lockstep on
the simulator's /clock, moves the robot as ``snake-sim run`` of the same scenario does."""

import dataclasses
import math

import numpy as np
import pytest
import yaml

from snake_control.graph import control_nodes, sea_mode_params, simulator_node
from snake_core.paths import data_dir
from snake_sim.runtime import run_scenario
from snake_sim.scenario import load_scenario

ROBOT = "koopaee6"
PERIOD = 2.0  # [s] of the pedal wave at ω = π (config/snake_control.yaml, the scenario pedal-wave)
#: Head-tip progress compared over whole periods, after the first (the start from a straight body)
WINDOW = (PERIOD, 4 * PERIOD)
#: Graph against embedded run, head-tip progress (measured: position 17.3 mm against 16.1 mm, TSC 2.1 mm
#: against 2.7 mm): the gait reference reaches the controllers one control period (10 ms) late, and the
#: simulator differences β_d for the β̇_d of (4.39), which the forward command controller does not carry.
PROGRESS_TOLERANCE = 0.15  # relative
PROGRESS_FLOOR = 0.001  # [m] absolute, for gaits that barely move


def embedded_progress(mode: str) -> float:
    """Head-tip progress along x over WINDOW of `snake-sim run pedal-wave` with the gains of sea_modes/<mode>.yaml."""
    modes = yaml.safe_load((data_dir() / sea_mode_params(mode)).read_text())
    gains = modes["/**/sea_joint_controller"]["ros__parameters"]["controller"]
    log = run_scenario(load_scenario("pedal-wave", [f"controller.{k}={v}" for k, v in gains.items()]
                                     + [f"sim.duration={WINDOW[1]}"]))
    half = log.robot.half_length
    tip = log.link_position[:, -1, 0] + half * np.cos(log.link_angle[:, -1])
    return float(np.interp(WINDOW[1], log.t, tip) - np.interp(WINDOW[0], log.t, tip))


def run_graph(ros_graph, mode: str, layout: str) -> float:
    """Head-tip progress along x over WINDOW of gait time through the graph."""
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState

    sim = simulator_node(ROBOT, "flat")
    ros_graph.start(dataclasses.replace(sim, parameters={**sim.parameters, "real_time_factor": 0.0}))
    for spec in control_nodes(ROBOT, controller=mode, layout=layout):
        ros_graph.start(spec)
    odometry = ros_graph.record("/head/odometry", Odometry)
    reference = ros_graph.record("/gait/reference", JointState)

    def stamp(msg):
        return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9

    ros_graph.spin_until(lambda: reference and odometry and stamp(odometry[-1]) > stamp(reference[0]) + WINDOW[1],
                         f"{WINDOW[1]} s of gait", timeout=300.0)
    t = np.array([stamp(m) for m in odometry])
    x = np.array([m.pose.pose.position.x for m in odometry])
    t0 = stamp(reference[0])  # the gait's t = 0
    return float(np.interp(t0 + WINDOW[1], t, x) - np.interp(t0 + WINDOW[0], t, x))


@pytest.mark.parametrize(("mode", "layout"), [
    ("position", "per_joint"), ("position", "composed"), ("tsc", "per_joint"),
    pytest.param("stiffness", "composed", marks=pytest.mark.xfail(strict=True, reason=(
        "known: local stiffness control's β̇_d is not the rate of its β_d; with β_d alone on "
        "/motor_position_controller/commands the simulator's differenced β̇_d changes the motion "
        "(−88 mm against +2.6 mm over three periods, even stepped without ROS)"))),
])
def test_pedal_wave_through_the_graph_moves_the_robot_as_the_embedded_simulator(ros_graph, mode, layout):
    got = run_graph(ros_graph, mode, layout)
    n_processes = len(ros_graph.processes)
    assert n_processes == (8 if layout == "per_joint" else 3)  # simulator, gait, 5 joints + mux | 1 node
    expected = embedded_progress(mode)
    assert math.isfinite(got)
    assert got == pytest.approx(expected, rel=PROGRESS_TOLERANCE, abs=PROGRESS_FLOOR), (got, expected)
