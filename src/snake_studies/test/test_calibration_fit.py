"""The fit after calibrate's search (snake_studies.calibration_fit) on residuals whose answer is known: polishes
from distinct trials find the global minimum a single polish misses and say that they disagree; the cluster-robust
covariance is statsmodels'; a field the residuals hardly feel is not identifiable; on a linear model with noise
correlated within windows the profile intervals cover the truth where Gauss–Newton's do not."""


import numpy as np
import pytest
import statsmodels.api as sm

from snake_studies.calibration_fit import DISTINCT, covariances, distinct_starts, fit, quantile
from snake_studies.sweep.cells import Range

#: One field on [0, 1].
UNIT = (Range("x", 0.0, 1.0),)
#: Windows of the analytic residuals.
WINDOWS = 4


def two_minima(params):
    """r over WINDOWS blocks of two entries: Σ r² ≈ 16 (x − ¼)² (x − ¾)² + 0.09 (x − ¾)² (least at ¾, a false
    minimum near ¼), plus a fixed scatter per window."""
    x = params["x"]
    e = 0.01 * np.sin(np.arange(2 * WINDOWS))
    return np.tile([2.0 * (x - 0.25) * (x - 0.75), 0.15 * (x - 0.75)], WINDOWS) + e


def loss_at(x):
    r = two_minima({"x": x})
    return float(r @ r)


#: The search's trials: its best in the false minimum's basin, one beside it (not distinct), one in the other basin.
TRIALS = [({"x": 0.25}, loss_at(0.25)), ({"x": 0.25 + DISTINCT / 2}, loss_at(0.25 + DISTINCT / 2)),
          ({"x": 0.62}, loss_at(0.62))]


def test_distinct_starts_skip_a_trial_beside_a_better_one():
    starts = distinct_starts(TRIALS[::-1], UNIT, 3)
    assert [float(u[0]) for u, _ in starts] == [0.25, 0.62]


def test_one_polish_ends_in_the_false_minimum_and_restarts_find_the_global_one():
    assert loss_at(0.25) < loss_at(0.62)  # the search's best trial is in the false minimum's basin
    single = fit(UNIT, two_minima, WINDOWS, TRIALS, restarts=1)
    assert single.fitted[0].value == pytest.approx(0.25, abs=0.02)
    both = fit(UNIT, two_minima, WINDOWS, TRIALS, restarts=3)
    assert len(both.restarts) == 2  # the trial beside the best is not a start of its own
    assert both.fitted[0].value == pytest.approx(0.75, abs=0.01)
    assert both.loss < 0.1 * single.loss
    first, second = both.restarts
    assert first.start == {"x": 0.25} and first.end["x"] == pytest.approx(0.25, abs=0.02) and not first.agrees
    assert second.agrees and second.loss == both.loss
    lo, hi = both.fitted[0].interval
    assert lo < 0.75 < hi and not lo < 0.25 < hi


