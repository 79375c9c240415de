"""The figures of a run: each model's runtime names its figure set (``FIGURES``, :class:`snake_sim.core.models
.ModelRuntime`) and :func:`write_figures` draws that set, so that no engine imports an output module.

- ``side``: joints.png, com.png and the side view with the world's boxes, animation.gif (vertical plane, 002);
- ``top``: joints.png, com.png and the top view with the pushed object, animation.gif (pushing, 001);
- ``head-tracking``: those of ``top`` with head_path.png and manipulability.png and the head reference in the
  top view (planar, 004);
- ``3d``: joints.png, com.png (x–z and x–y) and animation.gif rendered by MuJoCo from the logged link poses,
  whichever 3-D engine ran.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from snake_core.validation import ConfigError

from ..core.runlog import RunLog
from ..core.world import World
from . import figures3d
from .animation import write_animation, write_planar_animation
from .plots import plot_joints, write_head_tracking_plots, write_plots

#: A figure set: (plots, animation) → the files written, given the log, the folder and the world.
FigureSet = Callable[[RunLog, Path, World, bool, bool], list[Path]]


def _side(log: RunLog, out: Path, world: World, plots: bool, animation: bool) -> list[Path]:
    return [*(write_plots(log, out, world) if plots else []),
            *([write_animation(log, out / "animation.gif", world)] if animation else [])]


def _top(log: RunLog, out: Path, world: World, plots: bool, animation: bool) -> list[Path]:
    return [*(write_plots(log, out) if plots else []),
            *([write_planar_animation(log, out / "animation.gif")] if animation else [])]


def _head_tracking(log: RunLog, out: Path, world: World, plots: bool, animation: bool) -> list[Path]:
    return [*(write_plots(log, out) + write_head_tracking_plots(log, out) if plots else []),
            *([write_planar_animation(log, out / "animation.gif")] if animation else [])]


def _three_d(log: RunLog, out: Path, world: World, plots: bool, animation: bool) -> list[Path]:
    return [*([plot_joints(log, out / "joints.png"), figures3d.plot_com(log, out / "com.png", world)] if plots
              else []),
            *([figures3d.write_animation(log, out / "animation.gif", world)] if animation else [])]


#: ``FIGURES`` of a runtime → the set drawn.
FIGURE_SETS: dict[str, FigureSet] = {"side": _side, "top": _top, "head-tracking": _head_tracking, "3d": _three_d}


def write_figures(figures: str, log: RunLog, out: Path, world: World, animation: bool, plots: bool = True
                  ) -> list[Path]:
    """The plots (if ``plots``) and animation.gif (if ``animation``) of the figure set ``figures`` in ``out``; the
    files written."""
    if figures not in FIGURE_SETS:
        raise ConfigError("FIGURES", figures, "is not a figure set (allowed: " + ", ".join(FIGURE_SETS) + ")")
    return FIGURE_SETS[figures](log, out, world, plots, animation)
