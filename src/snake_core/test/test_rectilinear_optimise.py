"""Effort-optimal trajectories (003 §3.5–3.6): gradients, the baseline step 1, SLSQP vs 003's ±Δ search."""

from dataclasses import dataclass, field

import numpy as np
import pytest

from snake_core.rectilinear.cycle import plan
from snake_core.rectilinear.mechanism import build_model
from snake_core.rectilinear.optimise import (
    C_FINAL_003,
    COMPLEX_STEP,
    StepProblem,
    evaluate,
    initial_points,
    optimise_cycle,
    optimise_step,
)
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

ALPHA = np.pi / 4
#: 003 §3.6: l = 0.14 m, m = 0.015 kg (the shipped rectilinear6).
ROBOT = load_robot("rectilinear6")
BASELINE = build_model(ROBOT)  # 003 §3.6


@dataclass(frozen=True)
class CountingProblem(StepProblem):
    """A step problem that records every evaluation of the model: the rows of each batch (the SLSQP
    objective and its complex-step gradient) and each call of the dynamics (the ±Δ search, the final report)."""

    batch_rows: list = field(default_factory=list, compare=False)
    dynamics_calls: list = field(default_factory=list, compare=False)

    def batch(self, x):
        self.batch_rows.append(x.shape[0])
        return super().batch(x)

    def dynamics(self, free):
        self.dynamics_calls.append(1)
        return super().dynamics(free)


@pytest.fixture(scope="module")
def step1():
    problem = StepProblem(BASELINE, plan(6)[0], ALPHA)
    counted = {method: CountingProblem(BASELINE, plan(6)[0], ALPHA) for method in ("slsqp", "delta")}
    results = {method: optimise_step(p, method) for method, p in counted.items()}
    # the reported counts are the evaluations the optimisers made, observed from outside; the result's own
    # re-evaluation (one dynamics call) is not one of them
    assert results["slsqp"].evaluations == sum(counted["slsqp"].batch_rows)
    assert results["delta"].evaluations == len(counted["delta"].dynamics_calls) - 1
    assert not counted["delta"].batch_rows
    return problem, results["slsqp"], results["delta"]


