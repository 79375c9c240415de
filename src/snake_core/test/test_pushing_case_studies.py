"""001's findings (case studies 1 and 2, Fig. 4, Fig. 5, Table 2), asserted qualitatively.

The object geometry, the reduction over the input region and other details are not given in 001
(seed001_pushing.md §7), so Table 2 is a target of order of magnitude and of trends, not of
digits: the tolerances below are stated from 001's own ratios, not fitted to our numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.pushing import Scenario, build_model
from snake_core.pushing.kinematics import com_polar
from snake_core.pushing.study import angle_grid, configurations, extremes, maps_at, sampled_extremes

#: 001 Table 2 (scenario 1, 2, 3).
PAPER = {"worst a_obj": (0.000763215, 0.00107454, 0.00107454), "best a_obj": (0.00785302, 0.00861168, 0.00861168),
         "worst sr": (0.00138484, 0.00185713, 0.00185098), "best sr": (0.0267348, 0.988638, 0.988643)}
#: 001's wheels change best/worst ‖a_obj‖² by ×1.10 and ×1.41: "little" is read as less than ×1.5.
LITTLE = 1.5
#: Same order of magnitude as 001 despite the unknown object geometry: within a factor 2.
SAME_ORDER = 2.0
FIG4_Q = np.array([0.0, 0.0, 0.0, np.radians(-135.0), np.radians(-135.0)])


@pytest.fixture(scope="module")
def case2():
    model = build_model(3, fields={"kappa": 100.0})
    q = configurations(angle_grid(3))  # 001: [−135°, 135°] every 10°, 21 952 configurations
    out = {s: extremes(model, q, s) for s in (Scenario.NO_FRICTION, Scenario.IDEAL_WHEELS)}
    coarse = configurations(angle_grid(3, step_deg=30.0))  # Scenario 2 is sampled: a coarser grid for test time
    out["coarse 2"] = extremes(model, coarse, Scenario.BOUNDED_WHEELS, directions=24)
    out["coarse 3"] = extremes(model, coarse, Scenario.IDEAL_WHEELS)
    return model, q, out


def table(ex) -> dict[str, float]:
    return {"worst a_obj": ex.a_obj_sq.min(), "best a_obj": ex.a_obj_sq.max(), "worst sr": ex.sr.min(),
            "best sr": ex.sr.max()}


def test_wheels_change_the_object_acceleration_little_but_raise_the_best_sr_to_near_one(case2):
    _, _, out = case2
    s1, s3 = table(out[Scenario.NO_FRICTION]), table(out[Scenario.IDEAL_WHEELS])
    for key in ("best a_obj", "worst a_obj"):
        assert 1.0 / LITTLE < s3[key] / s1[key] < LITTLE, key
    assert s1["best sr"] < 0.05  # 001: 0.027 ("near 0")
    assert s3["best sr"] > 0.95  # 001: 0.989 ("near 1")
    s2 = table(out["coarse 2"])
    assert s2["best sr"] > 0.95


def test_table2_has_001s_order_of_magnitude(case2):
    _, _, out = case2
    ours = {1: table(out[Scenario.NO_FRICTION]), 3: table(out[Scenario.IDEAL_WHEELS])}
    for scenario, values in ours.items():
        for key, value in values.items():
            paper = PAPER[key][scenario - 1]
            assert 1.0 / SAME_ORDER < value / paper < SAME_ORDER, (scenario, key, value, paper)


def test_bounded_wheels_do_not_saturate_at_the_optima(case2):
    """001 Table 2: Scenarios 2 and 3 give the same ‖a_obj‖² extremes and nearly the same sr."""
    _, _, out = case2
    s2, s3 = table(out["coarse 2"]), table(out["coarse 3"])
    assert s2["best a_obj"] == pytest.approx(s3["best a_obj"], rel=1e-9)
    assert s2["worst a_obj"] == pytest.approx(s3["worst a_obj"], rel=1e-9)
    assert s2["best sr"] == pytest.approx(s3["best sr"], rel=1e-3)


def test_object_acceleration_peaks_with_the_com_at_plus_minus_90_degrees(case2):
    """001 Fig. 5 (Scenario 1): configurations with ∠COM ≈ ±90° act most on the object."""
    model, q, out = case2
    _, angle = com_polar(model, q)
    a = out[Scenario.NO_FRICTION].a_obj_sq
    assert np.corrcoef(a, np.abs(np.sin(angle)))[0, 1] > 0.6
    top = a >= np.quantile(a, 0.95)
    assert np.degrees(np.abs(angle[top])).mean() == pytest.approx(90.0, abs=20.0)


def test_case_study_1_fig4_findings():
    """001 Fig. 4 at q_s = (0, 0, 0, −135°, −135°), κ = 100."""
    model = build_model(2, fields={"kappa": 100.0})
    best = {}
    for scenario in (Scenario.NO_FRICTION, Scenario.IDEAL_WHEELS):
        ex = extremes(model, FIG4_Q[None], scenario)
        best[scenario] = (ex.a_obj_sq[0], ex.sr[0])
        omega = maps_at(model, FIG4_Q, scenario).Omega_tau
        assert omega[1, 1] < 0.05 * omega[0, 0]  # τ₂, furthest from the object, barely moves it
    a1, sr1 = best[Scenario.NO_FRICTION]
    a3, sr3 = best[Scenario.IDEAL_WHEELS]
    assert 1.0 / LITTLE < a3 / a1 < LITTLE  # ‖a_obj‖² "barely changes regardless of the scenario"
    assert sr1 < 0.1 < 0.9 < sr3  # without wheels the snake slips for every input; with wheels sr → 1


def test_sampled_and_closed_form_reductions_agree():
    model = build_model(3)
    q = configurations(angle_grid(3, step_deg=60.0))
    closed = extremes(model, q, Scenario.IDEAL_WHEELS)
    sampled = sampled_extremes(model, q, Scenario.IDEAL_WHEELS, directions=64)
    assert np.all(sampled.a_obj_sq <= closed.a_obj_sq * (1 + 1e-9))
    np.testing.assert_allclose(sampled.a_obj_sq, closed.a_obj_sq, rtol=1e-9)  # the maximiser is sampled
    np.testing.assert_allclose(sampled.sr, closed.sr, rtol=1e-6)
    assert np.all(closed.lam_sq <= 1.0 + 1e-9)  # ‖λ‖² of a projected unit input wrench (31) is at most 1
