"""001 (3)-(25): kinematics against Pinocchio, projector identities, maps against a direct KKT solve."""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.pushing import PushingModel, Scenario, SingularConstraintsError, build_model
from snake_core.pushing.constraints import constraint_set, object_inertia_bar, system_inertia
from snake_core.pushing.kinematics import actuation_matrix, com_polar, mass_matrix, point_jacobian
from snake_core.pushing.maps import input_maps
from snake_core.pushing.projectors import left_pseudo_inverse


def random_case(rng: np.random.Generator, n_joints: int) -> tuple[PushingModel, np.ndarray]:
    """Random masses, κ, geometry (object off the normal, so it rotates) and configuration."""
    model = build_model(n_joints, fields=dict(
        link_mass=rng.uniform(0.3, 3.0), link_length=rng.uniform(0.08, 0.3),
        link_inertia=rng.uniform(1e-4, 5e-3), kappa=rng.uniform(0.5, 200.0), object_gyration=rng.uniform(0.02, 0.2),
        object_offset=(rng.uniform(0.02, 0.2), rng.uniform(-0.1, 0.1)), contact_link=int(rng.integers(1, n_joints + 2)),
        contact_position=rng.uniform(0.1, 0.9), contact_side=int(rng.choice([-1, 1])),
        wheel_position=rng.uniform(0.1, 0.9)))
    q = np.concatenate((rng.uniform(-1, 1, 2), rng.uniform(-np.pi, np.pi, 1), rng.uniform(-2.3, 2.3, n_joints)))
    return model, q


_CASE_RNG = np.random.default_rng(9)
CASES = [random_case(_CASE_RNG, n) for n in (1, 2, 3, 3, 5, 7)]


def pin_chain(model: PushingModel):
    """The same planar chain built in Pinocchio: PX, PY, RZ base, then one RZ joint per link."""
    import pinocchio as pin

    pm = pin.Model()
    parent = 0
    for name, joint in (("x", pin.JointModelPX()), ("y", pin.JointModelPY())):
        parent = pm.addJoint(parent, joint, pin.SE3.Identity(), name)
        pm.appendBodyToJoint(parent, pin.Inertia.Zero(), pin.SE3.Identity())
    for i in range(model.n_links):
        placement = pin.SE3(np.eye(3), np.array([model.link_length if i else 0.0, 0.0, 0.0]))
        parent = pm.addJoint(parent, pin.JointModelRZ(), placement, f"link{i + 1}")
        inertia = pin.Inertia(model.link_mass, np.array([model.link_length / 2, 0, 0]),
                              np.diag([1e-6, 1e-6, model.link_inertia]))
        pm.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return pm


@pytest.mark.parametrize(("model", "q"), CASES)
def test_mass_matrix_and_contact_jacobian_equal_pinocchio(model, q):
    import pinocchio as pin

    pm = pin_chain(model)
    data = pm.createData()
    m_pin = pin.crba(pm, data, q)
    m_pin = np.triu(m_pin) + np.triu(m_pin, 1).T
    np.testing.assert_allclose(mass_matrix(model, q), m_pin, atol=1e-12)
    frame = pm.addFrame(pin.Frame("contact", pm.getJointId(f"link{model.contact_link}"), 0,
                                  pin.SE3(np.eye(3), np.array([model.contact_position * model.link_length, 0, 0])),
                                  pin.FrameType.OP_FRAME))
    data = pm.createData()
    pin.computeJointJacobians(pm, data, q)
    pin.updateFramePlacements(pm, data)
    j_pin = pin.getFrameJacobian(pm, data, frame, pin.LOCAL_WORLD_ALIGNED)[:2]
    np.testing.assert_allclose(point_jacobian(model, q, model.contact_link, model.contact_position), j_pin, atol=1e-12)


