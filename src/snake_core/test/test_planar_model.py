"""The planar model of 004 (3)–(20) against an independent Pinocchio chain.

Pinocchio's planar root joint uses q_pin = [x, y, cos θ_1, sin θ_1, φ] and a body-frame velocity
v_pin = [Rᵀ(θ_1) (ẋ_h, ẏ_h), θ̇_1, φ̇]; with v_pin = T(q) q̇ the 004 terms are H = Tᵀ M T and
h = Tᵀ (b(q, v_pin) − J_frictionᵀ f + M Ṫ q̇) (the documented change of root coordinates).
"""

import numpy as np
import pinocchio as pin
import pytest

from snake_core.planar.model import (
    PlanarModel,
    build_model,
    compute_terms,
    forward_dynamics,
    link_positions,
    mass_matrix,
)
from snake_core.robot import load_robot


def _viscous_friction_matrix(model: PlanarModel, q: np.ndarray) -> np.ndarray:
    """C = J_{qq̄}ᵀ (C_tr + C_rot) J_{qq̄} of 004 (11)–(14) as a matrix: c_x along, c_y across each link."""
    n = model.n
    th = model.L @ q[2:]
    c, s = np.cos(th), np.sin(th)
    Jx = np.hstack((np.ones((n, 1)), np.zeros((n, 1)), -model.K @ np.diag(s) @ model.L))  # (7)
    Jy = np.hstack((np.zeros((n, 1)), np.ones((n, 1)), model.K @ np.diag(c) @ model.L))
    J = np.vstack((Jx, Jy))
    C_tr = np.block([[np.diag(model.c_x * c**2 + model.c_y * s**2), np.diag((model.c_x - model.c_y) * s * c)],
                     [np.diag((model.c_x - model.c_y) * s * c), np.diag(model.c_x * s**2 + model.c_y * c**2)]])  # (12)
    C = J.T @ C_tr @ J
    C[2:, 2:] += model.c_theta * model.L.T @ model.L  # (13)
    return C


def _pin_chain(model: PlanarModel) -> pin.Model:
    """The same chain built with Pinocchio: planar root at the head tip, revolute z joints."""
    pm = pin.Model()
    pm.gravity = pin.Motion.Zero()
    inertia = pin.Inertia(model.m, np.array([model.l, 0.0, 0.0]), np.diag([model.J] * 3))
    parent = pm.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "root")
    pm.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    for i in range(1, model.n):
        placement = pin.SE3(np.eye(3), np.array([2 * model.l, 0.0, 0.0]))
        parent = pm.addJoint(parent, pin.JointModelRZ(), placement, f"joint_{i}")
        pm.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return pm


def _root_map(q, qd):
    """T with v_pin = T q̇, and Ṫ q̇."""
    dof = q.size
    c, s = np.cos(q[2]), np.sin(q[2])
    T = np.eye(dof)
    T[:2, :2] = [[c, s], [-s, c]]
    Tdot_qd = np.zeros(dof)
    Tdot_qd[:2] = qd[2] * np.array([[-s, c], [-c, -s]]) @ qd[:2]
    return T, Tdot_qd


def _q_pin(q):
    return np.concatenate(([q[0], q[1], np.cos(q[2]), np.sin(q[2])], q[3:]))


def _friction_forces(model, pm, pd, q_pin, v_pin):
    """Viscous friction 004 (10) at each link centre, in Pinocchio's joint frames."""
    pin.forwardKinematics(pm, pd, q_pin, v_pin)
    lever = np.array([model.l, 0.0, 0.0])
    fext = [pin.Force.Zero()]
    for i in range(1, pm.njoints):
        v = pd.v[i]
        v_com = v.linear + np.cross(v.angular, lever)
        f = np.array([-model.c_x * v_com[0], -model.c_y * v_com[1], 0.0])
        moment = np.cross(lever, f) + np.array([0.0, 0.0, -model.c_theta * v.angular[2]])
        fext.append(pin.Force(f, moment))
    return fext


def _random_state(rng, model):
    q = np.concatenate((rng.uniform(-1, 1, 2), rng.uniform(-np.pi, np.pi, 1), rng.uniform(-1.2, 1.2, model.n - 1)))
    qd = rng.normal(0.0, 1.0, model.dof)
    return q, qd


@pytest.fixture(scope="module")
def aniso():
    return PlanarModel(n=10, l=0.06, m=0.182, J=2.2e-4, c_x=0.5, c_y=5.0, c_theta=7.2e-5)


@pytest.mark.parametrize("n", [4, 7, 10])
def test_inertia_matrix_equals_pinocchio_crba(n):
    model = PlanarModel(n=n, l=0.06, m=0.182, J=2.2e-4)
    pm = _pin_chain(model)
    pd = pm.createData()
    rng = np.random.default_rng(n)
    for _ in range(5):
        q, qd = _random_state(rng, model)
        M = pin.crba(pm, pd, _q_pin(q))
        M = np.triu(M) + np.triu(M, 1).T
        T, _ = _root_map(q, qd)
        H = mass_matrix(model, q)
        assert np.max(np.abs(H - T.T @ M @ T)) < 1e-9
        assert np.max(np.abs(H - H.T)) < 1e-12


