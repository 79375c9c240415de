"""Manipulability D, R (004 (30)–(31)) and D̃, R̃ with a free joint (33)–(42): Figs. 2–9 behaviour.

Serpenoid shapes (43) are evaluated at the wave phase v t = 0.3 rad (004 does not state its
phase, docs/readings.md "004 Figs. 8–9"); θ_1 = 0 and the head at the origin as in 004 §4.
"""

import warnings

import numpy as np
import pytest

from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar.manipulability import ManipulabilityMonitor, manipulability
from snake_core.planar.model import PlanarModel, build_model, compute_terms, forward_dynamics
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

PHASE = 0.3  # v t of the serpenoid shapes [rad]


@pytest.fixture(scope="module")
def model():
    return build_model(load_robot("ariizumi10"))


def _q(phi, theta1=0.0, head=(0.0, 0.0)):
    return np.concatenate((head, [theta1], phi))


def _serpenoid(alpha, periods, phase=PHASE):
    return Serpenoid(9, alpha, 1.0, periods).phi(phase)[0]


@pytest.mark.parametrize("free", [(), (5,)])
def test_arcs_are_singular_only_when_straight(model, free):
    """Fig. 2 / Fig. 3: all joints equal to φ° ∈ [−π/5, π/5]; zero only at φ° = 0."""
    grid = np.linspace(-np.pi / 5, np.pi / 5, 41)
    res = [manipulability(model, _q(np.full(9, p)), free) for p in grid]
    D = np.array([r.D for r in res])
    R = np.array([r.R for r in res])
    zero = np.abs(grid) < 1e-12
    for values in (D, R):
        assert np.all(values[zero] <= 1e-9 * values.max())
        assert np.all(values[~zero] > 1e-9 * values.max())
        assert np.allclose(values, values[::-1], rtol=1e-9)  # mirror shapes: same criteria
    assert [r.singular for r in res] == list(zero)


def test_free_joint_makes_R_much_smaller(model):
    """Fig. 3 vs Fig. 2 (different exponents): R̃ < R on every arc and ≪ R on the strongly bent ones
    (near the straight line both vanish quadratically and are of the same order)."""
    grid = np.linspace(-np.pi / 5, np.pi / 5, 41)[np.r_[0:20, 21:41]]
    R = np.array([manipulability(model, _q(np.full(9, p))).R for p in grid])
    R5 = np.array([manipulability(model, _q(np.full(9, p)), (5,)).R for p in grid])
    assert np.all(R5 < R)
    assert R5.max() < R.max() / 10


@pytest.mark.parametrize("free", [(), (5,)])
def test_serpenoids_are_singular_only_at_zero_winding_or_zero_periods(model, free):
    """Figs. 4–5 (and 8–9 with joint 5 free): α ∈ [0, π/2] at T_s = 1.5; T_s ∈ [0, 2] at α = π/4."""
    alphas = np.linspace(0.0, np.pi / 2, 17)
    periods = np.linspace(0.0, 2.0, 17)
    for values, trivial in (([manipulability(model, _q(_serpenoid(a, 1.5)), free) for a in alphas], alphas == 0),
                            ([manipulability(model, _q(_serpenoid(np.pi / 4, T)), free) for T in periods],
                             periods == 0)):
        R = np.array([r.R for r in values])
        D = np.array([r.D for r in values])
        assert np.all(R[trivial] == 0.0) and np.all(D[trivial] == 0.0)
        assert np.all(R[~trivial] > 1e-9 * R.max()) and np.all(D[~trivial] > 1e-9 * D.max())


def test_criteria_depend_on_shape_only(model):
    """D, R do not depend on v (H has no velocity), nor on where the head is or where it points."""
    for v in (0.5, 2.0, 7.0):
        shape = Serpenoid(9, np.pi / 4, v, 1.5).phi(PHASE / v)[0]  # same phase v t
        r = manipulability(model, _q(shape))
        moved = manipulability(model, _q(shape, theta1=1.1, head=(3.0, -2.0)))
        ref = manipulability(model, _q(_serpenoid(np.pi / 4, 1.5)))
        for x in (r, moved):
            assert x.D == pytest.approx(ref.D, rel=1e-9) and x.R == pytest.approx(ref.R, rel=1e-9)
            assert np.allclose(x.sigma, ref.sigma, rtol=1e-9)


