"""Gaits and head trackers describe their parameters beside their code: a gait or tracker added in one place (here,
registered by the test) is declared by its node, with its description and range, and run by the runtime."""

from dataclasses import dataclass

import numpy as np
import pytest
import yaml

from snake_core.gaits import GAITS, GaitSpec, make_gait
from snake_core.planar.head_tracking import TrackerSpec
from snake_core.planar.trackers import TRACKERS
from snake_core.registry import Param, merged
from snake_core.validation import ConfigError, number, reject_unknown

OFFSET = Param("offset", 0.1, "rad", "constant joint angle of the test gait", -0.5, 0.5)
DAMPING = Param("D", 0.5, "N·m·s/rad", "joint rate gain of the test tracker", 0.0, 5.0)


@dataclass(frozen=True)
class Constant:
    """The throw-away gait: every joint at ``offset``."""

    n_joints: int
    offset: float

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        return np.full(self.n_joints, self.offset), np.zeros(self.n_joints)


def constant(n_joints, params, source=None):
    reject_unknown(params, ("type", "offset"), "gait", source)
    return Constant(n_joints, number(params.get("offset", OFFSET.default), "gait.offset", source, low=OFFSET.low,
                                     high=OFFSET.high))


@dataclass(frozen=True)
class DampingGains:
    D: float

    @classmethod
    def diagonal(cls, n_joints, **given):
        return cls(float(given.get("D", DAMPING.default)))


class JointDamping:
    """The throw-away tracker: τ = D (φ̇^r − φ̇) (004 order), whatever the head reference."""

    def __init__(self, model, gains, shape, free_joints=()):
        self.gains, self.shape = gains, shape

    def error(self, t, qd):
        return self.shape.phi(t)[1] - qd[3:]

    def step(self, t, q, qd, ref, data=None):
        return self.gains.D * self.error(t, qd)


def damping_power(tracker, t, q, qd, ref):
    e = tracker.error(t, qd)
    return float(tracker.gains.D * e @ e)


@pytest.fixture
def constant_gait(monkeypatch):
    monkeypatch.setitem(GAITS.entries, "constant", GaitSpec("constant", (OFFSET,), constant))


@pytest.fixture
def damping_tracker(monkeypatch):
    spec = TrackerSpec("damping", "joint damping", (DAMPING,), JointDamping, DampingGains,
                       {"damping_power": damping_power})
    monkeypatch.setitem(TRACKERS.entries, "damping", spec)


def test_every_gait_module_registers_itself_with_described_parameters():
    assert set(GAITS.entries) == {"pedal_wave", "serpenoid", "rectilinear"}
    for spec in GAITS.entries.values():
        for p in spec.params:
            assert p.description and (p.low is None or p.high is None or p.low < p.high)
            if p.default is not None:  # the defaults are accepted by the gait itself
                assert p.low <= p.default and (p.high is None or p.default <= p.high)
        if all(p.default is not None for p in spec.params):
            assert make_gait(spec.name, 9, spec.defaults()).n_joints == 9  # 004's 10-link robot


def test_a_parameter_shared_by_gaits_is_declared_once_with_the_widest_range_and_the_first_gaits_default():
    decl = merged({name: spec.params for name, spec in GAITS.entries.items()}, "pedal_wave")
    amplitude, text = decl["amplitude"]
    assert amplitude.default == pytest.approx(np.pi / 6)  # the pedal wave's, 002 §5
    assert amplitude.high == pytest.approx(np.pi / 2)  # the serpenoid's winding angle reaches further
    assert "pedal_wave" in text and "serpenoid" in text
    assert decl["periods"][0].default is None  # not a pedal wave parameter: unset until given
    assert "control_points" not in decl  # not a number: scenarios only


def test_an_unknown_gait_names_the_registered_ones():
    with pytest.raises(ConfigError, match=r"gait.type = 'moonwalk'.*pedal_wave"):
        make_gait("moonwalk", 5, {})


