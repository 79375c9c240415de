"""The parametric bootstrap of ``snake-sim calibrate`` (:mod:`snake_studies.calibrate`): intervals that correct the
bias the recording's noisy restarts give the fit.

Why: every window of the loss restarts from the recording's state, and that state is read through noisy, quantised
encoders (its rates differenced from them): the fit's inputs have errors, not only its outputs ("errors in
variables"), and the least-squares optimum θ̂ is biased by them — on the contact model by about the profile
interval's width, so that the profile interval (:mod:`snake_studies.calibration_fit`), centred on θ̂, misses the
truth more often than its 5 %. Neither a smoothed restart state nor a burn-in of the windows removed that bias.

The method (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13–14; the "basic" interval, Davison &
Hinkley 1997 §5.2): B synthetic recordings are made at the fitted values θ̂ — the suite's own run of the scenario
(its gait and controller) from the recording's first state over the recording's span, through the engine the
windows restart (:meth:`snake_studies.calibrate.WindowLoss.synthetic`), sampled at the scenario's ``sim.log_rate``,
α and β read by the recording's own encoders (:class:`Encoders`: Gaussian noise, then the quantum), α̇ (the
simulator's, without noise) where the recording has it and /tf's base pose where it has it. Each is calibrated
again the same way — its windows restarted from ITS noisy states — from θ̂, with no global search, by one
Gauss–Newton step on its own residuals: θ*_b = θ̂ − J_b⁺ r_b(θ̂), J_b the forward-difference Jacobian of r_b at θ̂
(1 + p runs of the windows for p fields). The replicate's own J_b, not the fit's J: the bias of errors in variables
is the correlation of J_b with r_b (the restart's noise is in both), which a step with the fit's J does not see (on a
linear model, where J_b's step is the exact least-squares refit, the fit's J saw almost none of the bias).
The spread of θ*_b about θ̂ stands for that of θ̂ about the truth, bias included: the 95 % interval is
[2θ̂ − q_0.975(θ*), 2θ̂ − q_0.025(θ*)] (quantiles over the replicates; in the box's normalised units, log-space for
``--log`` fields, cut to the box), and the bias is θ̄* − θ̂. Replicates are tasks of the Dask sweep engine
(``--workers``, ``--scheduler``), each from its own random stream (the seed and the replicate's index).

The encoders (:meth:`Encoders.estimate`), per signal (α, β) over all joints: the quantum is the smallest step
between a joint's distinct recorded values when every value is a whole number of such steps from the joint's first
(none otherwise); the noise comes from the recording's high-frequency content: the fourth differences Δ⁴x of a
smooth signal sampled at 50 Hz or more are its noise's (variance 70 σ_t² for white noise of variance σ_t²), σ_t²
holds the noise and the rounding (q²/12), and σ² = σ_t² − q²/12. Motion faster than that adds to σ_t², so each
signal's σ bounds the noise from above, and α's springs can move that fast (MuJoCo's α is far rougher than its
noise): the encoders are taken alike (002 Table 3.2: the same 12-bit encoders on α and β), with the smaller of the
two signals' σ. Not from the fit's residuals: they hold the restarts' errors too, which the bootstrap reproduces,
and would count them twice.

Coverage is measured on the suite's own recordings at known values (docs/studies.md, "Coverage"): the pedal-wave
run of 3 s read with 002's 12-bit quantisation and noise, one recording per noise seed, each fitted by a polish from
by polishes from the best distinct points of a coarse grid (as the command does after its search), then its
profile and bootstrap intervals checked against the truth, per field. The bootstrap's holds the truth more often than
the profile's; it still misses where the fit ended in another dip of the contact model's loss, near which the
replicates scatter less than the fit does at the truth (the basic interval takes the two spreads alike), and it does
not see a restart error its replicates share with the fit (a state the recording does not hold, as MuJoCo's base
rates). The stated interval is therefore the hull of both
(:func:`snake_studies.calibration_report.stated_interval`).

A recording through the CAN bridge is refused: its replicates would have to be re-recorded through the emulated
modules and the bridge, not through the simulator.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from snake_core.validation import ConfigError, integer
from snake_studies.calibration_fit import CONFIDENCE, Residuals, from_unit, jacobian, to_unit, value_of
from snake_studies.sweep import engine
from snake_studies.sweep.cells import Cell, Range

if TYPE_CHECKING:
    from snake_studies.calibrate import CalibrationProblem, Recording, WindowLoss

#: Variance of the fourth difference of white noise of unit variance: Σ C(4, k)² = C(8, 4).
FOURTH_DIFFERENCE_GAIN = 70.0
#: Two recorded values are a whole number of quanta apart within this fraction of a quantum.
QUANTUM_TOLERANCE = 1e-3
#: The signals the encoders read.
SIGNALS = ("alpha", "beta")


@dataclass(frozen=True)
class Encoders:
    """How α and β are read: Gaussian noise of σ added to the true angle, then rounded to a quantum q (0: none);
    (α's, β's) each [rad]."""

    noise: tuple[float, float]
    quantum: tuple[float, float] = (0.0, 0.0)

    def read(self, x: np.ndarray, signal: str, rng: np.random.Generator) -> np.ndarray:
        """The reading of the true angles ``x`` of ``signal`` (``alpha`` or ``beta``)."""
        i = SIGNALS.index(signal)
        noisy = x + rng.normal(0.0, self.noise[i], x.shape)
        q = self.quantum[i]
        return np.round(noisy / q) * q if q > 0.0 else noisy

    def record(self, rec: Recording, rng: np.random.Generator) -> Recording:
        """``rec`` (true angles) as these encoders read it."""
        return dataclasses.replace(rec, **{s: self.read(getattr(rec, s), s, rng) for s in SIGNALS})

    @classmethod
    def estimate(cls, rec: Recording) -> Encoders:
        """The encoders of a recording (module docstring): each signal's quantum, the smaller noise of the two."""
        noise, quanta = [], []
        for s in SIGNALS:
            x = getattr(rec, s)
            q = quantum(x)
            d4 = np.diff(x, 4, axis=0)
            total = float(np.mean(d4 ** 2)) / FOURTH_DIFFERENCE_GAIN if d4.size else 0.0
            noise.append(math.sqrt(max(total - q * q / 12.0, 0.0)))
            quanta.append(q)
        sigma = min(noise)
        return cls((sigma, sigma), (quanta[0], quanta[1]))


