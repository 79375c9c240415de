"""001 (26)-(31): invariance of the motion norms, mass scaling, slippage ratio; bad input."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from snake_core.pushing import PushingModel, Scenario, build_model
from snake_core.pushing.constraints import constraint_set, object_inertia_bar
from snake_core.pushing.kinematics import actuation_matrix, mass_matrix
from snake_core.pushing.maps import (
    input_maps,
    max_over_input_region,
    max_ratio,
    slippage_ratio,
)
from snake_core.pushing.model import model_table
from snake_core.validation import ConfigError


def matrices(model: PushingModel, q: np.ndarray, scenario: Scenario):
    cs = constraint_set(model, q, scenario)
    return mass_matrix(model, q) / model.link_mass, object_inertia_bar(model), cs.J_s, cs.G, actuation_matrix(model)


def configuration(rng: np.random.Generator, n_joints: int) -> np.ndarray:
    return np.concatenate((rng.uniform(-1, 1, 3), rng.uniform(-2.3, 2.3, n_joints)))


def scalars(m_bar, i_bar, j_s, g, b, tau, f_obj, model):
    maps = input_maps(m_bar, i_bar, j_s, g, b, model.link_mass, model.kappa)
    qdd_sq = tau @ maps.Xi_tau @ tau + f_obj @ maps.Xi_f @ f_obj + tau @ maps.Xi_tau_f @ f_obj  # (26)
    a_sq = tau @ maps.Omega_tau @ tau + f_obj @ maps.Omega_f @ f_obj + tau @ maps.Omega_tau_f @ f_obj  # (27)
    qdd = maps.q_tau @ tau + maps.q_f @ f_obj  # (20)
    return dict(qdd_sq=qdd_sq, a_sq=a_sq, sr=slippage_ratio(a_sq, qdd_sq),
                a_max=max_over_input_region(maps.Omega_tau, maps.W)[0],
                sr_max=max_ratio(maps.Omega_tau, maps.Omega_tau + maps.Xi_tau)[0],
                lam_max=max_over_input_region(maps.Lambda_tau, maps.W)[0], euclid=qdd @ qdd)


@pytest.mark.parametrize("scenario", [Scenario.NO_FRICTION, Scenario.IDEAL_WHEELS])
@pytest.mark.parametrize("n_joints", [2, 3, 4])
def test_norms_are_invariant_to_a_change_of_coordinates(scenario, n_joints, rng):
    """001 §"Mathematical background": the lengths must not depend on the coordinates chosen.

    Re-parameterise (i) the snake's base coordinates, q' = T q with T = [[T_bb, T_bφ], [0, 1]]
    (another base point, link or orientation: B is unchanged), (ii) the object's velocity
    coordinates υ' = T_o υ (another reference point), (iii) the input space τ' = S τ (other
    actuator coordinates, B' = B S⁻¹). The same physical input must give the same norms, sr and
    best values over the input region, while the Euclidean q̈ᵀq̈ changes.
    """
    model = build_model(n_joints, fields={"object_offset": (0.07, 0.03)})  # off-centre: the object rotates
    q = configuration(rng, n_joints)
    m_bar, i_bar, j_s, g, b = matrices(model, q, scenario)
    tau = rng.normal(size=n_joints) * 0.05
    f_obj = rng.normal(size=3) * 0.2
    ref = scalars(m_bar, i_bar, j_s, g, b, tau, f_obj, model)

    t = np.eye(model.n_s)
    t[:3, :] = rng.normal(size=(3, model.n_s))
    t[:3, :3] += 3.0 * np.eye(3)  # invertible base block
    t_inv = np.linalg.inv(t)
    t_o = rng.normal(size=(3, 3)) + 3.0 * np.eye(3)
    t_o_inv = np.linalg.inv(t_o)
    s = rng.normal(size=(n_joints, n_joints)) + 3.0 * np.eye(n_joints)
    # q̇' = T q̇: J' = J T⁻¹, M' = T⁻ᵀ M T⁻¹, generalised forces f' = T⁻ᵀ f (so B' = T⁻ᵀ B = B);
    # υ' = T_o υ: G'ᵀ = Gᵀ T_o⁻¹, I' = T_o⁻ᵀ I T_o⁻¹, wrench f_obj' = T_o⁻ᵀ f_obj; τ' = S τ: B' = B S⁻¹
    b_new = t_inv.T @ b @ np.linalg.inv(s)
    np.testing.assert_allclose(t_inv.T @ b, b, atol=1e-12)
    new = scalars(t_inv.T @ m_bar @ t_inv, t_o_inv.T @ i_bar @ t_o_inv, j_s @ t_inv, t_o_inv.T @ g, b_new,
                  s @ tau, t_o_inv.T @ f_obj, model)
    for key in ("qdd_sq", "a_sq", "sr", "a_max", "lam_max"):
        assert new[key] == pytest.approx(ref[key], rel=1e-7), key
    # the best sr is a generalised eigenvalue of (Ω_τ, Ω_τ + Ξ_τ), whose small eigenvalues (down to 1e-6 of
    # the largest in Scenario 3) amplify rounding: over 400 random draws it agrees to 5e-6
    assert new["sr_max"] == pytest.approx(ref["sr_max"], rel=1e-5)
    assert abs(new["euclid"] / ref["euclid"] - 1.0) > 1e-3  # the naive length is not invariant


def test_norms_scale_as_one_over_m_and_one_over_kappa_m(rng):
    """001 after (29): Ξ_τ ∝ 1/m and Ω_τ ∝ 1/(κm) for fixed unit-mass inertias and κ."""
    q = configuration(rng, 3)
    base = build_model(3)
    heavy = build_model(3, fields={"link_mass": 2.5, "link_inertia": base.link_inertia * 2.5})
    m1 = input_maps(*matrices(base, q, Scenario.IDEAL_WHEELS), base.link_mass, base.kappa)
    m2 = input_maps(*matrices(heavy, q, Scenario.IDEAL_WHEELS), heavy.link_mass, heavy.kappa)
    np.testing.assert_allclose(m2.Xi_tau, m1.Xi_tau / 2.5, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m2.Omega_tau, m1.Omega_tau / 2.5, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m2.lam_tau, m1.lam_tau, rtol=1e-9, atol=1e-12)  # λ* does not depend on m


@pytest.mark.parametrize("scenario", [Scenario.NO_FRICTION, Scenario.IDEAL_WHEELS])
def test_slippage_ratio_is_bounded_and_heavier_objects_move_less(scenario, rng):
    q = configuration(rng, 3)
    tau = rng.normal(size=(200, 3))
    prev_best = np.inf
    bests = []
    for kappa in (1.0, 10.0, 100.0, 1e4):
        model = build_model(3, fields={"kappa": kappa})
        maps = input_maps(*matrices(model, q, scenario), model.link_mass, kappa)
        qdd_sq = np.einsum("ki,ij,kj->k", tau, maps.Xi_tau, tau)  # (26), f_obj = 0
        a_sq = np.einsum("ki,ij,kj->k", tau, maps.Omega_tau, tau)  # (27)
        sr = slippage_ratio(a_sq, qdd_sq)
        assert np.all((sr >= 0.0) & (sr <= 1.0))
        best = max_over_input_region(maps.Omega_tau, maps.W)[0]
        assert best < prev_best  # κ → ∞ is an immovable support: ‖a_obj‖² → 0 (seed001 claim 22)
        prev_best = best
        bests.append(best)
    # the contact force tends to a finite limit, so ‖a_obj‖² = f²/(κm) falls as 1/κ
    assert bests[-1] * 1e4 == pytest.approx(bests[-2] * 100.0, rel=0.1)


def test_max_ratio_handles_inputs_that_move_nothing():
    """Scenario 3 can react an input fully (Ω + Ξ singular): those inputs are not sr = 0/0 maxima."""
    n = np.diag([0.0, 1.0, 0.0])
    d = np.diag([0.0, 4.0, 1.0])
    value, tau = max_ratio(n, d)
    assert value == pytest.approx(0.25)
    assert abs(tau[1]) > 0.99 * np.linalg.norm(tau)
    assert np.isnan(slippage_ratio(0.0, 0.0))


@pytest.mark.parametrize(("field", "value", "message"), [
    ("kappa", 0.0, r"^kappa = 0.0 is invalid: must be > 0 \(001 \(6\), Fig. 4\)$"),
    ("kappa", -5.0, r"^kappa = -5.0 is invalid: must be > 0 \(001 \(6\), Fig. 4\)$"),
    ("link_mass", -1.0, r"^link_mass = -1.0 is invalid: must be > 0 \(001 Table 1\)$"),
    ("contact_link", 7, r"^contact_link = 7 is invalid: must be an integer in \[1, 4\] \(001 case study 1\)$"),
    ("contact_side", 0, r"^contact_side = 0 is invalid: must be \+1 \(left\) or -1 \(right\)$"),
    ("contact_side", 2, r"^contact_side = 2 is invalid: must be an integer in \[-1, 1\]$"),
    ("mu_s", -0.1, r"^mu_s = -0.1 is invalid: must be >= 0 \(001 Table 1\)$"),
    ("object_offset", [0.0, 0.01], r"^object_offset\[0\] = 0.0 is invalid: must be > 0$"),
    ("object_offset", [0.05], r"^object_offset = \[0.05\] is invalid: must be a list of 2 numbers$"),
])
def test_bad_parameters_are_refused_with_one_clear_message(field, value, message):
    with pytest.raises(ConfigError, match=message):
        build_model(3, fields={field: value}, path="")


def test_model_from_mapping_names_the_path_and_refuses_typos():
    assert build_model(2, fields={"kappa": 50}).kappa == 50.0
    with pytest.raises(ConfigError, match=r"pushing\.kappa = -1 is invalid"):
        build_model(2, fields={"kappa": -1})
    with pytest.raises(ConfigError, match=r"pushing\.kapa.*unknown field"):
        build_model(2, fields={"kapa": 5})


def test_the_docs_table_of_the_model_fields_is_the_specs():
    """A changed default, range, unit or source that is not in docs/simulator.md fails here (paste the function's
    output between the markers)."""
    text = (Path(__file__).resolve().parents[3] / "docs/simulator.md").read_text(encoding="utf-8")
    (printed,) = re.findall(r"<!-- pushing model fields: generated by snake_core.pushing.model.model_table\(\) -->\n"
                            r"(.*?)\n<!-- end of the generated pushing model fields -->", text, re.S)
    assert printed == model_table()
