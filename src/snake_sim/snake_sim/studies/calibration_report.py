"""The outputs of ``snake-sim calibrate`` (:mod:`snake_sim.studies.calibrate`) in its folder: result.yaml (the fitted
values, their 95 % intervals, identifiable flags and the losses), fitted.yaml (the scenario at the fitted values, its
provenance in its description: ``snake-sim run DIR/fitted.yaml`` repeats it), fit.png (the recording against the
fitted windows, per joint) and report.md."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import yaml

from snake_sim.outputs.output_folder import write_text
from snake_sim.studies.optimise import Problem, write_scenario

if TYPE_CHECKING:
    from snake_sim.studies.calibrate import Calibration, CalibrationOutcome, WindowLoss

#: How a frozen field is reported.
NOT_IDENTIFIABLE = "not identifiable from this recording"


def result(calibration: Calibration, outcome: CalibrationOutcome) -> dict:
    """result.yaml's mapping."""
    fields = {}
    for f in outcome.fitted:
        fields[f.key] = {"value": f.value, "interval_95": None if f.interval is None else list(f.interval),
                         "identifiable": f.identifiable, "search_value": f.start,
                         **({} if f.identifiable else {"note": f"{NOT_IDENTIFIABLE}: frozen at the search's value"})}
    return {"scenario": calibration.scenario, "recording": str(calibration.bag), "window_s": calibration.window,
            "fields": fields, "loss": {"search": outcome.loss_start, "polished": outcome.loss},
            "trials": outcome.trials, "polish_runs": outcome.evaluations,
            "interval_method": "Gauss-Newton: sigma^2 (J^T J)^-1 at the optimum, sigma^2 = sum r^2 / (m - p); "
                               "95 % normal interval (log fields in log-space)"}


def plot_fit(path: Path, loss: WindowLoss, logs: list) -> Path:
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
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def report(calibration: Calibration, outcome: CalibrationOutcome) -> str:
    """report.md's text."""
    lines = [f"# Calibration of {calibration.scenario} to {calibration.bag}", "",
             f"{outcome.trials} trials of the CMA-ES search (trials.csv), then a least-squares polish of "
             f"{outcome.evaluations} runs; windows of {calibration.window:g} s restarted from the recording.", "",
             f"Loss (mean squared error of α and β per joint, normalised by the recorded RMS): "
             f"{outcome.loss_start:.4g} after the search, {outcome.loss:.4g} after the polish.", "",
             "| field | fitted | 95 % interval | search's best |", "|---|---|---|---|"]
    for f in outcome.fitted:
        interval = f"{f.interval[0]:.4g} … {f.interval[1]:.4g}" if f.interval else NOT_IDENTIFIABLE
        lines.append(f"| {f.key} | {f.value:.4g} | {interval} | {f.start:.4g} |")
    lines += ["", "Intervals: Gauss–Newton covariance σ² (JᵀJ)⁻¹ at the optimum, σ² = Σr² / (m − p); the residuals of "
              "a window are correlated in time, so they are lower bounds. A field whose Jacobian column is flat is "
              f"{NOT_IDENTIFIABLE} and frozen at the search's value.", "",
              "`snake-sim run fitted.yaml` runs the scenario at the fitted values. Figures: fit.png (recorded against "
              "fitted, per joint), history.png, importance.png.", ""]
    return "\n".join(lines)


def write_outputs(out: Path, calibration: Calibration, problem: Problem, outcome: CalibrationOutcome,
                  loss: WindowLoss) -> list[Path]:
    """result.yaml, fitted.yaml, report.md and fit.png in ``out``."""
    params = {f.key: f.value for f in outcome.fitted}
    data = result(calibration, outcome)
    written = [write_text(out / "result.yaml", yaml.safe_dump(data, sort_keys=False, allow_unicode=True))]
    written.append(write_scenario(out / "fitted.yaml", problem, params, "fitted",
                                  f"snake-sim calibrate to {calibration.bag}: loss {outcome.loss:.4g}; "
                                  + ", ".join(f"{k} = {v!r}" for k, v in params.items())))
    written.append(write_text(out / "report.md", report(calibration, outcome)))
    _, logs = loss.evaluate_at(problem, params)
    written.append(plot_fit(out / "fit.png", loss, logs))
    return written
