"""002's vertical-plane model: kinematics (4.2)–(4.17), inertia matrix (4.35)/(A.2), energy, SEA sign."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from snake_core.actuator import MotorPD, motor_pd
from snake_core.robot import load_robot
from snake_core.vertical import (
    build_model,
    compute_terms,
    contact_points,
    energy,
    initial_configuration,
    link_angles,
    link_positions,
    mass_matrix,
    point_jacobians,
    rotor_positions,
)


@pytest.fixture(scope="module")
def robot():
    return load_robot("koopaee6")


@pytest.fixture(scope="module")
def model(robot):
    return build_model(robot)


def random_q(model, rng):
    q = np.zeros(model.n_q)
    q[model.i_alpha] = rng.uniform(-1.0, 1.0, model.n_joints)
    q[model.i_theta] = rng.uniform(-np.pi, np.pi)
    q[model.i_px], q[model.i_pz] = rng.uniform(-1, 1, 2)
    q[model.i_beta] = q[model.i_alpha] + rng.uniform(-0.3, 0.3, model.n_joints)
    return q


def direct_geometry(model, q):
    """(4.2)–(4.3) and (4.11)–(4.12) summed link by link from the tail tip x_0, z_0."""
    n, l_half = model.n_links, model.half_length
    alpha, th_n = q[model.i_alpha], q[model.i_theta]
    theta = np.array([alpha[i:].sum() + th_n for i in range(n)])  # θ_i = Σ_{k≥i} α_k + θ_N
    rel_x = np.array([2 * l_half * np.cos(theta[:i]).sum() + l_half * np.cos(theta[i]) for i in range(n)])
    rel_z = np.array([2 * l_half * np.sin(theta[:i]).sum() + l_half * np.sin(theta[i]) for i in range(n)])
    x0, z0 = q[model.i_px] - rel_x.mean(), q[model.i_pz] - rel_z.mean()  # p = mean of the link centres
    joints_x = x0 + 2 * l_half * np.cumsum(np.cos(theta))[:-1]
    joints_z = z0 + 2 * l_half * np.cumsum(np.sin(theta))[:-1]
    return theta, x0 + rel_x, z0 + rel_z, (x0, z0), joints_x, joints_z


def test_kinematics_matches_direct_geometry(model):
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = random_q(model, rng)
        theta, xl, zl, (x0, z0), jx, jz = direct_geometry(model, q)
        assert link_angles(model, q) == pytest.approx(theta, abs=1e-12)
        x, z = link_positions(model, q)
        assert x == pytest.approx(xl, abs=1e-12) and z == pytest.approx(zl, abs=1e-12)
        assert x.mean() == pytest.approx(q[model.i_px]) and z.mean() == pytest.approx(q[model.i_pz])
        xr, zr = rotor_positions(model, q)
        assert xr == pytest.approx(jx, abs=1e-12) and zr == pytest.approx(jz, abs=1e-12)
        # 2N+1 candidates: centres, tail tip, joints, head tip
        xc, zc = contact_points(model, q)
        n = model.n_links
        assert xc.shape == (2 * n + 1,)
        assert (xc[n], zc[n]) == pytest.approx((x0, z0), abs=1e-12)
        assert xc[n + 1:2 * n] == pytest.approx(jx, abs=1e-12)
        head = (x0 + 2 * model.half_length * np.cos(theta).sum(), z0 + 2 * model.half_length * np.sin(theta).sum())
        assert (xc[-1], zc[-1]) == pytest.approx(head, abs=1e-12)


def test_straight_start_pose_lies_along_plus_x(model):
    q = initial_configuration(model, tail_x=0.1, tail_z=0.02)
    xc, zc = contact_points(model, q)
    n = model.n_links
    assert xc[n] == pytest.approx(0.1) and xc[-1] == pytest.approx(0.1 + model.robot.total_length)
    assert np.allclose(zc, 0.02)


def test_point_jacobians_match_finite_differences(model):
    rng = np.random.default_rng(2)
    q = random_q(model, rng)
    Jx, Jz = point_jacobians(model, q)
    eps = 1e-7
    for i in range(model.n_q):
        dq = np.zeros(model.n_q)
        dq[i] = eps
        xp, zp = contact_points(model, q + dq)
        xm, zm = contact_points(model, q - dq)
        assert Jx[:, i] == pytest.approx((xp - xm) / (2 * eps), abs=1e-7)
        assert Jz[:, i] == pytest.approx((zp - zm) / (2 * eps), abs=1e-7)


def test_mass_matrix_is_symmetric_positive_definite(model):
    rng = np.random.default_rng(3)
    for _ in range(20):
        M = mass_matrix(model, random_q(model, rng))
        assert np.allclose(M, M.T, atol=1e-15)
        assert np.linalg.eigvalsh(M).min() > 0.0
    M = mass_matrix(model, random_q(model, rng))
    assert M[model.i_px, model.i_px] == pytest.approx(0.956)  # 002 Table 3.2's total weight
    assert np.diag(M)[model.i_beta] == pytest.approx(np.full(5, 2.45e-7))  # 𝕊_3 = J_r ("own", (4.36))


def test_reflected_rotor_reading_uses_n_squared_Jr(robot):
    m = build_model(robot, rotor_inertia_model="reflected")
    M = mass_matrix(m, initial_configuration(m))
    assert np.diag(M)[m.i_beta] == pytest.approx(np.full(5, 256**2 * 2.45e-7))


def test_kinetic_energy_from_mass_matrix_equals_point_sum(model):
    """½ q̇ᵀ𝕄q̇ equals T_1 + T_2 summed point by point (4.18)–(4.19)."""
    rng = np.random.default_rng(4)
    for _ in range(10):
        q = random_q(model, rng)
        v = rng.normal(size=model.n_q)
        assert 0.5 * v @ mass_matrix(model, q) @ v == pytest.approx(energy(model, q, v)["kinetic"], rel=1e-12)


def test_mass_matrix_of_rigid_chain_matches_pinocchio(model):
    """CRBA of the same planar chain built in Pinocchio (tail-tip base, absolute/relative angles),
    mapped to 002's coordinates q_1 = [α, θ_N, p_x, p_z] by the Jacobian of the coordinate change."""
    import pinocchio as pin
    n, l_half = model.n_links, model.half_length
    pm = pin.Model()
    jid = pm.addJoint(0, pin.JointModelPX(), pin.SE3.Identity(), "x0")
    jid = pm.addJoint(jid, pin.JointModelPZ(), pin.SE3.Identity(), "z0")
    axis = np.array([0.0, -1.0, 0.0])  # rotation about −y takes +x towards +z (002's θ)
    Jl = model.link_inertia
    for i in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.0 if i == 0 else 2 * l_half, 0.0, 0.0]))
        jid = pm.addJoint(jid, pin.JointModelRevoluteUnaligned(axis), placement, f"link{i + 1}")
        pm.appendBodyToJoint(jid, pin.Inertia(model.link_mass, np.array([l_half, 0.0, 0.0]), np.eye(3) * Jl),
                             pin.SE3.Identity())
        if i < n - 1:  # the rotor of joint i+1 sits at the head end of link i+1, a point mass here
            pm.appendBodyToJoint(jid, pin.Inertia(model.rotor_mass, np.array([2 * l_half, 0.0, 0.0]),
                                                  np.zeros((3, 3))), pin.SE3.Identity())
    pdata = pm.createData()

    def to_pin(q1):
        q = np.zeros(model.n_q)
        q[: n + 2] = q1
        th = link_angles(model, q)
        xc, zc = contact_points(model, q)
        return np.concatenate([[xc[n], zc[n], th[0]], np.diff(th)])  # x0, z0, θ_1, relative angles

    rng = np.random.default_rng(5)
    for _ in range(5):
        q = random_q(model, rng)
        q1 = q[: n + 2]
        eps = 1e-6
        Jmap = np.column_stack([(to_pin(q1 + e) - to_pin(q1 - e)) / (2 * eps) for e in np.eye(n + 2) * eps])
        Mp = pin.crba(pm, pdata, to_pin(q1))
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        expected = Jmap.T @ Mp @ Jmap
        ours = mass_matrix(model, q)[: n + 2, : n + 2]
        assert ours == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_energy_is_conserved_without_contact_damping_or_input(robot):
    """No ground, no damping, U = 0: gravity, the SEA springs and the rotors exchange energy only.
    Reflected rotor reading so that the motor mode (≈ 10 rad/s) is resolved by a tight explicit solver."""
    model = build_model(robot, rotor_inertia_model="reflected")
    rng = np.random.default_rng(6)
    q0 = random_q(model, rng)
    v0 = rng.normal(scale=0.5, size=model.n_q)

    data = model.create_data()

    def rhs(t, y):
        q, v = y[: model.n_q], y[model.n_q:]
        compute_terms(model, data, q, v)
        return np.concatenate([v, np.linalg.solve(data.M, data.f)])

    sol = solve_ivp(rhs, (0.0, 2.0), np.concatenate([q0, v0]), method="DOP853", rtol=1e-12, atol=1e-12,
                    t_eval=np.linspace(0, 2, 41))
    assert sol.success
    e = [energy(model, y[: model.n_q], y[model.n_q:]) for y in sol.y.T]
    total = np.array([x["total"] for x in e])
    scale = e[0]["kinetic"] + e[0]["spring"]
    assert np.max(np.abs(total - total[0])) / scale < 1e-6
    # and the run is not trivial: energy moved between its forms
    assert np.ptp([x["spring"] for x in e]) > 0.05 * scale