def test_the_cluster_robust_covariance_is_statsmodels():
    rng = np.random.default_rng(3)
    m, p = 40 * WINDOWS, 2
    jac = rng.normal(size=(m, p))
    r = rng.normal(size=m) + np.repeat(rng.normal(size=WINDOWS), m // WINDOWS)  # a shift shared by each window
    beta = np.linalg.lstsq(jac, r, rcond=None)[0]
    r = r - jac @ beta  # residuals at the least-squares optimum
    h_inv, sigma2, robust = covariances(r, jac, WINDOWS)
    ols = sm.OLS(r, jac).fit(cov_type="cluster", cov_kwds={"groups": np.repeat(np.arange(WINDOWS), m // WINDOWS),
                                                           "use_correction": False})
    np.testing.assert_allclose(robust, WINDOWS / (WINDOWS - 1) * ols.cov_params(), rtol=1e-9)
    np.testing.assert_allclose(sigma2 * h_inv, sm.OLS(r, jac).fit().cov_params(), rtol=1e-9)
    assert quantile(WINDOWS) == pytest.approx(10.128, abs=1e-3)  # F(1, 3) at 0.95: 3.182², t₃'s 97.5 %
    assert quantile(10_000) == pytest.approx(3.8415, abs=1e-2)  # χ²₁(0.95) as the windows grow


def linear(slope_b, seed):
    """r of a linear model in fields a, b on [0, 1] (truth a = 0.4, b = 0.6), its noise a white part plus a shift
    shared by every sample of a window (the correlated part that the Gauss–Newton scale does not see)."""
    rng = np.random.default_rng(seed)
    n = 30
    t = np.linspace(0.0, 1.0, n)
    noise = (0.05 * rng.normal(size=(2 * WINDOWS, n)) + 0.05 * rng.normal(size=(2 * WINDOWS, 1))).ravel()

    def residuals(params):
        rows = [(params["a"] - 0.4) * np.sin(3.0 * t + w) + slope_b * (params["b"] - 0.6) * np.cos(2.0 * t + w)
                for w in range(2 * WINDOWS)]
        return np.concatenate(rows) + noise
    return residuals


def test_a_field_the_residuals_hardly_feel_is_not_identifiable_and_frozen():
    ranges = (Range("a", 0.0, 1.0), Range("b", 0.0, 1.0))
    result = fit(ranges, linear(0.002, 1), 2 * WINDOWS, [({"a": 0.5, "b": 0.5}, 1.0)])
    a, b = result.fitted
    assert a.identifiable and a.interval[0] < 0.4 < a.interval[1]
    assert b.gauss_newton is not None  # its Jacobian column is not flat: the profile decides
    assert not b.identifiable and b.interval is None and b.profile.values[0] == 0.0 and b.profile.values[-1] == 1.0
    assert max(b.profile.loss) - result.loss < b.profile.threshold - result.loss


def test_profile_intervals_cover_where_gauss_newton_does_not_on_windows_of_correlated_noise():
    ranges = (Range("a", 0.0, 1.0), Range("b", 0.0, 1.0))
    seeds = range(20)
    cover = {"profile": 0, "gauss_newton": 0}
    for seed in seeds:
        a = fit(ranges, linear(1.0, seed), 2 * WINDOWS, [({"a": 0.5, "b": 0.5}, 1.0)]).fitted[0]
        cover["profile"] += a.interval[0] <= 0.4 <= a.interval[1]
        cover["gauss_newton"] += a.gauss_newton[0] <= 0.4 <= a.gauss_newton[1]
    # 95 % of 20: 19; a binomial(20, 0.95) is ≥ 17 with probability 0.98
    assert cover["profile"] >= 17, cover
    assert cover["gauss_newton"] <= 14, cover


def twin_minima(params):
    """r over WINDOWS blocks of two entries: 2 (x − ¼)(x − ¾) plus a fixed scatter: two minima of the same loss."""
    e = 0.05 * np.array([1.0, -0.6, 0.3, 0.8, -1.0, 0.4, -0.2, 0.7])
    return np.full(2 * WINDOWS, 2.0 * (params["x"] - 0.25) * (params["x"] - 0.75)) + e


def test_two_minima_of_the_same_loss_are_both_in_the_interval_and_the_restarts_agree():
    trials = [({"x": 0.26}, 0.1), ({"x": 0.74}, 0.2)]
    result = fit(UNIT, twin_minima, WINDOWS, trials, restarts=2)
    first, second = result.restarts
    assert first.end["x"] == pytest.approx(0.25, abs=0.03) and second.end["x"] == pytest.approx(0.75, abs=0.03)
    hump = twin_minima({"x": 0.5})
    assert float(hump @ hump) - result.loss > result.fitted[0].profile.threshold - result.loss  # two separate minima
    lo, hi = result.fitted[0].interval
    assert lo <= min(first.end["x"], second.end["x"]) and hi >= max(first.end["x"], second.end["x"])
    assert first.agrees and second.agrees
