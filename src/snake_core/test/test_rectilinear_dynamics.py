"""Inverse dynamics of 003: Newton–Euler against Craig's 2-link arm and Pinocchio; the closed-chain systems
M1/M2/M3 against Newton–Euler with the solved contact force; effort (3.75); mass scaling; feasibility."""

import numpy as np
import pytest

from snake_core.rectilinear import bspline
from snake_core.rectilinear.cycle import plan
from snake_core.rectilinear.mechanism import (
    build_model,
    check_alpha,
    closed_chain_forces,
    closed_motion,
    driven_trajectory,
    effort,
    open_m1_dynamics,
    step_dynamics,
)
from snake_core.rectilinear.newton_euler import GRAVITY, PlanarChain, inverse_dynamics, link_kinematics
from snake_core.rectilinear.optimise import initial_points
from snake_core.rectilinear.published import C_FINAL_003
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

ALPHA = np.pi / 4
#: 003 §3.6: l = 0.14 m, m = 0.015 kg (the shipped rectilinear6).
ROBOT = load_robot("rectilinear6")
BASELINE = build_model(ROBOT)  # 003 §3.6: l = 0.14 m, m = 0.015 kg, μ = 0.4, T = 1 s


def craig_two_link(m, ln, th, thd, thdd, g=GRAVITY):
    """003 Eqs. 4.2, 4.3 (Craig): point masses m at the link ends, both links of length l (= ln)."""
    c1, c2, s2, c12 = np.cos(th[0]), np.cos(th[1]), np.sin(th[1]), np.cos(th[0] + th[1])
    t1 = (m * ln**2 * (thdd[0] + thdd[1]) + m * ln**2 * c2 * (2 * thdd[0] + thdd[1]) + 2 * m * ln**2 * thdd[0]
          - m * ln**2 * s2 * thd[1] ** 2 - 2 * m * ln**2 * s2 * thd[0] * thd[1]
          + m * g * ln * c12 + 2 * m * g * ln * c1)
    t2 = m * ln**2 * c2 * thdd[0] + m * ln**2 * s2 * thd[0] ** 2 + m * ln**2 * (thdd[0] + thdd[1]) + m * g * ln * c12
    return np.array([t1, t2])


def test_newton_euler_reproduces_craig_two_link_arm_exactly():
    rng = np.random.default_rng(3)
    m, ln = 0.7, 0.35
    chain = PlanarChain(np.full(2, ln), np.full(2, m), np.full(2, ln), np.zeros(2))  # point masses at the link ends
    for _ in range(20):
        th, thd, thdd = rng.uniform(-2, 2, (3, 2))
        np.testing.assert_allclose(inverse_dynamics(chain, th, thd, thdd), craig_two_link(m, ln, th, thd, thdd),
                                   rtol=1e-12, atol=1e-12)


def test_newton_euler_matches_pinocchio_rnea_for_thin_rods():
    import pinocchio as pin
    n, ln, m = 4, 0.14, 0.015
    inertia = m * ln**2 / 12
    model = pin.Model()
    parent = 0
    for i in range(n):
        placement = pin.SE3(np.eye(3), np.array([ln if i else 0.0, 0.0, 0.0]))
        parent = model.addJoint(parent, pin.JointModelRZ(), placement, f"j{i}")
        body = pin.Inertia(m, np.array([ln / 2, 0.0, 0.0]), np.diag([1e-9, inertia, inertia]))
        model.appendBodyToJoint(parent, body, pin.SE3.Identity())
    model.gravity.linear = np.array([0.0, -GRAVITY, 0.0])
    data = model.createData()
    chain = PlanarChain.uniform(n, ln, m, inertia)
    rng = np.random.default_rng(7)
    for _ in range(10):
        q, v, a = rng.uniform(-1.5, 1.5, (3, n))
        np.testing.assert_allclose(inverse_dynamics(chain, q, v, a), pin.rnea(model, data, q, v, a), rtol=1e-9,
                                   atol=1e-12)