def kkt_solve(inertia: np.ndarray, A: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Direct solve of 001 (12)-(13) with all constraints active, from rest, independent of the projectors:
    [[I, −Aᵀ], [A, 0]] [a; λ] = [f; 0]  (I a = f + Aᵀ λ, A a = 0)."""
    n, n_c = A.shape[-1], A.shape[-2]
    kkt = np.block([[inertia, -A.T], [A, np.zeros((n_c, n_c))]])
    sol = np.linalg.solve(kkt, np.concatenate((f, np.zeros(n_c))))
    return sol[:n], sol[n:]


def system(model: PushingModel, q: np.ndarray, scenario: Scenario):
    cs = constraint_set(model, q, scenario)
    inertia = system_inertia(model, q)
    return cs, inertia, np.linalg.inv(inertia)


@pytest.mark.parametrize(("model", "q"), CASES)
@pytest.mark.parametrize("scenario", [Scenario.NO_FRICTION, Scenario.IDEAL_WHEELS])
def test_projector_identities_on_random_configurations(model, q, scenario):
    cs, _, i_inv = system(model, q, scenario)
    a = cs.A
    pinv = left_pseudo_inverse(i_inv, a)
    perp = np.eye(a.shape[1]) - a.T @ pinv  # Φ⊥ (19)
    np.testing.assert_allclose(pinv @ a.T, np.eye(a.shape[0]), atol=1e-9)  # 001 (15)
    np.testing.assert_allclose(perp @ perp, perp, atol=1e-9)  # idempotent (19)
    np.testing.assert_allclose(perp @ a.T, 0.0, atol=1e-9)  # annihilates the constraint wrenches 𝒞 (7)
    np.testing.assert_allclose(a @ i_inv @ perp, 0.0, atol=1e-9)  # accelerations satisfy A a = 0 (13)
    assert np.linalg.matrix_rank(perp) == a.shape[1] - a.shape[0]


@pytest.mark.parametrize(("model", "q"), CASES)
@pytest.mark.parametrize("scenario", [Scenario.NO_FRICTION, Scenario.IDEAL_WHEELS])
def test_maps_20_to_25_equal_a_direct_kkt_solve(model, q, scenario, rng):
    cs, inertia, i_inv = system(model, q, scenario)
    tau = rng.normal(size=model.n_joints)
    f_obj = rng.normal(size=3)
    f = np.concatenate((actuation_matrix(model) @ tau, f_obj))
    a_kkt, lam_kkt = kkt_solve(inertia, cs.A, f)
    maps = input_maps(mass_matrix(model, q) / model.link_mass, object_inertia_bar(model), cs.J_s, cs.G,
                      actuation_matrix(model), model.link_mass, model.kappa)
    qdd = maps.q_tau @ tau + maps.q_f @ f_obj  # (20)
    a_obj = maps.a_tau @ tau + maps.a_f @ f_obj  # (21)
    scale = np.abs(a_kkt).max()
    np.testing.assert_allclose(qdd, a_kkt[:model.n_s], atol=1e-9 * scale, rtol=0)  # (20), (22)-(23)
    np.testing.assert_allclose(a_obj, a_kkt[model.n_s:], atol=1e-9 * scale, rtol=0)  # (21), (24)-(25)
    np.testing.assert_allclose(maps.lam_tau @ tau + maps.lam_f @ f_obj, lam_kkt, atol=1e-9 * np.abs(lam_kkt).max())
    # the projector route (17)-(18) gives the same
    pinv = left_pseudo_inverse(i_inv, cs.A)
    np.testing.assert_allclose(-pinv @ f, lam_kkt, atol=1e-9 * np.abs(lam_kkt).max())
    np.testing.assert_allclose(i_inv @ (f - cs.A.T @ pinv @ f), a_kkt, atol=1e-9 * scale)
    # (26)-(27): the quadratic forms are the inertia-metric lengths of the KKT accelerations
    qdd_sq = tau @ maps.Xi_tau @ tau + f_obj @ maps.Xi_f @ f_obj + tau @ maps.Xi_tau_f @ f_obj
    a_sq = tau @ maps.Omega_tau @ tau + f_obj @ maps.Omega_f @ f_obj + tau @ maps.Omega_tau_f @ f_obj
    m_s = inertia[:model.n_s, :model.n_s]
    i_obj = inertia[model.n_s:, model.n_s:]
    assert qdd_sq == pytest.approx(a_kkt[:model.n_s] @ m_s @ a_kkt[:model.n_s], rel=1e-9)
    assert a_sq == pytest.approx(a_kkt[model.n_s:] @ i_obj @ a_kkt[model.n_s:], rel=1e-9)


def test_wheel_rows_stop_the_lateral_motion_of_every_wheel():
    model, q = build_model(3), np.array([0.1, -0.2, 0.4, 0.5, -1.0, 0.7])
    cs, inertia, _ = system(model, q, Scenario.IDEAL_WHEELS)
    assert cs.names == ("contact", "wheel 2", "wheel 3", "wheel 4")
    a, _ = kkt_solve(inertia, cs.A, np.concatenate((actuation_matrix(model) @ [0.3, -0.2, 0.1], np.zeros(3))))
    for link in (2, 3, 4):
        theta = q[2] + q[3:3 + link - 1].sum()
        lateral = np.array([-np.sin(theta), np.cos(theta)])
        assert lateral @ point_jacobian(model, q, link, 0.5) @ a[:6] == pytest.approx(0.0, abs=1e-12)


def test_dependent_constraints_are_reported_not_inverted():
    model, q = CASES[3]
    cs, _, i_inv = system(model, q, Scenario.IDEAL_WHEELS)
    dependent = np.vstack((cs.A, 2.0 * cs.A[1]))  # a wheel row counted twice
    with pytest.raises(SingularConstraintsError, match=r"rank deficient.*wheel 2"):
        left_pseudo_inverse(i_inv, dependent, [*cs.names, "wheel 2 (again)"])
    with pytest.raises(SingularConstraintsError):
        input_maps(mass_matrix(model, q), object_inertia_bar(model), np.vstack((cs.J_s, cs.J_s[:1])),
                   np.hstack((cs.G, cs.G[:, :1])), actuation_matrix(model), 1.0, model.kappa)


def test_com_polar_coordinates_of_simple_shapes():
    model = build_model(2)  # contact at the middle of link 1, ℓ = 0.15
    r, ang = com_polar(model, np.zeros(5))  # straight: COM at the middle link's centre, ahead along the link
    assert r == pytest.approx(0.15) and ang == pytest.approx(0.0)
    r, ang = com_polar(model, np.array([0, 0, 0.3, np.pi / 2, 0.0]))  # L shape turning left
    # link centres (0.075, 0), (0.15, 0.075), (0.15, 0.225) in the link-1 frame → COM (0.125, 0.1)
    assert r == pytest.approx(np.hypot(0.05, 0.1)) and ang == pytest.approx(np.arctan2(0.1, 0.05))
