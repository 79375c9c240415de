"""GIFs of the body in the plane of motion (matplotlib + Pillow, Agg): the view of the plane with the
terrain (:func:`write_animation`) and the top view with a head reference and a pushed object
(:func:`write_planar_animation`)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation, PillowWriter
from matplotlib.patches import Polygon

from ..core.runlog import RunLog
from ..core.world import World
from .output_folder import whole
from .plots import body_points, draw_terrain

#: Frames per second of the GIF and the most frames rendered (longer runs are sped up).
FPS = 10
MAX_FRAMES = 120


def write_animation(log: RunLog, path: Path, world: World | None = None) -> Path:
    """Render the run to ``path`` (GIF), at most :data:`MAX_FRAMES` frames."""
    n = len(log.t)
    if n == 0:
        raise ValueError("empty run log")
    span = log.t[-1] - log.t[0]
    n_frames = int(min(MAX_FRAMES, max(2, span * FPS)))
    frames = np.unique(np.linspace(0, n - 1, n_frames).round().astype(int))
    pts = [body_points(log, k) for k in range(0, n, max(1, n // 200))]
    xmin = min(p[0].min() for p in pts) - 0.05
    xmax = max(p[0].max() for p in pts) + 0.05
    zmax = max(p[1].max() for p in pts) + 0.05
    zmin = -0.03
    fig, ax = plt.subplots(figsize=(7, 2.8))
    ground = 0.0 if world is None or world.ground_height is None else world.ground_height
    ax.axhspan(zmin, ground, color="0.85", zorder=0)
    if log.plane == "xz":
        for b in draw_terrain(ax, world, np.array([xmin, xmax])):
            xmax, zmax = max(xmax, b.x_max + 0.05), max(zmax, b.top + 0.05)
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(zmin, zmax)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]" if log.plane == "xz" else "y [m]")
    (body,) = ax.plot([], [], "-o", color="C0", lw=3, ms=4)
    (head,) = ax.plot([], [], "o", color="C3", ms=6)
    (trail,) = ax.plot([], [], "-", color="C2", lw=0.8)
    title = ax.set_title("")
    com = log.com
    k2 = 2 if log.plane == "xz" else 1

    def draw(k: int):
        xs, zs = body_points(log, k)
        body.set_data(xs, zs)
        head.set_data([xs[-1]], [zs[-1]])
        trail.set_data(com[: k + 1, 0], com[: k + 1, k2])
        title.set_text(f"{log.robot.name}   t = {log.t[k]:5.2f} s")
        return body, head, trail, title

    return _save(FuncAnimation(fig, draw, frames=frames, blit=False), fig, path)


def write_planar_animation(log: RunLog, path: Path) -> Path:
    """Top view GIF of a planar run with the head reference path."""
    n = len(log.t)
    frames = np.unique(np.linspace(0, n - 1, int(min(MAX_FRAMES, max(2, (log.t[-1] - log.t[0]) * FPS))))
                       .round().astype(int))
    pts = np.concatenate([np.column_stack(body_points(log, k)) for k in range(0, n, max(1, n // 200))])
    if log.head_reference is not None:
        pts = np.vstack((pts, log.head_reference[:, :2]))
    outline = log.series.get("object_outline")  # (T, 8): corners of a pushed object (pushing runtime)
    if outline is not None:
        pts = np.vstack((pts, outline.reshape(-1, 2)))
    lo, hi = pts.min(axis=0) - 0.1, pts.max(axis=0) + 0.1
    fig, ax = plt.subplots(figsize=(7, max(2.5, min(7.0, 7 * (hi[1] - lo[1]) / max(hi[0] - lo[0], 1e-6)))))
    if log.head_reference is not None:
        ax.plot(log.head_reference[:, 0], log.head_reference[:, 1], "k--", lw=0.8)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    (body,) = ax.plot([], [], "-o", color="C0", lw=3, ms=3)
    (head,) = ax.plot([], [], "o", color="C3", ms=6)
    (trail,) = ax.plot([], [], "-", color="C3", lw=0.8)
    title = ax.set_title("")
    hp = log.head_position
    box = ax.add_patch(Polygon(outline[0].reshape(4, 2), color="C1", alpha=0.6)) if outline is not None else None

    def draw(k: int):
        xs, ys = body_points(log, k)
        body.set_data(xs, ys)
        head.set_data([xs[-1]], [ys[-1]])
        trail.set_data(hp[: k + 1, 0], hp[: k + 1, 1])
        title.set_text(f"{log.robot.name}   t = {log.t[k]:5.2f} s")
        if box is not None:
            box.set_xy(outline[k].reshape(4, 2))
        return body, head, trail, title

    return _save(FuncAnimation(fig, draw, frames=frames, blit=False), fig, path)


def _save(animation: FuncAnimation, fig: plt.Figure, path: Path) -> Path:
    """The GIF of ``animation`` written whole at ``path`` (:func:`~snake_sim.outputs.output_folder.whole`), then
    ``fig`` closed."""
    try:
        with whole(path) as target:
            animation.save(target, writer=PillowWriter(fps=FPS), dpi=70)
    finally:
        plt.close(fig)
    return path
