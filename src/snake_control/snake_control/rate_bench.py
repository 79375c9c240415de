"""``snake-control-bench`` (part of ``make bench``): does every joint's β_d reach the plant at the
configured rate, on the real middleware?

For each layout of snake_control.graph (composed: one node for all joints; per_joint: a node per
joint and motor_command_mux) and each rate, the graph's gait_generator and SEA controllers run as
their own processes on the wall clock, with the parameter files the launch files pass. This process
plays the plant: it publishes /joint_states at the rate and receives /motor_position_controller/commands
(and, per joint, /sea/motor_commands, what each controller sent). Printed per run: the commands
expected (rate × window), sent (per joint, min over joints) and received by the plant, and the p50 /
p99 of the plant's inter-arrival times against the period.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from snake_core.interface import JOINT_STATES, MOTOR_COMMANDS, MOTOR_POSITION_COMMANDS, JointStateLayout, motor_names
from snake_core.locator import data_dir
from snake_core.robot import load_robot
from snake_core.validation import ConfigError, non_negative, positive

from .graph import LAYOUTS, control_nodes, start, stop
from .ros_interface import SENSOR_QOS, floats

RATES = (100.0, 250.0, 500.0, 1000.0)


def measure(robot: str, layout: str, rate: float, window: float, settle: float) -> dict[str, float]:
    """One run: counts and inter-arrival statistics over ``window`` s, ``settle`` s after the first command."""
    n = load_robot(robot).n_joints
    with tempfile.TemporaryDirectory() as tmp:
        procs = [start(replace(spec, parameters={**spec.parameters, "rate": rate}), data_dir(), Path(tmp),
                       use_sim_time=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for spec in control_nodes(robot, layout=layout)]
        context = rclpy.Context()
        rclpy.init(context=context)
        node = rclpy.create_node("rate_bench_plant", context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        arrivals: list[float] = []
        sent = dict.fromkeys(motor_names(n), 0)
        counting = [False]

        first: list[float] = []

        def on_array(_msg: Float64MultiArray) -> None:
            if counting[0]:
                arrivals.append(time.monotonic())
            elif not first:
                first.append(time.monotonic())

        def on_joint(msg: JointState) -> None:
            if counting[0]:
                for name in msg.name:
                    sent[name] += 1

        node.create_subscription(Float64MultiArray, MOTOR_POSITION_COMMANDS, on_array, QoSProfile(depth=100))
        if layout == "per_joint":
            node.create_subscription(JointState, MOTOR_COMMANDS, on_joint, QoSProfile(depth=100))
        states = node.create_publisher(JointState, JOINT_STATES, SENSOR_QOS)
        joint_states = JointStateLayout(n, sea=True)
        zero = np.zeros(n)
        position, velocity, effort = (floats(x) for x in joint_states.write(zero, zero, zero, zero, zero, zero))

        def publish_states() -> None:
            msg = JointState(name=joint_states.names, position=position, velocity=velocity, effort=effort)
            msg.header.stamp = node.get_clock().now().to_msg()
            states.publish(msg)

        node.create_timer(1.0 / rate, publish_states)
        t_start = time.monotonic()  # until the commands flow (processes started), then ``settle`` s more
        while not first and time.monotonic() < t_start + 60.0:
            executor.spin_once(timeout_sec=0.01)
        while time.monotonic() < (first[0] if first else t_start) + settle:
            executor.spin_once(timeout_sec=0.01)
        counting[0] = True
        t_count = time.monotonic()
        while time.monotonic() < t_count + window:
            executor.spin_once(timeout_sec=0.01)
        counting[0] = False
        stop(procs)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown(context=context)
    gaps = np.diff(arrivals) * 1e3 if len(arrivals) > 1 else np.array([np.nan])
    return {"expected": rate * window, "sent": min(sent.values()) if layout == "per_joint" else float("nan"),
            "received": len(arrivals), "p50_ms": float(np.percentile(gaps, 50)),
            "p99_ms": float(np.percentile(gaps, 99))}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="snake-control-bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--robot", default="koopaee6")
    parser.add_argument("--rates", type=float, nargs="+", default=list(RATES))
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    parser.add_argument("--window", type=float, default=3.0, help="counting window [s]")
    parser.add_argument("--settle", type=float, default=1.0, help="from the first command to counting [s]")
    args = parser.parse_args(argv)
    try:
        n_joints = load_robot(args.robot).n_joints
        positive(args.window, "--window")
        non_negative(args.settle, "--settle")
        for rate in args.rates:
            positive(rate, "--rates")
    except ConfigError as exc:
        print(f"snake-control-bench: error: {exc}", file=sys.stderr)
        return 2
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    print(f"Control loop on real rclpy ({args.robot}, {n_joints} joints, "
          f"{args.window:g} s window): commands per joint expected / sent / received by the plant")
    print(f"{'layout':<10} {'rate Hz':>8} {'expected':>9} {'sent':>7} {'received':>9} {'lost %':>7} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'period':>7}")
    for layout in args.layouts:
        for rate in args.rates:
            r = measure(args.robot, layout, rate, args.window, args.settle)
            lost = 100.0 * (1.0 - r["received"] / r["expected"])
            sent = "-" if np.isnan(r["sent"]) else f"{r['sent']:.0f}"
            print(f"{layout:<10} {rate:>8.0f} {r['expected']:>9.0f} {sent:>7} {r['received']:>9.0f} {lost:>7.1f} "
                  f"{r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} {1e3 / rate:>7.2f}", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