@pytest.mark.parametrize("free", [(), (5,)])
def test_ellipsoid_is_the_image_of_the_unit_torque_ball(model, free):
    """(29) by its definition: at rest without friction ẅ (ẅ̃) is linear in τ̄, ẅ = G τ̄, and the head
    accelerations of ‖τ̄‖ ≤ 1 fill the ellipsoid {G τ̄}, whose semi-axes are the square roots of the
    eigenvalues of G Gᵀ. G is built here column by column from the full forward dynamics (20), not
    from the Schur complement (68) that the criteria use."""
    frictionless = PlanarModel(model.n, model.l, model.m, model.J)
    q = _q(_serpenoid(np.pi / 4, 1.5))
    res = manipulability(frictionless, q, free)
    data = compute_terms(frictionless, frictionless.create_data(), q, np.zeros(frictionless.dof))
    act = [j for j in range(9) if j + 1 not in free]
    unknown = [0, 1, 2] + [2 + k for k in free]
    G = np.column_stack([forward_dynamics(frictionless, data, np.eye(9)[j])[unknown] for j in act])
    eigenvalues, vectors = np.linalg.eigh(G @ G.T)  # ascending
    semi_axes = np.sqrt(eigenvalues[::-1])
    assert semi_axes[-1] > 1e-6 * semi_axes[0]  # a regular posture: every semi-axis has a size
    np.testing.assert_allclose(res.sigma, semi_axes, rtol=1e-8)
    np.testing.assert_allclose(res.axes @ res.axes.T, G @ G.T, rtol=0, atol=1e-9 * eigenvalues[-1])
    np.testing.assert_allclose(np.abs(vectors[:, ::-1].T @ res.axes), np.diag(semi_axes), atol=1e-6 * semi_axes[0])
    # sampled unit torques land inside, and the torque along the longest axis lands on the boundary
    shape_inv = np.linalg.inv(res.axes @ res.axes.T)
    rng = np.random.default_rng(0)
    tau = rng.normal(size=(300, len(act)))
    tau /= np.linalg.norm(tau, axis=1, keepdims=True)
    acc = tau @ G.T
    assert np.max(np.einsum("ki,ij,kj->k", acc, shape_inv, acc)) <= 1.0 + 1e-9
    longest = G.T @ vectors[:, -1]
    acc = G @ (longest / np.linalg.norm(longest))
    assert acc @ shape_inv @ acc == pytest.approx(1.0, rel=1e-9)
    assert np.linalg.norm(acc) == pytest.approx(res.sigma[0], rel=1e-9)


def test_straight_posture_is_reported_singular_without_nan_or_division_warnings(model):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            for free in ((), (5,)):
                r = ManipulabilityMonitor(model, free_joints=free).evaluate(_q(np.zeros(9)))
                assert r.singular and r.near_singular and r.D == 0.0 and r.R == 0.0
                assert np.all(np.isfinite(r.sigma)) and np.all(np.isfinite(r.axes))


def test_monitor_threshold_flags_near_singular_arcs(model):
    monitor = ManipulabilityMonitor(model, threshold=1e-3)
    assert monitor.evaluate(_q(np.full(9, np.radians(3.0)))).near_singular
    assert not monitor.evaluate(_q(np.full(9, np.radians(20.0)))).near_singular
    assert not monitor.evaluate(_q(np.full(9, np.radians(3.0)))).singular


@pytest.mark.parametrize(("n", "free", "needed"), [(3, (), "4"), (2, (), "4"), (4, (2,), "5")])
def test_too_few_links_are_refused_with_004s_reason(n, free, needed):
    short = PlanarModel(n=n, l=0.06, m=0.182, J=2.2e-4)
    with pytest.raises(ConfigError, match=rf">= {needed}.*004 §3"):
        ManipulabilityMonitor(short, free_joints=free)


def test_bad_monitor_input_is_refused(model):
    with pytest.raises(ConfigError, match=r"robot.free_joints"):
        ManipulabilityMonitor(model, free_joints=(10,))
    with pytest.raises(ConfigError, match=r"manipulability.threshold"):
        ManipulabilityMonitor(model, threshold=-1.0)
    q = _q(np.zeros(9))
    q[4] = np.nan
    with pytest.raises(ConfigError, match=r"must be finite"):
        ManipulabilityMonitor(model).evaluate(q)
    with pytest.raises(ConfigError, match=r"shape"):
        ManipulabilityMonitor(model).evaluate(np.zeros(5))