@pytest.mark.parametrize("step", [0, 1, 2, 3, 4])
def test_closed_chain_system_matches_newton_euler_with_the_solved_ground_force(step):
    """The linear system A·Fa = Fi (3.48) against the open-chain recursion loaded with the same tip force:
    the driven torques agree and the passive joint carries no torque."""
    spec = plan(6)[step]
    free = ALPHA * C_FINAL_003[spec.kind]
    m = BASELINE
    th, thd, thdd = driven_trajectory(spec, ALPHA, free, m.u, m.step_time)
    motion = closed_motion(spec, th, thd, thdd)
    tau, f_r, f_fr, p = closed_chain_forces(m, spec, motion)
    n = motion.phi.shape[-1]
    chain = PlanarChain.uniform(n, m.link_length, m.link_mass, m.link_inertia, m.gravity)
    rel = np.diff(motion.phi, axis=-1, prepend=0.0)
    reld, reldd = (np.diff(x, axis=-1, prepend=0.0) for x in (motion.phid, motion.phidd))
    tip = np.stack([f_fr, f_r], axis=-1)
    if spec.kind == "M3":  # the slider pushes on link 4 with (F_fr, F_R) minus its own m a (gravity included)
        m_s = m.link_mass * spec.slider_links
        _, a, _, _ = link_kinematics(chain.lengths, chain.com, motion.phi, motion.phid, motion.phidd)
        tip = tip - m_s * np.stack([a[:, -1, 0], np.full(len(f_r), m.gravity)], axis=-1)
    ne = inverse_dynamics(chain, rel, reld, reldd, tip_force=tip)
    np.testing.assert_allclose(ne[:, : n - 1], tau, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ne[:, n - 1], 0.0, atol=1e-12)
    np.testing.assert_allclose(p[:, -1, 1], 0.0, atol=1e-12)  # the tip stays on the ground (3.19)


def test_step1_with_003_control_points_matches_the_published_effort_order():
    d = step_dynamics(BASELINE, plan(6)[0], ALPHA, ALPHA * C_FINAL_003["M1"])
    j = effort(d.tau, BASELINE.dt)
    assert 1.7e-3 / 2 < j < 1.7e-3 * 2  # 003: "on the order of 1.7e-3"
    assert j == pytest.approx(1.98e-3, rel=0.02)  # independent reconstruction, seed003 §10
    assert np.all(d.normal_force > 0)
    assert d.violations(BASELINE) == []
    assert np.max(np.abs(d.tau[:, 0])) == pytest.approx(0.068, rel=0.05)  # seed003 §10 peak |τ1|


def test_open_loop_m1_costs_more_than_the_closed_loop():
    co3 = initial_points("M1", ALPHA, open_loop=True)
    open_d = open_m1_dynamics(BASELINE, ALPHA, co3)
    closed_d = step_dynamics(BASELINE, plan(6)[0], ALPHA, initial_points("M1", ALPHA))
    j_open, j_closed = effort(open_d.tau, BASELINE.dt), effort(closed_d.tau, BASELINE.dt)
    assert j_open == pytest.approx(4.6e-3, rel=0.03)  # seed003 §10 (003: ≈ 6.0e-3 for its own open loop)
    assert j_open > 2 * j_closed
    np.testing.assert_allclose(open_d.joint_heights[-1, -1], 0.0, atol=1e-12)  # lands at the end of the step


@pytest.mark.parametrize("k", [0.5, 3.0])
def test_effort_scales_with_k_squared_when_every_mass_scales_by_k(k):
    for spec in plan(6):
        free = ALPHA * C_FINAL_003[spec.kind]
        d1 = step_dynamics(BASELINE, spec, ALPHA, free)
        dk = step_dynamics(BASELINE.scaled_mass(k), spec, ALPHA, free)
        assert effort(dk.tau, BASELINE.dt) == pytest.approx(k**2 * effort(d1.tau, BASELINE.dt), rel=1e-12)
        np.testing.assert_allclose(dk.normal_force, k * d1.normal_force, rtol=1e-12)


def test_effort_discretisation_of_a_constant_torque_is_half_c_squared_t():
    tau = np.full((20, 1), 0.3)
    assert effort(tau, 2.0 / 19) == pytest.approx(0.5 * 0.3**2 * 2.0, rel=1e-12)
    tau2 = np.column_stack([np.full(20, 0.3), np.full(20, -0.4)])
    assert effort(tau2, 1.0 / 19) == pytest.approx(0.5 * (0.09 + 0.16), rel=1e-12)


def test_friction_is_what_breaks_the_time_symmetry_of_the_reversed_steps():
    steps = plan(6)
    free = ALPHA * C_FINAL_003["M1"]
    frictionless = build_model(ROBOT, mu=0.0)
    fwd = step_dynamics(frictionless, steps[0], ALPHA, free)
    rev = step_dynamics(frictionless, steps[4], ALPHA, free)
    np.testing.assert_allclose(rev.tau, fwd.tau[::-1], rtol=1e-9, atol=1e-12)
    fwd, rev = (step_dynamics(BASELINE, s, ALPHA, free) for s in (steps[0], steps[4]))
    assert np.max(np.abs(rev.tau - fwd.tau[::-1])) > 1e-3
    # friction opposes the sliding direction (3.33): the tip slides back in step 1 (toward the anchor), forward in 5
    assert np.all(fwd.friction[1:-1] >= 0) and np.all(rev.friction[1:-1] <= 0)


