"""``summary.json`` of a run (docs/design.md "Command line"): the numbers a user reads first.

Distances and speeds are signed along world x (the direction the head points at the start),
from the centre of mass. ``climbed``/``time_to_climb_s`` are null where the world has nothing to
climb; :func:`snake_sim.analysis.climb.climb_result` decides them for worlds with obstacles (the tail tip passes
the far edge of the last box) and adds the climb's goal, distance and average speed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.runlog import RunLog
from ..core.signals import INTERRUPTED
from ..core.world import World
from .climb import climb_result


def _stats(a: np.ndarray | None) -> list[dict[str, float]] | None:
    if a is None or len(a) == 0:
        return None
    return [{"joint": j + 1, "rms": float(np.sqrt(np.mean(a[:, j] ** 2))), "max_abs": float(np.max(np.abs(a[:, j]))),
             "mean": float(np.mean(a[:, j]))} for j in range(a.shape[1])]


def summarize(log: RunLog, wall_time_s: float, scenario_name: str, world: World | None = None,
              extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The summary.json mapping (JSON-ready: plain floats, None for missing)."""
    duration = log.duration
    com = log.com
    climb = climb_result(log, world)
    out: dict[str, Any] = {
        "status": log.status,
        "scenario": scenario_name,
        "robot": log.robot.name,
        "plane": log.plane,
        "duration_s": duration,
        "wall_time_s": float(wall_time_s),
        "real_time_factor": duration / wall_time_s if wall_time_s > 0 else None,
        "distance_m": log.distance,
        "average_speed_mps": log.average_speed,
        "com_start_m": [float(v) for v in com[0]] if len(com) else None,
        "com_end_m": [float(v) for v in com[-1]] if len(com) else None,
        **climb.as_summary(),  # climbed, time_to_climb_s, goal_x_m, …, reached, time_to_reach_s
        "torque_Nm": _stats(log.tau),  # SEA torque τ = K(α − β) per joint, tail → head
        "motor_torque_Nm": _stats(log.motor_torque),
        "tracking_error_rad": _stats(None if log.alpha_ref is None else log.alpha - log.alpha_ref),
    }
    if log.contact_count is not None and len(log.contact_count):
        out["contacts"] = {"mean": float(np.mean(log.contact_count)), "max": int(np.max(log.contact_count)),
                           "min": int(np.min(log.contact_count))}
    if log.status == INTERRUPTED:
        out["time_reached_s"] = float(log.t[-1]) if len(log.t) else 0.0
    out.update(log.summary_fields)
    if extra:
        out.update(extra)
    return _clean(out)


def _clean(value: Any) -> Any:
    """NaN/inf → None so that the file is strict JSON."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    """Scalars of a summary by dotted path (lists by 1-based index: ``torque_Nm.2.rms``)."""
    if not isinstance(node, (dict, list)):
        return {prefix: node}
    pairs = node.items() if isinstance(node, dict) else enumerate(node, 1)
    return {path: value for key, child in pairs
            for path, value in flatten(child, f"{prefix}.{key}" if prefix else str(key)).items()}


def format_summary(summary: dict[str, Any]) -> str:
    """A few human-readable lines for the terminal."""
    lines = [f"status            {summary['status']}",
             f"simulated         {summary['duration_s']:.2f} s in {summary['wall_time_s']:.2f} s "
             f"({summary['real_time_factor'] or 0:.1f}x real time)",
             f"distance (CoM x)  {summary['distance_m'] * 100:+.2f} cm",
             f"average speed     {summary['average_speed_mps'] * 100:+.2f} cm/s"]
    if summary.get("climbed") is not None:
        t = summary.get("time_to_climb_s")
        lines.append(f"climbed           {summary['climbed']}" + (f" after {t:.1f} s" if t is not None else ""))
        if not summary["climbed"] and summary.get("reached") is False:  # a run too short to judge the climb
            lines[-1] += (f" (the run ended after {summary['duration_s']:.1f} s, before the head reached the first "
                          "box: it did not reach the obstacle; a longer --duration tells whether it climbs)")
        elif not summary["climbed"] and summary.get("com_end_m"):  # say how far it got, and what climbing means
            lines[-1] += (f" (in {summary['duration_s']:.1f} s the centre of mass reached x = "
                          f"{summary['com_end_m'][0]:.2f} m; climbing means the tail tip passing "
                          f"x = {summary['goal_x_m']:.2f} m, the far edge of the last box)")
    if summary.get("torque_Nm"):
        lines.append("SEA torque rms    " + "  ".join(f"j{s['joint']} {s['rms']:.3f}" for s in summary["torque_Nm"])
                     + "  N·m (tail → head)")
    if summary.get("contacts"):
        lines.append(f"points in contact {summary['contacts']['mean']:.1f} on average")
    if summary.get("pushing"):
        p = summary["pushing"]
        lines.append(f"pushing (001)     initial accelerations vs analysis: object {p['object_rel_error']:.2e}, "
                     f"robot {p['robot_rel_error']:.2e} rel. error (penalty contact, wheels, fit window)")
    return "\n".join(lines)