def test_coriolis_and_friction_equal_pinocchio_rnea(aniso):
    pm = _pin_chain(aniso)
    pd = pm.createData()
    rng = np.random.default_rng(1)
    for _ in range(5):
        q, qd = _random_state(rng, aniso)
        T, Tdot_qd = _root_map(q, qd)
        q_pin, v_pin = _q_pin(q), T @ qd
        fext = _friction_forces(aniso, pm, pd, q_pin, v_pin)
        M = pin.crba(pm, pd, q_pin)
        M = np.triu(M) + np.triu(M, 1).T
        b_no_friction = pin.rnea(pm, pd, q_pin, v_pin, np.zeros(aniso.dof))
        b_friction = pin.rnea(pm, pd, q_pin, v_pin, np.zeros(aniso.dof), fext)
        data = compute_terms(aniso, aniso.create_data(), q, qd)
        scale = np.max(np.abs(data.h)) + 1.0
        assert np.max(np.abs(data.h_coriolis - T.T @ (b_no_friction + M @ Tdot_qd))) < 1e-9 * scale
        assert np.max(np.abs(data.h_viscous - T.T @ (b_friction - b_no_friction))) < 1e-9 * scale
        # (11)–(14) as a matrix gives the same friction term
        assert np.max(np.abs(_viscous_friction_matrix(aniso, q) @ qd - data.h_viscous)) < 1e-12 * scale


def test_forward_dynamics_equals_pinocchio_aba(aniso):
    pm = _pin_chain(aniso)
    pd = pm.createData()
    rng = np.random.default_rng(2)
    q, qd = _random_state(rng, aniso)
    tau = rng.normal(0.0, 0.3, aniso.n - 1)
    T, Tdot_qd = _root_map(q, qd)
    q_pin, v_pin = _q_pin(q), T @ qd
    fext = _friction_forces(aniso, pm, pd, q_pin, v_pin)
    a_pin = pin.aba(pm, pd, q_pin, v_pin, np.concatenate((np.zeros(3), tau)), fext)
    qdd = forward_dynamics(aniso, compute_terms(aniso, aniso.create_data(), q, qd), tau)
    assert np.allclose(T @ qdd + Tdot_qd, a_pin, atol=1e-9)


def test_head_link_centre_is_l_from_head_tip_along_theta1():
    model = build_model(load_robot("ariizumi10"))
    q = np.zeros(model.dof)
    q[2] = 0.3
    p = link_positions(model, q)
    assert np.allclose(p[0], 0.06 * np.array([np.cos(0.3), np.sin(0.3)]))
    assert np.allclose(p[-1], 0.06 * 19 * np.array([np.cos(0.3), np.sin(0.3)]))  # straight body: (2n−1) l


def test_coulomb_friction_opposes_sliding_and_saturates():
    model = PlanarModel(n=4, l=0.088, m=0.417, J=1.2e-3, mu_x=0.1, mu_y=1.0)
    q = np.zeros(model.dof)
    for speed in (0.05, 0.5):
        qd = np.zeros(model.dof)
        qd[1] = speed  # whole straight body slides sideways (across the links)
        h = compute_terms(model, model.create_data(), q, qd).h
        assert h[1] == pytest.approx(4 * 0.417 * 9.81 * 1.0 * speed / np.hypot(speed, 1e-3), rel=1e-12)
        qd = np.zeros(model.dof)
        qd[0] = speed  # along the links: the small coefficient
        assert compute_terms(model, model.create_data(), q, qd).h[0] == pytest.approx(4 * 0.417 * 9.81 * 0.1, rel=1e-3)


def test_inertia_matrix_has_the_printed_block_form_19():
    """H of (19): [[mn, 0, −m1ᵀK S_θ L], [0, mn, m1ᵀK C_θ L], [·, ·, Lᵀ H̄22 L]], H̄22 = m(S KᵀK S + C KᵀK C) + J I."""
    model = PlanarModel(n=7, l=0.06, m=0.182, J=2.2e-4)
    rng = np.random.default_rng(11)
    q, _ = _random_state(rng, model)
    H = mass_matrix(model, q)
    th = model.L @ q[2:]
    S, C = np.diag(np.sin(th)), np.diag(np.cos(th))
    K, L, one, m, n = model.K, model.L, np.ones(7), model.m, model.n
    H22_bar = m * (S @ K.T @ K @ S + C @ K.T @ K @ C) + model.J * np.eye(n)
    assert H[0, 0] == pytest.approx(m * n) and H[1, 1] == pytest.approx(m * n) and H[0, 1] == 0.0
    assert np.allclose(H[0, 2:], -m * one @ K @ S @ L, atol=1e-15)
    assert np.allclose(H[1, 2:], m * one @ K @ C @ L, atol=1e-15)
    assert np.allclose(H[2:, 2:], L.T @ H22_bar @ L, atol=1e-15)