def test_motor_pd_is_4_39(robot):
    pd = motor_pd(robot)
    u, active = pd.torque(np.array([0.1]), np.array([0.2]), np.array([0.3]), np.array([-0.1]))
    assert u[0] == pytest.approx(-60.0 * (0.1 - 0.3) - 25.0 * (0.2 + 0.1))
    sat = dataclasses.replace(pd, saturate=True)
    u, active = sat.torque(np.array([0.0]), np.array([0.0]), np.array([1.0]), np.array([0.0]))
    assert u[0] == pytest.approx(1.18) and not active[0]
    with pytest.raises(ValueError, match=r"actuator\.kp"):
        MotorPD(-1.0, 1.0, 1.0, 1.0)


def test_saturated_motor_torque_follows_the_servos_torque_speed_line(robot):
    """002 Table 3.1: stall torque 1.18 N·m at rest, none at the no-load speed 6.30 rad/s, linear between (and
    up to 2 τ_s braking at −ω_0); inside the line U is (4.39) unchanged."""
    pd = motor_pd(robot, saturate=True)
    speed = np.array([0.0, 3.15, 6.30, 7.0, -6.30, 0.0, 3.15])
    push = np.array([10.0, 10.0, 10.0, 10.0, 10.0, -10.0, -10.0])  # β_d far beyond β = 0: the PD asks for ±600 N·m
    u, active = pd.torque(np.zeros(7), speed, push, speed)
    assert u == pytest.approx([1.18, 0.59, 0.0, -1.18 * 0.7 / 6.3, 2.36, -1.18, -1.77], abs=1e-12)
    assert not active.any()
    u, active = pd.torque(np.zeros(2), np.array([1.0, -2.0]), np.array([0.001, -0.002]), np.array([1.0, -2.0]))
    assert active.all() and u == pytest.approx([60.0 * 0.001, -60.0 * 0.002])