def test_trackers_register_their_gains_with_004s_defaults():
    from snake_core.planar.head_tracking import LyapunovGains, PFLGains

    assert set(TRACKERS.entries) == {"pfl", "lyapunov"}
    pfl = TRACKERS.get("pfl")
    assert {p.name: p.default for p in pfl.params} == {"K_v": 6.0, "K_p": 6.2, "R_v": 0.041, "R_p": 0.079}  # (79)
    assert np.array_equal(PFLGains.diagonal(9).K_p, np.diag([6.2] * 3))
    assert np.array_equal(LyapunovGains.diagonal(4).K_phi, np.diag([10.0, 20.0, 20.0, 20.0]))  # (84)
    with pytest.raises(ConfigError, match=r"controller.K_v = 1.0 is invalid: is not a gain of controller.mode = "
                       "lyapunov"):
        TRACKERS.get("lyapunov").own_gains({"K_v": 1.0})


def test_a_registered_gait_is_declared_by_the_gait_generator_and_published(ros, constant_gait):
    from snake_control.gait_generator import GaitGeneratorNode

    node = ros.make(GaitGeneratorNode, robot="koopaee6", rate=50.0)
    offset = node.describe_parameter("gait.offset")
    assert OFFSET.description in offset.description
    assert node.get_parameter("gait.offset").value is None  # not the starting gait's: unset until given
    result = ros.set_parameters(node, gait__type="constant", gait__offset=-0.3)
    assert all(r.successful for r in result)
    ros.advance(0.1)
    assert ros.messages("/gait/reference")[-1].position.tolist() == [-0.3] * 5
    (refused,) = ros.set_parameters(node, gait__offset=0.7)  # beyond the gait's own range
    assert not refused.successful and "gait.offset = 0.7" in refused.reason


def test_a_registered_tracker_is_declared_by_the_head_tracking_controller(ros, damping_tracker):
    from snake_control.head_tracking_controller import HeadTrackingControllerNode

    node = ros.make(HeadTrackingControllerNode, robot="ariizumi10", controller__mode="damping", controller__D=0.3)
    assert DAMPING.description in node.describe_parameter("controller.D").description
    assert isinstance(node.tracker, JointDamping) and node.tracker.gains.D == 0.3
    with pytest.raises(ConfigError, match=r"controller.K_v = 6.0 is invalid: is not a gain of controller.mode = "
                       "damping"):
        ros.make(HeadTrackingControllerNode, robot="ariizumi10", controller__mode="damping", controller__K_v=6.0)


def test_a_registered_tracker_is_run_by_the_planar_runtime_with_its_series(damping_tracker):
    from snake_sim.core.scenario import scenario_from_dict
    from snake_sim.engines.planar.runtime import build, simulate

    data = {"name": "damping", "model": "planar", "robot": {"name": "ariizumi10", "initial_joint_angle": 0.3},
            "contact": {"c_t": 0.5, "c_n": 0.5, "c_theta": 7.2e-5},
            "gait": {"type": "serpenoid", "amplitude": 1.0, "frequency": 0.18, "periods": 1.0},
            "controller": {"mode": "damping", "D": 0.2, "reference": {"speed": 0.1}}, "sim": {"duration": 0.2}}
    setup = build(scenario_from_dict(yaml.safe_load(yaml.safe_dump(data)), "test"))
    log = simulate(setup)
    assert log.status == "ok"
    # the tracker's own torques, τ = D (α̇_ref − α̇) (suite order), and its series, D ‖α̇_ref − α̇‖²
    error = log.alpha_ref_dot - log.alpha_dot
    assert np.allclose(log.tau, 0.2 * error, atol=1e-12)
    assert np.allclose(log.series["damping_power"], 0.2 * np.sum(error ** 2, axis=1), atol=1e-12)
    assert np.max(np.abs(log.alpha_dot)) > 0.01  # the joints move: the checks above are not 0 = 0