def test_unreachable_tip_is_reported_infeasible_with_the_reason():
    free = np.array([[0.6, 0.8, 0.8], [0.6, 0.3, 0.0]])  # lifts the chain: |sin φ3| > 1 mid-step
    d = step_dynamics(BASELINE, plan(6)[0], ALPHA, free)
    reasons = d.violations(BASELINE)
    assert reasons and "cannot close" in reasons[0]


def test_joint_below_the_ground_is_reported():
    free = np.array([[-0.2, -0.1, 0.3], [0.1, 0.0, -0.4]])  # θ1 < 0 first: joint 2 dips below the ground
    reasons = step_dynamics(BASELINE, plan(6)[0], ALPHA, free).violations(BASELINE)
    assert any("below the ground" in r for r in reasons)


def test_gait_angle_beyond_the_joint_range_is_refused():
    with pytest.raises(ConfigError, match=r"^alpha = 0\.9 is invalid: must be in \(0, 0\.785398\] \(003 §3\.5\)$"):
        check_alpha(0.9, np.pi / 4)
    assert check_alpha(np.pi / 4, np.pi / 4) == pytest.approx(np.pi / 4)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("mu", 2.5, r"^mu = 2\.5 is invalid: must be in \[0, 2\] \(003 §3\.6\)$"),
    ("samples", 2, r"^samples = 2 is invalid: must be an integer >= 3 \(003 §3\.5\.3\)$"),
    ("step_time", 0.0, r"^step_time = 0\.0 is invalid: must be > 0$"),
    ("joint_limit", 4.0, r"^joint_limit = 4\.0 is invalid: must be in \(0, 3\.14159\]$"),
    ("ground_tolerance", -1e-3, r"^ground_tolerance = -0\.001 is invalid: must be >= 0$"),
])
def test_a_model_field_out_of_its_spec_is_one_line_naming_the_range_and_the_source(field, value, message):
    with pytest.raises(ConfigError, match=message):
        build_model(ROBOT, **{field: value})


def test_bspline_basis_partition_of_unity_and_derivatives():
    b0, b1, b2 = bspline.basis(np.linspace(0, 1, 11))
    np.testing.assert_allclose(b0.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(b1.sum(axis=1), 0.0, atol=1e-9)
    np.testing.assert_allclose(b2.sum(axis=1), 0.0, atol=1e-9)


@pytest.mark.parametrize("step", [0, 1, 2, 3, 4])
def test_joint_work_equals_potential_energy_gain_plus_friction_loss(step):
    """∫ τ·θ̇ dt over a step (rest to rest) = Δ(m g y_c) + ∫ μ F_R |v_tip| dt: the torques, their signs and the
    friction law are consistent with energy conservation."""
    spec = plan(6)[step]
    m = build_model(ROBOT, samples=4001)
    th, thd, thdd = driven_trajectory(spec, ALPHA, ALPHA * C_FINAL_003[spec.kind], m.u, m.step_time)
    motion = closed_motion(spec, th, thd, thdd)
    tau, _, f_fr, p = closed_chain_forces(m, spec, motion)
    n_driven = tau.shape[1]
    power = np.sum(tau * motion.thetad[:, :n_driven], axis=1)
    n = motion.phi.shape[1]
    _, _, _, v = link_kinematics(np.full(n, m.link_length), np.full(n, m.link_length / 2), motion.phi, motion.phid,
                                 motion.phidd)
    loss = -f_fr * v[:, -1, 0]  # friction power dissipated at the sliding contact (≥ 0)
    assert np.all(loss >= -1e-12)
    y_c = np.sum(p[:, :-1, 1] + 0.5 * m.link_length * np.sin(motion.phi), axis=1)
    gain = m.link_mass * m.gravity * (y_c[-1] - y_c[0])
    work = np.trapezoid(power, m.u * m.step_time)
    dissipated = np.trapezoid(loss, m.u * m.step_time)
    assert work == pytest.approx(gain + dissipated, rel=2e-4, abs=1e-7)
    assert dissipated > 0.02 * abs(work)  # the check is sensitive to the friction term
