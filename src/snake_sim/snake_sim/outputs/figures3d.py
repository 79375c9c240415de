"""Figures of a 3-D run (MuJoCo's or DART's): com.png with the centre-of-mass path in x–z over the terrain's profile
and in x–y, and the animation rendered by MuJoCo's own offscreen renderer from a camera that follows the robot,
with the simulated time, a scale bar on the ground beside the robot and an arrow over the head.

Rendering needs an offscreen OpenGL context: EGL (headless, GPU or Mesa's software EGL), else OSMesa (software).
``MUJOCO_GL`` (egl | osmesa) picks which is tried first. Both are tried in one process only if the first could
not be imported (PyOpenGL binds one platform per process); the error names what failed.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import mujoco
import numpy as np
from PIL import Image

from ..core.runlog import RunLog
from ..core.world import World
from ..engines.engine3d import Layout
from ..engines.mujoco import model as mm
from ..engines.mujoco.settings import Settings
from .animation import FPS, MAX_FRAMES
from .output_folder import save_figure, whole
from .plots import draw_terrain

#: Frame size of the rendered animation [px] (within the MJCF's offscreen buffer, 800 × 480).
WIDTH, HEIGHT = 800, 480
#: Length of the scale bar [m], laid on the ground (or the step) beside the robot, and its offset in y [m].
SCALE_BAR, SCALE_BAR_Y = 0.1, -0.12
YELLOW, RED = (1.0, 0.9, 0.0, 1.0), (0.85, 0.1, 0.05, 1.0)
#: Camera: distance to the robot's centre of mass [m], azimuth and elevation [deg] (from the robot's left,
#: ahead of it, looking slightly down).
CAMERA = {"distance": 0.75, "azimuth": 125.0, "elevation": -22.0}
BACKENDS = ("egl", "osmesa")


def plot_com(log: RunLog, path: Path, world: World | None = None) -> Path:
    """Centre of mass path from the side (x–z, over the terrain under it) and from above (x–y), and its forward
    progress over time."""
    com = log.com * 100
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.4))
    draw_terrain(axes[0], world, log.link_position[..., 0], float(np.mean(log.com[:, 1])), unit=0.01)
    for ax, k, name in ((axes[0], 2, "z"), (axes[1], 1, "y")):
        ax.plot(com[:, 0], com[:, k], lw=1.0)
        ax.plot(com[0, 0], com[0, k], "go", label="start")
        ax.plot(com[-1, 0], com[-1, k], "rs", label="end")
        ax.set_xlabel("x [cm]")
        ax.set_ylabel(f"{name} [cm]")
        ax.set_title(f"centre-of-mass path, x–{name}")
    axes[2].plot(log.t, com[:, 0] - com[0, 0], lw=1.0)
    axes[2].set_xlabel("t [s]")
    axes[2].set_ylabel("x − x(0) [cm]")
    axes[2].set_title("forward progress")
    axes[0].legend(fontsize=8)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, 90)
    return path


def _gl_context() -> Any:
    """A current offscreen OpenGL context of :data:`WIDTH` × :data:`HEIGHT` (see the module docstring)."""
    first = os.environ.get("MUJOCO_GL", "egl").lower()
    errors = []
    for backend in sorted(BACKENDS, key=lambda b: b != first):
        try:
            context = importlib.import_module(f"mujoco.{backend}").GLContext(WIDTH, HEIGHT)
        except Exception as e:  # any failure of one backend means: try the next
            errors.append(f"{backend}: {e}")
            continue
        context.make_current()
        return context
    raise RuntimeError("no offscreen OpenGL context for MuJoCo's renderer (" + "; ".join(errors) + ")")


def _surface_height(world: World, x: float, y: float) -> float:
    """Height of what lies at (x, y): the top of the highest static box there, else the ground."""
    tops = [b.top for b in world.static_boxes if b.x_min <= x <= b.x_max and b.y_min <= y <= b.y_max]
    return max(tops, default=world.ground_height or 0.0)


def _add_geom(scene: mujoco.MjvScene, kind: int, size: tuple[float, float, float], pos: np.ndarray,
              mat: np.ndarray, rgba: tuple[float, ...]) -> None:
    if scene.ngeom < scene.maxgeom:
        mujoco.mjv_initGeom(scene.geoms[scene.ngeom], kind, np.array(size), pos, mat.ravel(), np.array(rgba))
        scene.ngeom += 1


def _add_markers(scene: mujoco.MjvScene, world: World, com: np.ndarray, head: np.ndarray) -> None:
    """The scale bar (:data:`SCALE_BAR` along x, on the surface beside the centre of mass) and an arrow pointing
    down at the head link."""
    x, y = com[0], com[1] + SCALE_BAR_Y
    z = _surface_height(world, x, y) + 0.002
    _add_geom(scene, mujoco.mjtGeom.mjGEOM_BOX, (0.5 * SCALE_BAR, 0.006, 0.002), np.array([x, y, z]), np.eye(3),
              YELLOW)
    _add_geom(scene, mujoco.mjtGeom.mjGEOM_ARROW, (0.006, 0.006, 0.08), head + np.array([0.0, 0.0, 0.12]),
              np.diag([1.0, -1.0, -1.0]), RED)  # the arrow runs along its local z: turned to point down


def write_animation(log: RunLog, path: Path, world: World) -> Path:
    """Render the logged link poses of a 3-D run (any engine: link 1's ``link_origin``, ``link_rotation`` and the
    joint angles α, β) with MuJoCo to a GIF at ``path``, at most
    :data:`~snake_sim.outputs.animation.MAX_FRAMES` frames at :data:`~snake_sim.outputs.animation.FPS`, the camera's
    target at the robot's centre of mass."""
    n = len(log.t)
    if n == 0:
        raise ValueError("empty run log")
    model = mm.build_model(log.robot, world=world, settings=Settings(), layout=Layout.from_summary(log.summary_fields))
    m, data = model.mj, model.create_data()
    frames = np.unique(np.linspace(0, n - 1, int(min(MAX_FRAMES, max(2, log.duration * FPS)))).round().astype(int))
    context = _gl_context()
    try:
        scene, camera = mujoco.MjvScene(m, maxgeom=1000), mujoco.MjvCamera()
        option, perturb = mujoco.MjvOption(), mujoco.MjvPerturb()
        gl = mujoco.MjrContext(m, mujoco.mjtFontScale.mjFONTSCALE_150)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, gl)
        viewport = mujoco.MjrRect(0, 0, WIDTH, HEIGHT)
        camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        for key, value in CAMERA.items():
            setattr(camera, key, value)
        images, rgb = [], np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
        for k in frames:
            data.mj.qpos[:] = mm.qpos_from_poses(model, log.series["link_origin"][k, 0],
                                                 log.series["link_rotation"][k, 0], log.alpha[k], log.beta[k])
            mujoco.mj_kinematics(m, data.mj)
            camera.lookat[:] = log.com[k]
            mujoco.mjv_updateScene(m, data.mj, option, perturb, camera, mujoco.mjtCatBit.mjCAT_ALL, scene)
            _add_markers(scene, world, log.com[k], log.link_position[k, -1])
            mujoco.mjr_render(viewport, scene, gl)
            mujoco.mjr_overlay(mujoco.mjtFont.mjFONT_NORMAL, mujoco.mjtGridPos.mjGRID_TOPLEFT, viewport,
                               "sim time\nyellow bar\nred, arrow\nblue", f"{log.t[k]:.1f} s\n"
                               f"{100 * SCALE_BAR:g} cm\nhead\ntail", gl)
            mujoco.mjr_readPixels(rgb, None, viewport, gl)
            images.append(Image.fromarray(np.flipud(rgb)))
        gl.free()
    finally:
        context.free()
    with whole(path) as target:
        images[0].save(target, save_all=True, append_images=images[1:], duration=round(1000 / FPS), loop=0)
    return path
