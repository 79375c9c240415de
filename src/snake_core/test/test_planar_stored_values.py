"""Head tracking and manipulability at n = 10 against values stored before the compiled kernels (issue 20
item 5: results unchanged to 1e-9): H, h (19)–(20), the PFL (70) and Lyapunov-like torques, D, R (30)–(31) and
D̃, R̃ (42), without and with a free joint, at one serpenoid posture with viscous and Coulomb friction."""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar.head_tracking import (
    LyapunovGains,
    LyapunovTracker,
    PartialFeedbackLinearisation,
    PFLGains,
    StraightLineReference,
)
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import build_model, compute_terms
from snake_core.robot import load_robot

TOL = 1e-9

# Computed by the numpy implementation of snake_core.planar at commit 0e2e63f. H (19) and h (20) do not
# depend on which joints are free.
TERMS = dict(
    h=[4.024411908043727, 4.280882370169286, 4.429765691400569, 3.905862230342988, 3.293751395342193,
        2.576230654015244, 1.9562629033560501, 1.4367309596299858, 0.9366047114647001, 0.5263280698387482,
        0.2481583797441319, 0.06466873008731983],
    H_row0=[1.8199999999999998, 0.0, 0.3535114688916535, 0.3638811469319339, 0.3601551689985045,
        0.2879582150546391, 0.1768130270976981, 0.0768086233848873, 0.018127163425303943, 0.006599688503671027,
        0.010911314438085108, 0.006387199034593351],
    H_diag=[1.8199999999999998, 1.8199999999999998, 0.7506649973401799, 0.553758132377013, 0.3977225034547362,
        0.2607929668220339, 0.16368714953603747, 0.10110459800578338, 0.054169679775909425, 0.022480103208362738,
        0.006688256981076815, 0.0008752])

STORED = {
    (): dict(
        pfl=[-0.032754851452235674, -0.1187764012394327, -0.1784221448070263, -0.14545699518236008,
            -0.06346325827993529, -0.004736423432044812, -0.006206277657499564, -0.017738783233019934,
            -0.00856692844691691],
        lyapunov=[-0.031241708256113047, -0.11410586389416393, -0.1808119613246748, -0.17592160215041047,
            -0.12804884979673775, -0.08446512230664721, -0.06925096199532253, -0.0503447744882486,
            -0.016553632889573937],
        DR=[7.667145572209282, 0.0470991489012057],
        sigma=[4326.156588456068, 37.920870971551885, 7.667145572209282],
        lam=[1.625098830582565, 0.12854495622187628, 0.0470991489012057]),
    (4,): dict(
        pfl=[-0.03275485145225332, -0.10135058640965156, -0.08177074812468987, 0.0, 0.12017080992508511,
            0.325059812053218, 0.4897339609174485, 0.45406480700727436, 0.19506629188575686],
        lyapunov=[-0.01769793356111138, -0.06244935519172036, -0.06848222917224425, 0.0, 0.09289935988210879,
            0.13531358602823942, 0.0947276911388274, 0.037549878412172416, 0.007054031809493373],
        DR=[5.574127281331734, 0.00044639110758585204],
        sigma=[5908.696178788407, 4022.9178479498246, 34.62469363139514, 5.574127281331734],
        lam=[1.6170441797371062, 0.12937151230838018, 0.056088784786377306, 0.00044639110758585204]),
}


@pytest.fixture(scope="module")
def setting():
    model = build_model(load_robot("ariizumi10")).with_friction(c_y=5.0, mu_x=0.1, mu_y=0.3)
    shape = Serpenoid(9, np.pi / 6, 2.0, 1.5)
    q = np.concatenate(([0.01, -0.02, 0.05], shape.phi(0.4)[0]))
    qd = np.random.default_rng(0).normal(0.0, 0.1, model.dof)
    return model, shape, q, qd, StraightLineReference((0.0, 0.0), np.pi, 0.05, 0.0)(0.4)


def _close(value, stored):
    np.testing.assert_allclose(value, stored, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("free", [(), (4,)])
def test_terms_torques_and_manipulability_match_the_stored_values(setting, free):
    model, shape, q, qd, ref = setting
    stored = STORED[free]
    data = compute_terms(model, model.create_data(), q, qd)
    _close(data.h, TERMS["h"])
    _close(data.H[0], TERMS["H_row0"])
    _close(np.diag(data.H), TERMS["H_diag"])
    _close(PartialFeedbackLinearisation(model, PFLGains.diagonal(9), shape, free).step(0.4, q, qd, ref), stored["pfl"])
    _close(LyapunovTracker(model, LyapunovGains.diagonal(9), shape, free).step(0.4, q, qd, ref), stored["lyapunov"])
    r = ManipulabilityMonitor(model, free_joints=free).evaluate(q)
    _close([r.D, r.R], stored["DR"])
    _close(r.sigma / stored["sigma"][0], np.asarray(stored["sigma"]) / stored["sigma"][0])
    _close(r.lam, stored["lam"])