@pytest.mark.parametrize("step", [0, 2])
def test_complex_step_gradient_matches_central_differences(step):
    problem = StepProblem(BASELINE, plan(6)[step], ALPHA)
    x = initial_points(problem.spec.kind, ALPHA).ravel() + 0.01
    j, g = problem.batch(x[None, :] + 1j * COMPLEX_STEP * np.eye(x.size))
    h = 1e-6
    for k in range(x.size):
        e = np.eye(x.size)[k] * h
        jp, gp = problem.batch((x + e)[None, :])
        jm, gm = problem.batch((x - e)[None, :])
        assert j[k].imag / COMPLEX_STEP == pytest.approx((jp[0] - jm[0]) / (2 * h), rel=1e-5)
        np.testing.assert_allclose(g[k].imag / COMPLEX_STEP, (gp[0] - gm[0]) / (2 * h), rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(j.real, j[0].real)  # the real part is the unperturbed effort


def test_step1_optimum_beats_the_initial_guess_and_the_open_loop_in_003_order(step1):
    problem, best, _ = step1
    start = evaluate(problem, initial_points("M1", ALPHA))
    open_problem = StepProblem(BASELINE, plan(6)[0], ALPHA, open_loop=True)
    open_best = optimise_step(open_problem, "slsqp")
    assert best.feasible and open_best.feasible and start.feasible
    assert 0.5e-3 < best.effort < 1.7e-3  # 003: "on the order of 1.7e-3"
    assert best.effort < 0.8 * start.effort  # lower than Co (003 §3.6)
    assert best.effort < 0.5 * open_best.effort  # closed loop far below the open loop (003: 1.7e-3 vs 6.0e-3)
    assert np.all(best.dynamics.normal_force > 0)  # F_R > 0 throughout
    assert np.min(best.dynamics.joint_heights) > -BASELINE.ground_tolerance


def test_optimiser_beats_003_delta_search_in_effort_and_evaluations(step1):
    _, best, delta = step1
    assert delta.feasible and delta.iterations == len(delta.history) > 0
    assert best.effort < delta.effort
    assert best.evaluations < delta.evaluations
    assert list(delta.history) == sorted(delta.history, reverse=True)  # keeps the best feasible C seen


def test_optimised_effort_scales_with_k_squared(step1):
    problem, best, _ = step1
    heavy = StepProblem(BASELINE.scaled_mass(2.0), problem.spec, ALPHA)
    assert evaluate(heavy, best.free).effort == pytest.approx(4.0 * best.effort, rel=1e-12)


def test_whole_cycle_optimum_is_feasible_and_reports_per_step_efforts():
    cyc = optimise_cycle(BASELINE, 6, ALPHA)
    assert cyc.feasible
    assert [r.feasible for r in cyc.results] == [True] * 5
    # J of the cycle, (3.57) discretised as (3.75), from the torques each step's own mechanism produces
    tau = [StepProblem(BASELINE, spec, ALPHA).dynamics(r.free).tau for spec, r in zip(cyc.steps, cyc.results,
                                                                                         strict=True)]
    assert cyc.effort == pytest.approx(sum(0.5 * np.sum(((t[1:] + t[:-1]) / 2) ** 2) * BASELINE.dt for t in tau),
                                       rel=1e-12)
    assert cyc.min_normal_force > 0
    # published C of 003 for steps 1–2 (α = 45°) are improved upon step by step
    for r, spec in zip(cyc.results[:2], cyc.steps[:2], strict=True):
        assert r.effort < evaluate(StepProblem(BASELINE, spec, ALPHA), ALPHA * C_FINAL_003[spec.kind]).effort


def test_an_infeasible_start_is_reported_not_priced():
    problem = StepProblem(BASELINE, plan(6)[1], ALPHA)
    free = ALPHA * C_FINAL_003["M2"]
    free[0] = [-0.3, -0.1, 0.4]  # the first hump link swings below the ground before rising
    bad = evaluate(problem, free)
    assert not bad.feasible and np.isnan(bad.effort)
    assert any("below the ground" in v for v in bad.violations)


def test_unknown_method_is_refused():
    with pytest.raises(ConfigError, match="method"):
        optimise_step(StepProblem(BASELINE, plan(6)[0], ALPHA), "newton")


def test_cycle_series_maps_steps_to_the_robot_joints_and_back_to_flat():
    cyc = optimise_cycle(BASELINE, 6, ALPHA)
    s = cyc.series()
    assert s.alpha.shape == (5 * BASELINE.samples, 5) and s.tau.shape == s.alpha.shape
    np.testing.assert_allclose(s.alpha[0], 0.0, atol=1e-12)
    np.testing.assert_allclose(s.alpha[-1], 0.0, atol=1e-12)
    # effort from the mapped torques equals the sum of the step efforts (S_n only permutes and flips signs)
    from snake_core.rectilinear.mechanism import effort

    per_step = [effort(s.tau[s.step == k], BASELINE.dt) for k in range(1, 6)]
    np.testing.assert_allclose(per_step, [r.effort for r in cyc.results], rtol=1e-12)
    assert np.all(s.normal_force > 0)


def test_eight_links_use_m3_with_a_longer_slider_and_stay_feasible():
    model = build_model(ROBOT, step_time=0.5)
    steps = plan(8)
    assert [s.slider_links for s in steps if s.kind == "M3"] == [1, 2, 3]
    for spec in steps:
        r = evaluate(StepProblem(model, spec, np.radians(30)), np.radians(30) * C_FINAL_003[spec.kind])
        assert r.feasible, (spec, r.violations)
    f_r = [np.mean(evaluate(StepProblem(model, s, np.radians(30)), np.radians(30) * C_FINAL_003["M3"])
                   .dynamics.normal_force) for s in steps if s.kind == "M3"]
    # each extra flat link behind the hump adds about its weight m g to the ground reaction (App. A slider)
    np.testing.assert_allclose(np.diff(f_r), 0.015 * 9.81, rtol=0.3)


def test_problem_refuses_a_gait_angle_beyond_the_joint_range():
    with pytest.raises(ConfigError, match="alpha"):
        StepProblem(build_model(ROBOT, joint_limit=np.radians(40)), plan(6)[0], ALPHA)