def quantum(x: np.ndarray) -> float:
    """The quantum of the recorded values ``x`` (T, J) (module docstring; 0: not quantised)."""
    steps = [np.diff(np.unique(col)) for col in x.T]
    positive = np.concatenate([s[s > 0.0] for s in steps])
    if positive.size == 0:
        return 0.0
    q = float(positive.min())
    for col in x.T:
        k = (col - col[0]) / q
        if np.max(np.abs(k - np.round(k))) > QUANTUM_TOLERANCE:
            return 0.0
    return q


@dataclass(frozen=True)
class Replicate:
    """The measure of one replicate (:data:`snake_studies.sweep.engine.Measure`; its cell's seed is its index): a
    synthetic recording at the fitted values and one Gauss–Newton step from them on its own residuals; the summary
    holds the replicate's values in the box's normalised units, keyed by field."""

    loss: WindowLoss
    problem: CalibrationProblem
    fitted: dict[str, float]  # θ̂, every field of the box
    free: tuple[int, ...]  # the identifiable fields' indices in the box
    encoders: Encoders
    seed: int

    def residuals(self, cell: Cell) -> Residuals:
        """r of the replicate's synthetic recording, a function of a point of the box."""
        rng = np.random.default_rng([self.seed, int(cell.seed or 0)])
        replicate = dataclasses.replace(self.loss,
                                        recording=self.loss.synthetic(self.problem, self.fitted, self.encoders, rng))
        return Residuals(self.problem.space, lambda params: replicate.evaluate_at(self.problem, params)[0])

    def start(self) -> np.ndarray:
        """θ̂ in the box's normalised units."""
        return np.array([to_unit(rg, self.fitted[rg.key]) for rg in self.problem.space])

    def __call__(self, cell: Cell, out: Path | None = None) -> dict[str, Any]:
        res, u, free = self.residuals(cell), self.start(), list(self.free)
        r = res(u)
        u[free] -= np.linalg.lstsq(jacobian(res, u, r, free)[:, free], r, rcond=None)[0]
        return {"status": "ok", **{self.problem.space[i].key: float(u[i]) for i in free}}


@dataclass(frozen=True)
class BootstrapInterval:
    """One field's bootstrap: its 95 % basic interval (cut to the box) and bias θ̄* − θ̂, in the field's units."""

    interval: tuple[float, float]
    bias: float


@dataclass(frozen=True)
class Bootstrap:
    replicates: int  # asked
    failed: int  # replicates without a value (a run that raised)
    seed: int
    encoders: Encoders
    fields: dict[str, BootstrapInterval]


def basic_interval(rg: Range, u_hat: float, u_star: np.ndarray) -> BootstrapInterval:
    """The basic interval and the bias of a field fitted at ``u_hat`` whose replicates are ``u_star`` (normalised)."""
    a = 1.0 - CONFIDENCE
    lo, hi = 2.0 * u_hat - np.quantile(u_star, 1.0 - a / 2.0), 2.0 * u_hat - np.quantile(u_star, a / 2.0)
    return BootstrapInterval((from_unit(rg, lo), from_unit(rg, hi)),
                             float(np.mean([value_of(rg, x) for x in u_star])) - value_of(rg, u_hat))


def bootstrap(loss: WindowLoss, problem: CalibrationProblem, fitted: dict[str, float], free: Sequence[int],
              replicates: int, workers: int | None = None, scheduler: str | None = None, seed: int | None = None,
              progress: bool = True) -> Bootstrap:
    """The basic bootstrap intervals of the ``free`` fields fitted at ``fitted`` (module docstring); ``seed`` None: a
    new one (reported)."""
    integer(replicates, "--bootstrap", low=2)
    encoders = Encoders.estimate(loss.recording)
    seed = int(np.random.SeedSequence(seed).entropy)
    measure = Replicate(loss, problem, dict(fitted), tuple(free), encoders, seed)
    cells = [Cell(problem.scenario, problem.sets, seed=k) for k in range(replicates)]
    with engine.connect(workers, scheduler) as client:
        rows = engine.run(cells, client, measure, progress=progress)
    ok = [row for row in rows if row["status"] == "ok"]
    fields = {}
    for i in free:
        rg = problem.space[i]
        if len(ok) >= 2:
            fields[rg.key] = basic_interval(rg, to_unit(rg, fitted[rg.key]), np.array([row[rg.key] for row in ok]))
    return Bootstrap(replicates, replicates - len(ok), seed, encoders, fields)


def check_recording(rec: Recording, replicates: int, bridge_topic: str) -> None:
    """ConfigError for ``--bootstrap`` below 0, or above 0 on a recording through the CAN bridge (module
    docstring)."""
    integer(replicates, "--bootstrap", low=0)
    if replicates == 1:
        raise ConfigError("--bootstrap", replicates, "needs 2 replicates at least (0: no bootstrap)")
    if replicates and rec.topic == bridge_topic:
        raise ConfigError("--bootstrap", replicates, "re-records the recording through the simulator, not through "
                          "the modules and the CAN bridge this one came through: use --bootstrap 0")
