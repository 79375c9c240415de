"""The outputs of ``snake-sim calibrate`` (:mod:`snake_studies.calibrate`) in its folder: result.yaml (the fitted
values, their stated 95 % interval — the hull of the profile's and the bootstrap's where ``--bootstrap`` ran, else the
profile's — with the profile,
bootstrap and Gauss–Newton intervals beside it, the bootstrap's bias, identifiable flags, the restarts and the
losses), fitted.yaml
(the scenario at the fitted values, its provenance in its description: ``snake-sim run DIR/fitted.yaml`` repeats
it), fit.png (the recording against the fitted windows: α and β per joint), loss.png (the loss against each field:
every trial of the search, the profile, the interval), pairs.png (the near-best trials' values pairwise, with their
correlation coefficients) and report.md."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import yaml
from matplotlib.figure import Figure

from snake_sim.outputs.output_folder import write_text
from snake_studies.calibration_bootstrap import SIGNALS, Bootstrap
from snake_studies.calibration_fit import CONFIDENCE, FitResult
from snake_studies.optimise import Problem, write_scenario

if TYPE_CHECKING:
    from snake_studies.calibrate import Calibration, CalibrationOutcome, WindowLoss

#: How a frozen field is reported.
NOT_IDENTIFIABLE = "not identifiable from this recording"
#: The near-best trials of pairs.png: this fraction of the search's trials with a loss, the best ones (at least
#: :data:`NEAR_BEST_MIN`).
NEAR_BEST = 0.25
NEAR_BEST_MIN = 5
#: How the intervals are obtained, as result.yaml and report.md state it.
METHOD = ("profile of the loss (the other fields re-polished at each point of a grid); the interval is where the "
          "profiled loss rises by q^2 sigma_i^2 over its least, q^2 the 0.95 quantile of F(1, K - 1) for K windows, "
          "sigma_i^2 the residuals' scale corrected for their correlation in time: the cluster-robust (sandwich) "
          "covariance of least squares with the windows as independent blocks")
#: How the bootstrap's intervals are obtained, as result.yaml and report.md state it.
BOOTSTRAP_METHOD = ("parametric bootstrap, basic interval: synthetic recordings of the scenario at the fitted values "
                    "from the recording's first state, alpha and beta read by the recording's encoders (noise and "
                    "quantum estimated from its fourth differences), each calibrated again from its own noisy "
                    "restarts by one Gauss-Newton step from the fitted values with its own Jacobian; interval "
                    "[2 theta - q_0.975(theta*), 2 theta - q_0.025(theta*)], bias mean(theta*) - theta")
#: Why the stated interval is the hull of the profile's and the bootstrap's where the bootstrap ran.
STATED = ("the hull of the profile's and the bootstrap's: each misses the truth for its own reason. The windows "
          "restart from the recording's noisy states, which biases the fit (errors in variables): the profile "
          "interval is centred on the biased value, the bootstrap's corrects it. The bootstrap reproduces only the "
          "restart errors that come from the encoders' noise (not a state the recording does not hold, such as a "
          "3-D base's angular rate, nor the fit ending in another dip of a contact model's loss), where the profile's "
          "width holds them. The hull holds the truth whenever either does")


def stated_interval(profile: tuple[float, float] | None, bootstrap: tuple[float, float] | None
                    ) -> tuple[tuple[float, float] | None, str]:
    """The stated 95 % interval of a field and how it was made: the hull of the profile and bootstrap intervals
    (:data:`STATED`), the profile's alone without a bootstrap."""
    if bootstrap is None or profile is None:
        return (profile, "profile") if bootstrap is None else (bootstrap, "bootstrap")
    return (min(profile[0], bootstrap[0]), max(profile[1], bootstrap[1])), "hull of profile and bootstrap"


def near_best(trials: list[tuple[dict[str, float], float]]) -> list[tuple[dict[str, float], float]]:
    """The best :data:`NEAR_BEST` of ``trials`` (at least :data:`NEAR_BEST_MIN`, at most all)."""
    n = max(NEAR_BEST_MIN, math.ceil(NEAR_BEST * len(trials)))
    return sorted(trials, key=lambda t: t[1])[:n]


