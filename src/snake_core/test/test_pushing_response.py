"""Unilateral contact and bounded wheel friction (001 Scenarios 1-3), against an independent QP."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from snake_core.pushing import ContactLostError, PushingModel, Scenario, build_model
from snake_core.pushing.constraints import constraint_set, object_inertia_bar, system_inertia
from snake_core.pushing.kinematics import actuation_matrix, mass_matrix
from snake_core.pushing.maps import input_maps
from snake_core.pushing.response import push, respond

Q3 = np.array([0.0, 0.0, 0.0, np.radians(-40), np.radians(70), np.radians(-30)])


def gauss_qp(model: PushingModel, q: np.ndarray, tau: np.ndarray, scenario: Scenario) -> np.ndarray:
    """Independent solution: Gauss's principle with friction as a convex program (SLSQP).

    min ½ (a − a₀)ᵀ I (a − a₀) + Σ μN s_w  s.t.  A_c a ≥ 0, s_w ≥ ±A_w a (Scenario 2), A_w a = 0 (3).
    """
    cs = constraint_set(model, q, scenario)
    inertia = system_inertia(model, q)
    n = inertia.shape[0]
    f = np.concatenate((actuation_matrix(model) @ tau, np.zeros(3)))
    a0 = np.linalg.solve(inertia, f)
    nw = cs.A.shape[0] - 1
    bound = np.nan_to_num(cs.bound[1:], posinf=0.0)
    scale = 1.0 / np.abs(a0).max()

    def split(x):
        return x[:n] / scale, x[n:]

    def cost(x):
        a, s = split(x)
        return (0.5 * (a - a0) @ inertia @ (a - a0) + bound @ s) * scale**2

    cons = [{"type": "ineq", "fun": lambda x: cs.A[0] @ split(x)[0] * scale}]
    if scenario == Scenario.BOUNDED_WHEELS:
        cons += [{"type": "ineq", "fun": lambda x: (split(x)[1] - cs.A[1:] @ split(x)[0]) * scale},
                 {"type": "ineq", "fun": lambda x: (split(x)[1] + cs.A[1:] @ split(x)[0]) * scale}]
    elif scenario == Scenario.IDEAL_WHEELS:
        cons += [{"type": "eq", "fun": lambda x: cs.A[1:] @ split(x)[0] * scale}]
    x0 = np.concatenate((a0 * scale, np.abs(cs.A[1:] @ a0)))
    sol = minimize(cost, x0, constraints=cons, method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert sol.success, sol.message
    return split(sol.x)[0] if nw else sol.x[:n] / scale


@pytest.mark.parametrize("scenario", list(Scenario))
def test_response_equals_gauss_principle_solved_as_a_qp(scenario, rng):
    model = build_model(3)
    w = input_maps(mass_matrix(model, Q3), object_inertia_bar(model), constraint_set(model, Q3, scenario).J_s,
                   constraint_set(model, Q3, scenario).G, actuation_matrix(model), 1.0, model.kappa).W
    # inputs on and beyond the boundary of (31), where Scenario 2's wheels saturate
    u = rng.normal(size=(12, 3))
    radius = np.repeat([0.3, 1.0, 3.0], 4)[:, None]
    tau = radius * u / np.sqrt(np.einsum("ki,ij,kj->k", u, w, u))[:, None]
    res = respond(model, Q3, tau, scenario)
    if scenario == Scenario.BOUNDED_WHEELS:
        assert np.any(res.slip != 0) and np.any(np.all(res.slip == 0, axis=1))  # both regimes exercised
    assert 0 < res.contact.sum() < len(tau)
    for k in range(len(tau)):
        a_qp = gauss_qp(model, Q3, tau[k], scenario)
        a = np.concatenate((res.qdd[k], res.a_obj[k]))
        np.testing.assert_allclose(a, a_qp, atol=1e-5 * np.abs(a_qp).max())


def test_exactly_one_of_opposite_inputs_keeps_the_contact(rng):
    """001 Fig. 4c: half of the input region pulls the contact link away (sr → 0 there)."""
    model = build_model(2)
    q = np.array([0, 0, 0, np.radians(-135), np.radians(-135)])
    tau = rng.normal(size=(50, 2)) * 0.05
    for scenario in Scenario:
        res = respond(model, q, np.concatenate((tau, -tau)), scenario)
        np.testing.assert_array_equal(res.contact[:50], ~res.contact[50:])
        lost = ~res.contact
        np.testing.assert_allclose(res.a_obj[lost], 0.0, atol=1e-15)  # the object is not pushed
        assert np.all(np.isnan(res.sr[lost])) and np.all(res.sr[~lost] > 0.0)
        assert np.all(res.lam[~lost, 0] >= 0.0)


def test_a_lost_contact_is_reported_not_returned_as_a_number():
    model = build_model(2)
    q = np.array([0, 0, 0, np.radians(-135), np.radians(-135)])
    tau = np.array([0.05, 0.01])
    pushing, pulling = (tau, -tau) if respond(model, q, tau[None], Scenario.NO_FRICTION).contact[0] else (-tau, tau)
    result = push(model, q, pushing, Scenario.NO_FRICTION)
    assert result.a_obj_sq > 0 and 0 < result.sr < 1
    with pytest.raises(ContactLostError, match="contact is lost"):
        push(model, q, pulling, Scenario.NO_FRICTION)


def test_bounded_wheels_tend_to_no_friction_and_to_ideal_wheels(rng):
    """Scenario 2 with μ_s → 0 is Scenario 1, with μ_s → ∞ Scenario 3 (seed001 claim 22)."""
    tau = rng.normal(size=(40, 3)) * 0.1
    limits = {0.0: Scenario.NO_FRICTION, 1e6: Scenario.IDEAL_WHEELS}
    for mu, other in limits.items():
        r2 = respond(build_model(3, fields={"mu_s": mu}), Q3, tau, Scenario.BOUNDED_WHEELS)
        ro = respond(build_model(3, fields={"mu_s": mu}), Q3, tau, other)
        np.testing.assert_allclose(r2.qdd, ro.qdd, atol=1e-9)
        np.testing.assert_allclose(r2.a_obj, ro.a_obj, atol=1e-9)


def test_while_the_contact_holds_the_response_is_the_linear_maps(rng):
    model = build_model(3)
    cs = constraint_set(model, Q3, Scenario.IDEAL_WHEELS)
    maps = input_maps(mass_matrix(model, Q3), object_inertia_bar(model), cs.J_s, cs.G, actuation_matrix(model), 1.0,
                      model.kappa)
    tau = rng.normal(size=(20, 3))
    res = respond(model, Q3, tau, Scenario.IDEAL_WHEELS)
    qdd, a_obj = tau @ maps.q_tau.T, tau @ maps.a_tau.T  # (20)-(21), f_obj = 0
    np.testing.assert_allclose(res.qdd[res.contact], qdd[res.contact], atol=1e-12)
    np.testing.assert_allclose(res.a_obj[res.contact], a_obj[res.contact], atol=1e-12)


def test_torques_of_the_wrong_size_or_not_finite_are_refused():
    from snake_core.validation import ConfigError

    model = build_model(3)
    with pytest.raises(ConfigError, match=r"tau = 'array of shape \(1, 1, 2\)' is invalid: must be \(S, 3\)"):
        respond(model, Q3, np.zeros((1, 2)), Scenario.NO_FRICTION)
    with pytest.raises(ConfigError, match="must be finite"):
        respond(model, Q3, np.array([[np.nan, 0.0, 0.0]]), Scenario.NO_FRICTION)
