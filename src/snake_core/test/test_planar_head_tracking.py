"""Head-tracking controllers (004 (70)–(84)), the conserved g (67), the serpenoid (43) and the
mapping to the suite's conventions."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import lsq_linear

from snake_core.gaits import make_gait
from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar import head_tracking
from snake_core.planar.conserved import conserved_g
from snake_core.planar.convention import free_joints_from_suite, reverse_joints, sea_torque_reference
from snake_core.planar.head_tracking import (
    HeadReference,
    LyapunovGains,
    LyapunovTracker,
    PartialFeedbackLinearisation,
    PFLGains,
    _box_least_squares,
    _min_norm_solve,
)
from snake_core.planar.manipulability import coordinate_order, partition
from snake_core.planar.model import PlanarModel, compute_terms, forward_dynamics
from snake_core.validation import ConfigError


@pytest.fixture(scope="module")
def model():
    return PlanarModel(n=10, l=0.06, m=0.182, J=2.2e-4, c_x=0.5, c_y=5.0, c_theta=7.2e-5)


def _state(rng, model):
    q = np.concatenate((rng.normal(0, 0.3, 2), rng.uniform(-1, 1, 1), rng.uniform(-0.8, 0.8, model.n - 1)))
    return q, rng.normal(0, 0.5, model.dof)


def _ref(rng):
    return HeadReference(rng.normal(0, 0.3, 3), rng.normal(0, 0.2, 3), rng.normal(0, 0.2, 3))


@pytest.mark.parametrize("free", [(), (5,), (2, 7)])
def test_pfl_imposes_the_head_acceleration_of_71(model, free):
    shape = Serpenoid(9, np.pi / 3, 0.18, 1.0)
    gains = PFLGains.diagonal(9)
    ctl = PartialFeedbackLinearisation(model, gains, shape, free)
    rng = np.random.default_rng(len(free))
    for _ in range(5):
        q, qd = _state(rng, model)
        ref = _ref(rng)
        tau = ctl.step(1.3, q, qd, ref)
        assert np.all(tau[[j - 1 for j in free]] == 0.0)
        acc = forward_dynamics(model, compute_terms(model, model.create_data(), q, qd), tau)
        a = ref.w_ddot + gains.K_v @ (ref.w_dot - qd[:3]) + gains.K_p @ (ref.w - q[:3])
        assert np.allclose(acc[:3], a, rtol=1e-8, atol=1e-9)


def test_pfl_as_printed_gives_the_opposite_head_acceleration(model, monkeypatch):
    """docs/readings.md "004 (70)": with the printed sign the tracking term enters as −a."""
    monkeypatch.setattr(head_tracking, "PFL_TRACKING_TERM_SIGN", +1.0)
    gains = PFLGains.diagonal(9)
    ctl = PartialFeedbackLinearisation(model, gains, Serpenoid(9, np.pi / 3, 0.18, 1.0))
    rng = np.random.default_rng(7)
    q, qd = _state(rng, model)
    ref = _ref(rng)
    acc = forward_dynamics(model, compute_terms(model, model.create_data(), q, qd), ctl.step(0.0, q, qd, ref))
    a = ref.w_ddot + gains.K_v @ (ref.w_dot - qd[:3]) + gains.K_p @ (ref.w - q[:3])
    b = acc[:3] + a  # ẅ_printed = −a + 2 × (what a zero a gives)
    ctl0 = ref.w_ddot * 0
    zero = HeadReference(q[:3], qd[:3], ctl0)  # a = 0
    acc0 = forward_dynamics(model, compute_terms(model, model.create_data(), q, qd), ctl.step(0.0, q, qd, zero))
    assert np.allclose(b, acc0[:3], atol=1e-9)
    assert not np.allclose(acc[:3], a, atol=1e-3)


def test_pfl_null_space_term_follows_the_shape_reference_77(model):
    """With w on its reference (a = 0), (I − H12⁺H12)(φ̈ + u) = 0, u of (78)."""
    shape = Serpenoid(9, np.pi / 3, 0.18, 1.0)
    gains = PFLGains.diagonal(9)
    ctl = PartialFeedbackLinearisation(model, gains, shape)
    rng = np.random.default_rng(3)
    q, qd = _state(rng, model)
    t = 2.0
    tau = ctl.step(t, q, qd, HeadReference(q[:3].copy(), qd[:3].copy(), np.zeros(3)))
    data = compute_terms(model, model.create_data(), q, qd)
    phidd = forward_dynamics(model, data, tau)[3:]
    phi_r, phid_r, phidd_r = shape.phi(t)
    u = -phidd_r - gains.R_v @ (phid_r - qd[3:]) - gains.R_p @ (phi_r - q[3:])
    _, H12, _ = partition(data.H, 3)
    P = np.eye(9) - np.linalg.pinv(H12) @ H12
    assert np.allclose(P @ (phidd + u), 0.0, atol=1e-9)
    assert not np.allclose(phidd + u, 0.0, atol=1e-3)  # only the null-space part is imposed


def test_lyapunov_torque_respects_limits_and_zero_on_free_joint(model):
    gains = LyapunovGains.diagonal(9, torque_limit=0.05)
    ctl = LyapunovTracker(model, gains, Serpenoid(9, np.pi / 6, 2.0, 1.5), free_joints=(5,))
    rng = np.random.default_rng(4)
    for _ in range(5):
        q, qd = _state(rng, model)
        tau = ctl.step(0.7, q, qd, _ref(rng))
        assert np.all(np.abs(tau) <= 0.05 + 1e-15) and tau[4] == 0.0
        assert np.any(np.abs(tau) == 0.05)


def test_lyapunov_reaches_dV_equal_minus_cV_when_the_targets_are_reachable():
    """With K_φ = 0 and no torque limit, 3 head targets from 9 torques are reachable (R > 0): V̇ = −cV."""
    model = PlanarModel(n=10, l=0.06, m=0.182, J=2.2e-4, c_x=0.5, c_y=5.0)
    gains = LyapunovGains.diagonal(9, K_phi=0.0, decay=2.0, torque_limit=1e3)
    shape = Serpenoid(9, np.pi / 6, 2.0, 1.5)
    ctl = LyapunovTracker(model, gains, shape)
    rng = np.random.default_rng(5)
    q, qd = _state(rng, model)
    ref = HeadReference(q[:3] + np.array([0.01, -0.02, 0.01]), qd[:3] + np.array([0.01, 0.0, -0.02]), np.zeros(3))
    acc = forward_dynamics(model, compute_terms(model, model.create_data(), q, qd), ctl.step(0.0, q, qd, ref))
    s = (ref.w_dot - qd[:3]) + gains.K_w1 @ (ref.w - q[:3])
    s_dot = (ref.w_ddot - acc[:3]) + gains.K_w1 @ (ref.w_dot - qd[:3])
    V, V_dot = s @ gains.K_w2 @ s, 2 * s @ gains.K_w2 @ s_dot
    assert V_dot == pytest.approx(-gains.decay * V, rel=1e-3)


def test_min_norm_solve_matches_numpy_pinv_also_when_rank_deficient():
    rng = np.random.default_rng(9)
    for scale in (1.0, 1e-3, 1e-9, 0.0):
        A = rng.normal(size=(3, 9))
        A[0] *= scale  # scale 0: the straight posture's zero first row of H12
        r = rng.normal(size=3)
        x = _min_norm_solve(A, r)
        assert np.allclose(x, np.linalg.pinv(A) @ r, rtol=1e-9, atol=1e-12 * np.abs(x).max())


def test_pfl_at_the_singular_straight_posture_gives_finite_torques(model):
    ctl = PartialFeedbackLinearisation(model, PFLGains.diagonal(9), Serpenoid(9, np.pi / 3, 0.18, 1.0))
    q = np.zeros(model.dof)
    with np.errstate(all="raise"):
        tau = ctl.step(0.0, q, np.zeros(model.dof), HeadReference(np.array([0.01, 0.0, 0.0]), np.zeros(3),
                                                                   np.zeros(3)))
    assert np.all(np.isfinite(tau))


def test_box_least_squares_matches_scipy():
    rng = np.random.default_rng(6)
    for _ in range(20):
        A = rng.normal(size=(12, 8))
        b = rng.normal(size=12) * 5
        x = _box_least_squares(A.T @ A, A.T @ b, 0.3)
        ref = lsq_linear(A, b, bounds=(-0.3, 0.3)).x
        assert 0.5 * np.sum((A @ x - b) ** 2) <= 0.5 * np.sum((A @ ref - b) ** 2) * (1 + 1e-6) + 1e-12


def test_conserved_g_is_constant_under_isotropic_friction_for_any_torques():
    """004 (67): g = H1 q̇ + g2 is conserved for any joint torques when c_x = c_y."""
    model = PlanarModel(n=6, l=0.06, m=0.182, J=2.2e-4, c_x=0.5, c_y=0.5, c_theta=7.2e-5)
    rng = np.random.default_rng(8)
    amp, freq = rng.normal(0, 0.05, 5), rng.uniform(1, 3, 5)

    def f(t, x):
        data = compute_terms(model, model.create_data(), x[:8], x[8:])
        return np.concatenate((x[8:], forward_dynamics(model, data, amp * np.sin(freq * t))))

    x0 = np.concatenate(([0.1, -0.2, 0.3], rng.uniform(-0.5, 0.5, 5), rng.normal(0, 0.1, 8)))
    sol = solve_ivp(f, (0, 2), x0, method="DOP853", rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 2, 21))
    g = np.array([conserved_g(model, x[:8], x[8:]) for x in sol.y.T])
    assert np.max(np.abs(g - g[0])) < 1e-8 * np.max(np.abs(g[0]))
    assert np.ptp(sol.y[3:8], axis=1).min() > 0.01  # the body did move
    with pytest.raises(ConfigError, match=r"isotropic"):
        conserved_g(model.with_friction(c_y=5.0), x0[:8], x0[8:])


def test_serpenoid_follows_43_as_printed_and_maps_to_suite_order():
    gait = Serpenoid(9, np.pi / 4, 2.0, 1.5)
    t = 0.37
    i = np.arange(1, 10)
    k = 2 * np.pi * 1.5 / 10
    phi, phid, phidd = gait.phi(t)
    assert np.allclose(phi, k * np.pi / 4 * np.sin(2.0 * t - k * i), atol=1e-15)
    h = 1e-6
    assert np.allclose(phid, (gait.phi(t + h)[0] - gait.phi(t - h)[0]) / (2 * h), atol=1e-8)
    assert np.allclose(phidd, (gait.phi(t + h)[1] - gait.phi(t - h)[1]) / (2 * h), atol=1e-6)
    alpha, alpha_dot = make_gait("serpenoid", 9, {"amplitude": np.pi / 4, "frequency": 2.0, "periods": 1.5}
                                 ).reference(t)
    assert np.allclose(alpha, phi[::-1]) and np.allclose(alpha_dot, phid[::-1])  # α_j = φ_{n−j}


def test_serpenoid_bad_parameters_are_refused():
    with pytest.raises(ConfigError, match=r"gait.amplitude"):
        make_gait("serpenoid", 9, {"amplitude": np.pi / 2, "frequency": 1.0, "periods": 3.0})  # > 60° per joint
    with pytest.raises(ConfigError, match=r"gait.periods"):
        make_gait("serpenoid", 9, {"amplitude": 0.5, "frequency": 1.0, "periods": -1})
    with pytest.raises(ConfigError, match=r"gait.phase_shift"):
        make_gait("serpenoid", 9, {"amplitude": 0.5, "frequency": 1.0, "periods": 1, "phase_shift": 1})


def test_convention_maps_are_involutions_and_sea_sign():
    x = np.arange(1.0, 10.0)
    assert np.array_equal(reverse_joints(reverse_joints(x)), x)
    assert free_joints_from_suite([5], 10) == (5,) and free_joints_from_suite([1, 2], 10) == (8, 9)
    # a tracker torque τ_i is realised by the SEA of suite joint n − i with K(α − β) = −τ_i
    tau = np.zeros(9)
    tau[0] = 0.2  # joint 1 of 004 = suite joint 9 (head joint)
    assert sea_torque_reference(tau)[8] == -0.2


def test_bad_controller_input_is_refused(model):
    shape = Serpenoid(9, np.pi / 6, 2.0, 1.5)
    with pytest.raises(ConfigError, match=r"controller.K_v"):
        PFLGains.diagonal(9, K_v=[1.0, -2.0, 3.0])
    with pytest.raises(ConfigError, match=r"controller.torque_limit"):
        LyapunovGains.diagonal(9, torque_limit=0.0)
    with pytest.raises(ConfigError, match=r">= 5 with 1 free joint"):
        LyapunovTracker(PlanarModel(n=4, l=0.06, m=0.18, J=2e-4, c_x=1), LyapunovGains.diagonal(3),
                        Serpenoid(3, 0.3, 1.0, 1.0), free_joints=(2,))
    with pytest.raises(ConfigError, match=r"gait"):
        PartialFeedbackLinearisation(model, PFLGains.diagonal(9), Serpenoid(5, 0.3, 1.0, 1.0))
    q = np.zeros(model.dof)
    q[0] = np.inf
    with pytest.raises(ConfigError, match=r"finite"):
        LyapunovTracker(model, LyapunovGains.diagonal(9), shape).step(0.0, q, np.zeros(model.dof),
                                                                       HeadReference(np.zeros(3), np.zeros(3),
                                                                                     np.zeros(3)))
    assert coordinate_order(10, (5,))[3] == 2 + 5  # φ_5 moved to position 4 (docs/readings.md "004 (33)")