def correlations(trials: list[tuple[dict[str, float], float]], keys: list[str]) -> dict[str, float]:
    """Pearson's r of every pair of ``keys`` over the near-best trials, keyed ``a ~ b`` (NaN: a constant field)."""
    best = near_best(trials)
    out = {}
    for a_i, a in enumerate(keys):
        for b in keys[a_i + 1:]:
            x, y = (np.array([t[0][k] for t in best]) for k in (a, b))
            out[f"{a} ~ {b}"] = float(np.corrcoef(x, y)[0, 1]) if len(best) > 2 and x.std() and y.std() else math.nan
    return out


def _listed(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [float(v) for v in interval]


def result(calibration: Calibration, outcome: CalibrationOutcome,
           trials: list[tuple[dict[str, float], float]]) -> dict:
    """result.yaml's mapping."""
    res, boot = outcome.fit, outcome.bootstrap
    fields = {}
    for f in outcome.fitted:
        b = None if boot is None else boot.fields.get(f.key)
        stated, method = stated_interval(f.interval, None if b is None else b.interval)
        fields[f.key] = {"value": f.value, "interval_95": _listed(stated), "interval_95_method": method,
                         "identifiable": f.identifiable, "search_value": f.start,
                         "interval_95_profile": _listed(f.interval),
                         **({} if b is None else {"interval_95_bootstrap": _listed(b.interval),
                                                  "bootstrap_bias": b.bias}),
                         "interval_95_gauss_newton": _listed(f.gauss_newton),
                         "effective_samples": f.effective_samples,
                         **({} if f.identifiable else {"note": f"{NOT_IDENTIFIABLE}: frozen"})}
    bootstrap = None if boot is None else {
        "replicates": boot.replicates, "failed": boot.failed, "seed": boot.seed,
        "encoder_noise_rad": dict(zip(SIGNALS, boot.encoders.noise, strict=True)),
        "encoder_quantum_rad": dict(zip(SIGNALS, boot.encoders.quantum, strict=True)),
        "method": BOOTSTRAP_METHOD, "stated": STATED}
    return {"scenario": calibration.scenario, "recording": str(calibration.bag), "window_s": calibration.window,
            "windows": res.windows, "fields": fields, "loss": {"search": outcome.loss_start, "polished": outcome.loss},
            "trials": outcome.trials, "runs_after_search": outcome.evaluations,
            "restarts": [{"start": r.start, "start_loss": r.start_loss, "end": r.end, "loss": r.loss,
                          "agrees": r.agrees} for r in res.restarts],
            "restarts_agree": all(r.agrees for r in res.restarts),
            "near_best_correlation": correlations(trials, [f.key for f in outcome.fitted]),
            "interval_method": METHOD, "threshold_quantile": res.quantile, "bootstrap": bootstrap}


def save(fig: Figure, path: Path) -> Path:
    """``fig`` written to ``path`` and closed."""
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def fit_figure(loss: WindowLoss, logs: list) -> Figure:
    """fit.png: per joint, the recorded α and β and the fitted windows' runs."""
    rec = loss.recording
    n = rec.n_joints
    fig, axes = plt.subplots(n, 1, figsize=(8, 1.6 * n + 0.6), sharex=True, squeeze=False)
    for j, ax in enumerate(axes[:, 0]):
        for signal, colour, name in (("alpha", "C0", "α"), ("beta", "C1", "β")):
            ax.plot(rec.t, np.degrees(getattr(rec, signal)[:, j]), color=colour, lw=3.0, alpha=0.35,
                    label=f"recorded {name}")
            for k, log in enumerate(logs):
                ax.plot(log.t, np.degrees(getattr(log, signal)[:, j]), color=colour, lw=1.0, ls="--",
                        label=f"fitted {name}" if k == 0 else None)
        ax.set_ylabel(f"joint {j + 1} [°]")
    axes[0, 0].legend(loc="upper right", ncol=4, fontsize=7)
    axes[-1, 0].set_xlabel("t [s] (each window restarted from the recording)")
    fig.tight_layout()
    return fig


def loss_figure(res: FitResult, trials: list[tuple[dict[str, float], float]], boot: Bootstrap | None = None
                ) -> Figure:
    """loss.png: per field, the loss of every trial of the search (points), the profile (line), the fitted value and
    the 95 % profile interval (band), and the bootstrap's (band) where ``boot`` has it."""
    n = len(res.fitted)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n + 0.6, 3.4), squeeze=False)
    for f, ax in zip(res.fitted, axes[0], strict=True):
        ax.scatter([t[0][f.key] for t in trials], [t[1] for t in trials], s=10, color="0.55", label="trials")
        if f.profile is not None:
            ax.plot(f.profile.values, f.profile.loss, "o-", color="C0", ms=3, label="profile")
            ax.axhline(f.profile.threshold, color="C0", lw=0.8, ls=":", label="threshold")
        if f.interval is not None:
            ax.axvspan(*f.interval, color="C2", alpha=0.2, label=f"{CONFIDENCE:.0%} profile interval")
        if boot is not None and f.key in boot.fields:
            ax.axvspan(*boot.fields[f.key].interval, color="C1", alpha=0.2,
                       label=f"{CONFIDENCE:.0%} bootstrap interval")
        ax.axvline(f.value, color="C3", lw=1.0, label="fitted")
        ax.set_yscale("log")
        ax.set_xlabel(f.key + ("" if f.identifiable else f" ({NOT_IDENTIFIABLE})"), fontsize=8)
        ax.set_ylabel("loss")
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def pairs_figure(res: FitResult, trials: list[tuple[dict[str, float], float]]) -> Figure:
    """pairs.png: the near-best trials' values, every pair of fields, Pearson's r in each panel's title."""
    keys = [f.key for f in res.fitted]
    best = near_best(trials)
    r = correlations(trials, keys)
    n = len(keys) - 1
    fig, axes = plt.subplots(n, n, figsize=(3.0 * n + 1.2, 3.0 * n + 0.6), squeeze=False, layout="constrained")
    for row in range(n):
        for col in range(n):
            ax = axes[row, col]
            if col > row:
                ax.axis("off")
                continue
            a, b = keys[col], keys[row + 1]
            sc = ax.scatter([t[0][a] for t in best], [t[0][b] for t in best], c=[t[1] for t in best], s=14,
                            cmap="viridis_r")
            ax.set_title(f"r = {r[f'{a} ~ {b}']:.2f}", fontsize=8)
            ax.set_xlabel(a, fontsize=8)
            ax.set_ylabel(b, fontsize=8)
    fig.colorbar(sc, ax=axes, label="loss", shrink=0.8)
    fig.suptitle(f"the {len(best)} best trials of {len(trials)}", fontsize=9)
    return fig


