"""Head-tracking outputs of a planar run (004): summary fields and plots (the top view animation is
:func:`snake_sim.outputs.animation.write_planar_animation`).

Summary fields (DESIGN.md), over the scenario's ``controller.evaluation_window`` [t0, t1]:
``head_error_rms_m`` and ``head_error_max_m`` (full position error |p_head − p_ref(t)|),
``head_path_distance_max_m`` (distance of the head from the reference path, the polyline of all
reference positions of the run), and over the whole run ``manipulability_min_R`` and
``time_of_min_R_s``. Plots: head path vs reference, D and R, ‖τ‖, and g (67) when it exists.
"""

from __future__ import annotations

from pathlib import Path
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


def write_head_tracking_plots(log: RunLog, out: Path) -> list[Path]:
    """head_path.png, manipulability.png (D, R, ‖τ‖ and g) in ``out``."""
    if log.head_reference is None:
        return []
    import matplotlib  # only where figures are drawn (the runtime imports this module for its summary)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...outputs.animation import body_points

    paths = []
    head = log.head_position
    span = np.ptp(np.vstack((head[:, :2], log.head_reference[:, :2], log.link_position[0, :, :2])), axis=0) + 0.2
    fig, ax = plt.subplots(figsize=(8, float(np.clip(8 * span[1] / span[0] + 1.2, 2.5, 8))))
    ax.plot(log.head_reference[:, 0], log.head_reference[:, 1], "k--", lw=1, label="reference")
    ax.plot(head[:, 0], head[:, 1], color="C3", label="head")
    ax.plot(log.com[:, 0], log.com[:, 1], color="C0", lw=0.8, label="centre of mass")
    for k in np.linspace(0, len(log.t) - 1, 6).round().astype(int):
        xs, ys = body_points(log, k)
        ax.plot(xs, ys, "-", color="0.6", lw=1.5)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    paths.append(out / "head_path.png")
    fig.savefig(paths[-1], dpi=90)
    plt.close(fig)

    has_g = "g" in log.series
    fig, axes = plt.subplots(3 + has_g, 1, figsize=(7, 2.2 * (3 + has_g)), sharex=True)
    if log.manipulability is not None:
        axes[0].semilogy(log.t, np.maximum(log.manipulability[:, 0], 1e-12), label="D (30)")
        axes[1].semilogy(log.t, np.maximum(log.manipulability[:, 1], 1e-12), color="C1", label="R (31)")
    full, dist = head_errors(log)
    axes[2].plot(log.t, log.series.get("tau_norm", np.linalg.norm(log.tau, axis=1)), color="C2", label="‖τ‖ [N·m]")
    axes[2].plot(log.t, full, color="C3", lw=0.8, label="head error [m]")
    axes[2].plot(log.t, dist, color="C4", lw=0.8, label="path distance [m]")
    if has_g:
        axes[3].plot(log.t, log.series["g"][:, 0], label="g_1 (67)")
        axes[3].plot(log.t, log.series["g"][:, 1], label="g_2 (67)")
    for a in axes:
        a.legend(fontsize=8, loc="best")
        a.grid(alpha=0.3)
    axes[-1].set_xlabel("t [s]")
    fig.tight_layout()
    paths.append(out / "manipulability.png")
    fig.savefig(paths[-1], dpi=90)
    plt.close(fig)
    return paths
