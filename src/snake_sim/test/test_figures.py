"""What the figures show of the world: com.png and the side-view animation draw the terrain under the path."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from snake_sim.core.world import load_world
from snake_sim.outputs.plots import draw_terrain


def test_the_stairs_are_drawn_under_a_path_that_crosses_them():
    fig, ax = plt.subplots()
    boxes = draw_terrain(ax, load_world("stairs"), np.array([0.2, 2.0]), unit=0.01)
    tops = sorted(p.get_y() + p.get_height() for p in ax.patches)  # the ground band, then the steps, in cm
    plt.close(fig)
    assert [b.name for b in boxes] == ["step_1", "step_2", "step_3"]
    assert tops == pytest.approx([0.0, 3.0, 6.0, 9.0])  # worlds/stairs.sdf: three rises of 30 mm


def test_only_the_boxes_near_the_path_and_on_its_line_are_drawn():
    world = load_world("stairs")
    fig, ax = plt.subplots()
    before = draw_terrain(ax, world, np.array([0.0, 0.4]))  # 0.195 m short of the first step
    beside = draw_terrain(ax, world, np.array([0.2, 2.0]), y=0.5)  # off the steps' 0.6 m width
    plt.close(fig)
    assert before == [] and beside == []


def test_manipulability_png_says_what_d_and_r_are(tmp_path, monkeypatch):
    from snake_sim.core.models import runtime_for
    from snake_sim.core.scenario import load_scenario
    from snake_sim.outputs import plots

    scenario = load_scenario("head-tracking-lyapunov", ["sim.duration=0.2"])
    log = runtime_for(scenario.model).run_scenario(scenario, progress=False)
    drawn = {}

    def keep_texts(fig, path, dpi):
        drawn[path.name] = [t.get_text() for ax in fig.axes for t in [*ax.get_legend().get_texts(), ax.yaxis.label]]
        plt.close(fig)
        return path

    monkeypatch.setattr(plots, "save_figure", keep_texts)
    plots.write_head_tracking_plots(log, tmp_path)
    texts = drawn["manipulability.png"]
    assert plots.D_LABEL in texts and plots.R_LABEL in texts and "R [kg·m]" in texts
    assert "smallest semi-axis" in plots.D_LABEL and "smallest singular value of H12" in plots.R_LABEL