def report(calibration: Calibration, outcome: CalibrationOutcome, data: dict, figures: list[str]) -> str:
    """report.md's text; ``data`` is result.yaml's mapping."""
    res = outcome.fit
    keys = ", ".join(f.key for f in outcome.fitted)
    lines = [f"# Calibration of {calibration.scenario} to {calibration.bag}", "",
             f"**The question**: which values of {keys} make the scenario's simulated run match the recording?", "",
             "**The method**: the recording cut into "
             f"{res.windows} windows of {calibration.window:g} s, each simulated from the recording's state at its "
             "start with the scenario's gait and controller; the loss is the mean squared error of α and β per joint, "
             f"normalised by the recorded RMS. A CMA-ES search of {outcome.trials} trials (trials.csv), then "
             f"least-squares polishes from its {len(res.restarts)} best distinct trials (the least loss kept), then "
             f"the profile of the loss for each field ({outcome.evaluations} runs after the search).", "",
             f"Loss: {outcome.loss_start:.4g} after the search, {outcome.loss:.4g} after the polish.", "",
             f"| field | fitted | {CONFIDENCE:.0%} interval (stated) | profile interval | bootstrap interval "
             "| bootstrap bias | identifiable | Gauss–Newton interval | search's best |",
             "|---|---|---|---|---|---|---|---|---|"]

    def shown(interval: list[float] | None) -> str:
        return "—" if interval is None else f"{interval[0]:.4g} … {interval[1]:.4g}"

    for f in outcome.fitted:
        row = data["fields"][f.key]
        bias = f"{row['bootstrap_bias']:+.3g}" if "bootstrap_bias" in row else "—"
        ident = "yes" if f.identifiable else f"no: {NOT_IDENTIFIABLE}, frozen"
        lines.append(f"| {f.key} | {f.value:.4g} | {shown(row['interval_95'])} ({row['interval_95_method']}) | "
                     f"{shown(row['interval_95_profile'])} | {shown(row.get('interval_95_bootstrap'))} | {bias} | "
                     f"{ident} | "
                     f"{shown(row['interval_95_gauss_newton'])} | {f.start:.4g} |")
    lines += ["", f"**Intervals**: the profile interval is the {METHOD} (q² = {res.quantile:.3g})."]
    boot = data["bootstrap"]
    if boot is None:
        lines += ["It is the stated interval (no bootstrap: `--bootstrap 0`); it is centred on the fitted value, "
                  "which the windows' restarts from the recording's noisy states bias."]
    else:
        noise, quantum = boot["encoder_noise_rad"], boot["encoder_quantum_rad"]
        lines += [f"The bootstrap interval is the {BOOTSTRAP_METHOD}: {boot['replicates']} replicates "
                  f"({boot['failed']} failed), seed {boot['seed']}; the recording's encoders: noise "
                  f"{noise['alpha']:.3g} rad on α, {noise['beta']:.3g} rad on β, quantum {quantum['alpha']:.3g} rad on "
                  f"α, {quantum['beta']:.3g} rad on β (0: none). The stated interval is {STATED}."]
    lines += ["The Gauss–Newton interval (σ²(JᵀJ)⁻¹, every "
              "residual taken as independent) is shown for comparison only: it is too narrow on a noisy recording. "
              "A field whose profile stays under the threshold across its box is "
              f"{NOT_IDENTIFIABLE} and frozen (a recording that does not excite it).", "",
              "**Restarts**:", "", "| start | its loss | end | loss | agrees |", "|---|---|---|---|---|"]
    for r in res.restarts:
        start = ", ".join(f"{v:.4g}" for v in r.start.values())
        end = ", ".join(f"{v:.4g}" for v in r.end.values())
        lines.append(f"| {start} | {r.start_loss:.4g} | {end} | {r.loss:.4g} | {'yes' if r.agrees else 'no'} |")
    agree = "The restarts agree: every polish ended inside the kept optimum's intervals."
    lines += ["", agree if data["restarts_agree"]
              else "The restarts do NOT agree: a polish ended in another local minimum of the loss (kept: the least "
                   "loss). Read the intervals with care; more trials or a narrower box help.", "",
              "**Figures**:", ""]
    captions = {"fit.png": "the recording against the fitted simulation, α and β per joint",
                "loss.png": "the loss against each field: every trial (points), the profile (line), the profile "
                            "interval (green band) and the bootstrap's (orange band)",
                "pairs.png": "the near-best trials pairwise, with their correlation coefficients r (a strong r: the "
                             "recording tells the pair's combination better than each)"}
    lines += [f"- [{name}]({name}): {captions[name]}" for name in figures]
    lines += ["- history.png, importance.png: the search's history and Optuna's parameter importances", "",
              "**Using the result**: `snake-sim run fitted.yaml` runs the scenario at the fitted values "
              "(fitted.yaml holds every field, its provenance in its description). To keep the values, copy "
              "the fitted fields into a robot or scenario file of your own with this report's provenance (recording, "
              "loss, intervals); the shipped files do not change.", ""]
    return "\n".join(lines)


