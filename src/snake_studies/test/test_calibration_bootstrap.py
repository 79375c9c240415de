"""The parametric bootstrap of calibrate (snake_studies.calibration_bootstrap): on a model whose restarts from noisy
recorded states bias the fit by a known amount (errors in variables), the bootstrap's basic interval covers the truth
where the profile interval misses it, and its bias has the sign of the fit's; the encoders of a recording are
estimated from it; a recording through the CAN bridge is refused."""

import dataclasses
import math
import sys

import cloudpickle
import numpy as np
import pytest
from distributed import LocalCluster

from snake_core.interface import CAN_BRIDGE_JOINT_STATES
from snake_core.validation import ConfigError
from snake_studies.calibrate import CalibrationProblem, Recording
from snake_studies.calibration_bootstrap import Encoders, bootstrap, check_recording, quantum
from snake_studies.calibration_fit import fit
from snake_studies.calibration_report import stated_interval
from snake_studies.sweep.cells import Range

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module
#: One Dask LocalCluster at a time: the cluster tests run one after the other on one pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")

#: The stub's gain θ, its box, and the recording: K windows of a 0.5 Hz sine at 50 Hz (40 s: the noise estimated from
#: the recording within a few per cent), read with noise σ.
TRUTH, BOX = 1.0, Range("gain", 0.5, 1.5)
SAMPLES, WINDOWS, PERIOD_S = 2000, 10, 0.02
AMPLITUDE, NOISE = 1.0, 0.1
#: The fit's expected bias (attenuation): θ̂ → θ var(x) / (var(x) + σ²), var(x) = A²/2 over whole periods.
BIAS = -TRUTH * NOISE ** 2 / (AMPLITUDE ** 2 / 2 + NOISE ** 2)
SEEDS = range(8)
REPLICATES = 60


def gait(t):
    return AMPLITUDE * np.sin(math.pi * t)


@dataclasses.dataclass(frozen=True)
class LinearStub:
    """WindowLoss's interface on the model β = θ α: each window restarts from the recorded α (noisy) and its residual
    is θ α̃ − β̃; least squares regresses β̃ on α̃, biased towards 0 by α's noise (errors in variables)."""

    recording: Recording

    def evaluate_at(self, problem, params):
        rec = self.recording
        return (params["gain"] * rec.alpha[:, 0] - rec.beta[:, 0]) / math.sqrt(len(rec.t)), []

    def synthetic(self, problem, params, encoders, rng):
        t = self.recording.t
        true = Recording(t, gait(t)[:, None], np.full((len(t), 1), np.nan), params["gain"] * gait(t)[:, None], None)
        return encoders.record(true, rng)


def stub(seed):
    t = PERIOD_S * np.arange(SAMPLES)
    true = Recording(t, gait(t)[:, None], np.full((SAMPLES, 1), np.nan), TRUTH * gait(t)[:, None], None)
    return LinearStub(Encoders((NOISE, NOISE)).record(true, np.random.default_rng(seed)))


@pytest.fixture(scope="module")
def scheduler():
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_the_bootstrap_covers_the_truth_the_restarts_bias_the_fit_away_from(scheduler):
    problem = CalibrationProblem("pedal-wave", (BOX,), "loss")
    profile_hits, bootstrap_hits, stated_hits, errors, biases = 0, 0, 0, [], []
    for seed in SEEDS:
        loss = stub(seed)
        res = fit((BOX,), lambda p, loss=loss: loss.evaluate_at(problem, p)[0], WINDOWS, [({"gain": 1.2}, 0.0)],
                  restarts=1)
        (fitted,) = res.fitted
        boot = bootstrap(loss, problem, {"gain": fitted.value}, res.free, REPLICATES,
                         scheduler=scheduler, seed=seed, progress=False)
        assert boot.failed == 0 and boot.replicates == REPLICATES
        b = boot.fields["gain"]
        profile_hits += fitted.interval[0] <= TRUTH <= fitted.interval[1]
        bootstrap_hits += b.interval[0] <= TRUTH <= b.interval[1]
        (lo, hi), method = stated_interval(fitted.interval, b.interval)
        assert method == "hull of profile and bootstrap" and lo <= min(fitted.interval[0], b.interval[0])
        assert hi >= max(fitted.interval[1], b.interval[1])
        stated_hits += lo <= TRUTH <= hi
        errors.append(fitted.value - TRUTH)
        biases.append(b.bias)
    # the fit is biased as errors in variables say (BIAS), and its profile interval is too narrow to hold the truth
    assert np.mean(errors) == pytest.approx(BIAS, rel=0.3)
    assert profile_hits <= 2
    assert bootstrap_hits >= len(SEEDS) - 2
    assert stated_hits >= bootstrap_hits  # the stated interval, the hull of both, holds the truth where either does
    # the bootstrap sees the bias, with its sign, at the fitted value: θ̂ / θ of the truth's
    assert all(b < 0 for b in biases)
    assert np.mean(biases) == pytest.approx(BIAS * (1 + BIAS), rel=0.3)


def test_the_encoders_of_a_recording_are_its_noise_and_quantum():
    """Each signal's quantum; the noise of the smoother signal (α's springs may move faster than 50 Hz resolves)."""
    t = PERIOD_S * np.arange(SAMPLES)
    rattle = 0.01 * np.sin(0.9 * math.pi / PERIOD_S * t)  # near the sampling's Nyquist frequency
    true = Recording(t, np.stack([gait(t) + rattle, 0.5 * gait(t + 0.3)], axis=1), np.full((SAMPLES, 2), np.nan),
                     np.stack([1.1 * gait(t), 0.4 * gait(t)], axis=1), None)
    q = 2.0 * math.pi / 4096
    read = Encoders((0.002, 0.002), (q, q / 8)).record(true, np.random.default_rng(0))
    est = Encoders.estimate(read)
    assert est.quantum == pytest.approx((q, q / 8), rel=1e-9)
    assert est.noise == pytest.approx((0.002, 0.002), rel=0.1)
    alpha_alone = Encoders.estimate(dataclasses.replace(read, beta=read.alpha))
    assert alpha_alone.noise[0] > 3 * 0.002  # the rattle is no noise: β tells it apart
    assert quantum(true.alpha) == 0.0  # not quantised
    assert Encoders.estimate(true).noise == pytest.approx((0.0, 0.0), abs=1e-4)


def test_a_recording_through_the_can_bridge_refuses_the_bootstrap():
    t = PERIOD_S * np.arange(4)
    rec = Recording(t, np.zeros((4, 1)), np.zeros((4, 1)), np.zeros((4, 1)), None, CAN_BRIDGE_JOINT_STATES)
    with pytest.raises(ConfigError, match="not through the modules and the CAN bridge"):
        check_recording(rec, 4, CAN_BRIDGE_JOINT_STATES)
    check_recording(rec, 0, CAN_BRIDGE_JOINT_STATES)
    check_recording(dataclasses.replace(rec, topic="/joint_states"), 4, CAN_BRIDGE_JOINT_STATES)
    with pytest.raises(ConfigError, match="2 replicates at least"):
        check_recording(rec, 1, CAN_BRIDGE_JOINT_STATES)
