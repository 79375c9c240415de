"""Plots of a run (matplotlib, Agg): joint signals per joint over time, and the centre-of-mass path."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from ..core.runlog import RunLog
from ..core.world import Box, World
from ..engines.planar.report import head_errors
from .output_folder import save_figure


def body_points(log: RunLog, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Tail tip, joints and head tip (N+1 points) at log sample k, in the plane (x, z or y)."""
    l_half = log.robot.half_length
    idx = 2 if log.plane == "xz" else 1
    cx, cz = log.link_position[k, :, 0], log.link_position[k, :, idx]
    th = log.link_angle[k]
    xs = np.concatenate([[cx[0] - l_half * np.cos(th[0])], cx + l_half * np.cos(th)])
    zs = np.concatenate([[cz[0] - l_half * np.sin(th[0])], cz + l_half * np.sin(th)])
    return xs, zs


def plot_joints(log: RunLog, path: Path) -> Path:
    """α (with α_d dashed), β and τ of every joint over time: one row per joint, tail at the top."""
    nj = log.alpha.shape[1]
    cols = [("alpha", "α, α_d [deg]"), ("beta", "β, β_d [deg]"), ("tau", "τ = K(α−β) [N·m]")]
    if log.beta is None:
        cols = [c for c in cols if c[0] != "beta"]
    fig, axes = plt.subplots(nj, len(cols), figsize=(4.2 * len(cols), 1.6 * nj + 0.8), sharex=True, squeeze=False)
    for j in range(nj):
        for c, (key, label) in enumerate(cols):
            ax = axes[j, c]
            if key == "alpha":
                ax.plot(log.t, np.degrees(log.alpha[:, j]), lw=1.0, label="α")
                if log.alpha_ref is not None:
                    ax.plot(log.t, np.degrees(log.alpha_ref[:, j]), "--", lw=0.8, label="α_d")
            elif key == "beta":
                ax.plot(log.t, np.degrees(log.beta[:, j]), lw=1.0, label="β")
                if log.beta_ref is not None:
                    ax.plot(log.t, np.degrees(log.beta_ref[:, j]), "--", lw=0.8, label="β_d")
            else:
                ax.plot(log.t, log.tau[:, j], lw=1.0, color="C3", label="τ")
                if log.motor_torque is not None:
                    ax.plot(log.t, -log.motor_torque[:, j], ":", lw=0.8, color="k", label="−U")
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_title(label, fontsize=9)
                ax.legend(fontsize=7, loc="upper right")
            if c == 0:
                ax.set_ylabel(f"joint {j + 1}" + (" (tail)" if j == 0 else " (head)" if j == nj - 1 else ""),
                              fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("t [s]")
    fig.tight_layout()
    save_figure(fig, path, 90)
    return path


#: How far beyond the path a box is still drawn under it [m].
TERRAIN_MARGIN = 0.1


def draw_terrain(ax: plt.Axes, world: World | None, x: np.ndarray, y: float = 0.0, unit: float = 1.0) -> list[Box]:
    """The world's profile along the line y, in an x–z axis in units of ``unit`` m: the ground (a band below
    it) and the static boxes (obstacles, steps) that cross the line within :data:`TERRAIN_MARGIN` of the x range
    of the path (``x``: where the body was, any shape), grey, beneath what is drawn on ``ax``; the boxes drawn."""
    if world is None:
        return []
    ground = world.ground_height or 0.0
    lo, hi = float(np.min(x)) - TERRAIN_MARGIN, float(np.max(x)) + TERRAIN_MARGIN
    boxes = [b for b in world.static_boxes if b.y_min <= y <= b.y_max and b.x_max >= lo and b.x_min <= hi]
    left, right = min([lo, *(b.x_min for b in boxes)]), max([hi, *(b.x_max for b in boxes)])
    ax.add_patch(Rectangle((left / unit, (ground - 0.02) / unit), (right - left) / unit, 0.02 / unit, color="0.85",
                           zorder=0, label="ground"))
    for i, b in enumerate(boxes):
        ax.add_patch(Rectangle((b.x_min / unit, b.bottom / unit), (b.x_max - b.x_min) / unit,
                               (b.top - b.bottom) / unit, color="0.6", zorder=0,
                               label=f"{world.name}: boxes" if i == 0 else None))
    return boxes


def plot_com(log: RunLog, path: Path, world: World | None = None) -> Path:
    """Centre of mass in the plane of motion (in x–z over the terrain under it), and its forward coordinate
    over time."""
    com = log.com
    k = 2 if log.plane == "xz" else 1
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.4))
    if log.plane == "xz":
        draw_terrain(a1, world, log.link_position[..., 0], float(np.mean(com[:, 1])), unit=0.01)
    a1.plot(com[:, 0] * 100, com[:, k] * 100, lw=1.0)
    a1.plot(com[0, 0] * 100, com[0, k] * 100, "go", label="start")
    a1.plot(com[-1, 0] * 100, com[-1, k] * 100, "rs", label="end")
    a1.set_xlabel("x [cm]")
    a1.set_ylabel(("z" if k == 2 else "y") + " [cm]")
    a1.set_title("centre-of-mass path")
    a1.legend(fontsize=8)
    a1.grid(alpha=0.3)
    a2.plot(log.t, (com[:, 0] - com[0, 0]) * 100, lw=1.0)
    a2.set_xlabel("t [s]")
    a2.set_ylabel("x − x(0) [cm]")
    a2.set_title("forward progress")
    a2.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, 90)
    return path


def write_plots(log: RunLog, out: Path, world: World | None = None) -> list[Path]:
    """joints.png and com.png (over ``world``'s terrain) in ``out``."""
    return [plot_joints(log, out / "joints.png"), plot_com(log, out / "com.png", world)]


#: The legends of manipulability.png: what 004's D (30) and R (31) are (snake_core.planar.manipulability).
D_LABEL = "D (30): least head acceleration per unit joint torque (smallest semi-axis of its ellipsoid)"
R_LABEL = "R (31): smallest singular value of H12, the coupling of joint torques to the head"


def write_head_tracking_plots(log: RunLog, out: Path) -> list[Path]:
    """head_path.png (head path vs reference), manipulability.png (D, R, ‖τ‖, head errors and g (67) when it
    exists) of a planar head-tracking run (004) in ``out``."""
    if log.head_reference is None:
        return []
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
    save_figure(fig, paths[-1], 90)

    has_g = "g" in log.series
    fig, axes = plt.subplots(3 + has_g, 1, figsize=(7, 2.2 * (3 + has_g)), sharex=True)
    if log.manipulability is not None:
        axes[0].semilogy(log.t, np.maximum(log.manipulability[:, 0], 1e-12), label=D_LABEL)
        axes[1].semilogy(log.t, np.maximum(log.manipulability[:, 1], 1e-12), color="C1", label=R_LABEL)
        axes[0].set_ylabel("D")
        axes[1].set_ylabel("R [kg·m]")
        axes[0].set_title("dynamic manipulability of the head (004 §3): 0 at a singular posture", fontsize=9)
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
    save_figure(fig, paths[-1], 90)
    return paths