def write_outputs(out: Path, calibration: Calibration, problem: Problem, outcome: CalibrationOutcome,
                  loss: WindowLoss, trials: list[tuple[dict[str, float], float]]) -> list[Path]:
    """result.yaml, fitted.yaml, report.md, fit.png, loss.png and (two fields or more) pairs.png in ``out``;
    ``trials``: the search's (values, loss)."""
    params = {f.key: f.value for f in outcome.fitted}
    data = result(calibration, outcome, trials)
    written = [write_text(out / "result.yaml", yaml.safe_dump(data, sort_keys=False, allow_unicode=True))]
    written.append(write_scenario(out / "fitted.yaml", problem, params, "fitted",
                                  f"snake-sim calibrate to {calibration.bag}: loss {outcome.loss:.4g}; "
                                  + ", ".join(f"{k} = {v!r}" for k, v in params.items())))
    _, logs = loss.evaluate_at(problem, params)
    figures = [save(fit_figure(loss, logs), out / "fit.png"),
               save(loss_figure(outcome.fit, trials, outcome.bootstrap), out / "loss.png")]
    if len(outcome.fitted) > 1:
        figures.append(save(pairs_figure(outcome.fit, trials), out / "pairs.png"))
    written.append(write_text(out / "report.md", report(calibration, outcome, data, [p.name for p in figures])))
    return [*written, *figures]
