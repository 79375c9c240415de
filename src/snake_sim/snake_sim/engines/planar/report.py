"""Head-tracking measures of a planar run (004): summary fields and the head errors.

Summary fields (docs/design.md), over the scenario's ``controller.evaluation_window`` [t0, t1]:
``head_error_rms_m`` and ``head_error_max_m`` (full position error |p_head − p_ref(t)|),
``head_path_distance_max_m`` (distance of the head from the reference path, the polyline of all
reference positions of the run), and over the whole run ``manipulability_min_R`` and
``time_of_min_R_s``. Their plots: :func:`snake_sim.outputs.plots.write_head_tracking_plots`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.runlog import RunLog
from ...core.scenario import Scenario

#: Reference polylines are thinned to at most this many segments for the path distance.
MAX_PATH_SEGMENTS = 2000


def path_distance(points: np.ndarray, path: np.ndarray) -> np.ndarray:
    """Distance of each point (T, 2) from the polyline ``path`` (P, 2)."""
    step = max(1, len(path) // MAX_PATH_SEGMENTS)
    path = np.vstack((path[::step], path[-1:]))
    a, b = path[:-1], path[1:]
    ab = b - a
    len2 = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-300)
    out = np.empty(len(points))
    for i, p in enumerate(points):
        s = np.clip(np.einsum("ij,ij->i", p - a, ab) / len2, 0.0, 1.0)
        out[i] = np.min(np.linalg.norm(a + s[:, None] * ab - p, axis=1)) if len(a) else np.linalg.norm(p - path[0])
    return out


def evaluation_window(log: RunLog, scenario: Scenario | None) -> tuple[float, float]:
    window = (scenario.section("controller").get("evaluation_window") if scenario is not None else None) or \
        [float(log.t[0]), float(log.t[-1])]
    return float(window[0]), float(window[1])


def head_errors(log: RunLog) -> tuple[np.ndarray, np.ndarray]:
    """(full position error, distance from the reference path) per sample [m]."""
    head = log.head_position[:, :2]
    ref = log.head_reference[:, :2]
    return np.linalg.norm(head - ref, axis=1), path_distance(head, ref)


def head_tracking_summary(log: RunLog, scenario: Scenario | None = None) -> dict[str, Any]:
    """The head-tracking fields of summary.json ({} for runs without a head reference)."""
    if log.head_reference is None or len(log.t) == 0:
        return {}
    t0, t1 = evaluation_window(log, scenario)
    full, dist = head_errors(log)
    inside = (log.t >= t0 - 1e-9) & (log.t <= t1 + 1e-9)
    out: dict[str, Any] = {"evaluation_window_s": [t0, t1],
                           "evaluation_window_complete": bool(log.t[-1] >= t1 - 1e-9)}
    if inside.any():
        out.update(head_error_rms_m=float(np.sqrt(np.mean(full[inside] ** 2))),
                   head_error_max_m=float(np.max(full[inside])),
                   head_path_distance_max_m=float(np.max(dist[inside])))
    else:
        out.update(head_error_rms_m=None, head_error_max_m=None, head_path_distance_max_m=None)
    if log.manipulability is not None:
        R = log.manipulability[:, 1]
        k = int(np.argmin(R))
        out.update(manipulability_min_R=float(R[k]), time_of_min_R_s=float(log.t[k]))
    if "tau_norm" in log.series:
        out["torque_norm_max_Nm"] = float(np.max(log.series["tau_norm"]))
    return out
