"""The 3-D climbing study (issue 15 item 8) on a short run: each case is the *-3d scenario with the controller's
overrides and the perturbation seed, step-checked at half its step, its runs on the sweep engine."""

from __future__ import annotations

import pytest

from snake_sim.core.scenario import load_scenario
from snake_sim.engines.mujoco import runtime as rt
from snake_studies.climb_3d import climb_3d_study

#: Its runs go to a LocalCluster of its own (one worker per core): with the other cluster tests, one after the other.
pytestmark = pytest.mark.xdist_group("dask_cluster")


def test_a_case_is_its_scenario_with_the_seed_and_the_controllers_overrides_step_checked():
    study = climb_3d_study(("TSC K_tau = 6",), ("obstacle",), (2,), duration=1.0)
    assert study.time_step_s == 0.001 and len(study.runs) == 1
    run = study.runs[0]
    assert (run.controller, run.world, run.seed, run.status) == ("TSC K_tau = 6", "obstacle", 2, "ok")
    assert run.climbed is False and run.time_to_climb_s is None and run.rolled_over is False
    direct = rt.run_scenario(load_scenario("tsc-obstacle-3d", ["controller.torque_gain=6", "sim.perturbation.seed=2",
                                                               "sim.duration=1.0"]))
    assert run.com_speed_mps == pytest.approx(direct.average_speed, rel=1e-12)
    assert run.verdicts_unchanged is True and isinstance(run.converged, bool) and run.max_rate_change >= 0.0
