"""The report of section ``calibration_002``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.calibration_002` alone, and from them the calibrated scenario's text
(``calibrated_text``); nothing here runs a simulation.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from snake_studies.calibrate_table import (
    NOT_IDENTIFIABLE,
    FittedField,
    TableCalibration,
    fitted_patch,
    held_out_errors,
    row_table,
)
from snake_studies.reproduction.experiments.calibration_002 import Fit, Results
from snake_studies.sweep.cells import Range

# Imported for the text, not as settings of the fits: NOT_IDENTIFIABLE is a label, the functions build the text;
# how the fits were made (scenarios, seeds, trials, σ, the rules of loss, acceptance and agreement, the calibrated
# scenario's name) is results.settings.

TITLE = "002's unknowns calibrated in MuJoCo to 002's measured outcomes (Table 5.2, §6.4, §7.4)"


def _field_rows(fit: Fit, defaults: dict[str, float]) -> list[str]:
    lines = ["| field | box | shipped | fitted | accepted range (approximate posterior) | |",
             "|---|---|---|---|---|---|"]
    for f, r in zip(fit.fitted, fit.box, strict=True):
        shipped = defaults.get(f.key, float("nan"))
        lines.append(f"| `{f.key}` | {r.low:g} … {r.high:g}{' (log)' if r.log else ''} | "
                     + ("—" if np.isnan(shipped) else f"{shipped:g}")
                     + f" | {f.value:.3g} | {f.spread[0]:.3g} … {f.spread[1]:.3g} | "
                     + ("identifiable" if f.identifiable else f"**{NOT_IDENTIFIABLE}**") + " |")
    return lines


def _value(fit: Fit, key: str) -> FittedField:
    (f,) = [f for f in fit.fitted if f.key == key]
    return f


def render(r: Results) -> str:
    """The section's Markdown from the stored results alone."""
    flat, climb, st = r.flat, r.climb, r.settings
    errors = held_out_errors(flat.rows)
    mean_cm = 100 * float(np.mean([abs(e) for _, e, _ in errors])) if errors else float("nan")
    mean_rel = 100 * float(np.mean([abs(x) for _, _, x in errors])) if errors else float("nan")
    fitted_err = [abs(f.at_h.speed - f.row.speed.value) for f in flat.rows if not f.row.held_out and f.row.speed]
    face_flat, face = _value(flat, "world.side_friction"), _value(climb, "world.side_friction")
    stands = sum(f.stands for f in (*flat.rows, *climb.rows))
    agree = [f for f in climb.rows if f.stands and f.verdicts[0] == "agrees"]
    short = sum(f.at_h.outcome == "did not reach" for f in climb.rows)
    lines = [f"## {TITLE}", "",
             "`snake-sim calibrate --table` (docs/studies.md) fits 002's unknowns in MuJoCo to 002's measured "
             f"outcomes: the ground μ, the boxes' face μ, the contact softness (solref's time constant) and the scale "
             f"of the motor-side PD gains (4.39) (`robot.motor_gain_scale`). 002 prints no spread of its measurements: "
             f"each speed and time has σ = {100 * st.sigma_fraction:g} % of its value (our choice). The loss is Σ r² "
             f"over the fitted rows (speed, time: (sim − 002)/σ; an outcome other than 002's: {st.mismatch:g}); the "
             f"search is CMA-ES (seed {st.search_seed}), the spread the range of the trials within "
             f"Δloss = {st.accept:g} of the best and the box ends (an approximate posterior, not a confidence "
             f"interval; a field whose accepted values span {100 * st.whole_box:g} % of its box is not identifiable). "
             f"Every row runs again at the fitted values at h and at h/2; *agrees*: within {st.agree:g} σ and 002's "
             "outcome; a verdict counts only where it stands at both steps."
             + (" **fast mode: short runs, numbers not for the docs.**" if r.fast else ""), "",
             f"### Fit 1: Table 5.2's measured speeds ({len(flat.rows) - len(errors)} cells fitted, "
             f"{len(errors)} held out)", "",
             f"`{st.scenario_3d}` (MuJoCo) for {st.flat_duration_s:g} s per cell, the cells fitted chosen before any "
             f"run (the table's corners and centre). {flat.trials} trials, {flat.wall_time_s / 60:.0f} min on the "
             f"shared 2-core machine; loss {flat.loss:.3g}, {flat.accepted} points accepted. `{flat.command}`", "",
             *_field_rows(flat, r.defaults), "", *row_table(flat.rows), "",
             f"- Held-out error (the four cells not fitted, predicted at the fitted values): mean |sim − 002| "
             f"**{mean_cm:.2f} cm/s ({mean_rel:.0f} %)**; on the fitted cells "
             f"{100 * float(np.mean(fitted_err)):.2f} cm/s.",
             "- Face μ on flat ground: " + ("**not identifiable**, as it must be (flat ground has no box faces)"
                                            if not face_flat.identifiable else "**identifiable**: unexpected on flat "
                                            "ground, which has no box faces; read the fit with care")
             + f" (accepted {face_flat.spread[0]:.2g} … {face_flat.spread[1]:.2g}).",
             "", "### Fit 2: the face μ, to 002's outcomes on the robot (§6.4, §7.4)", "",
             f"002's runs on the robot (their `*-3d` scenarios, perturbation seed {st.seed}, {st.climb_duration_s:g} "
             f"s at h = {1000 * st.climb_time_step:g} ms), the ground μ, softness and gain scale fixed at fit 1's "
             "values; the face μ alone fitted. "
             f"{climb.trials} trials, {climb.wall_time_s / 60:.0f} min; loss {climb.loss:.3g}, {climb.accepted} "
             f"points accepted. `{climb.command}`", "",
             *_field_rows(climb, r.defaults), "", *row_table(climb.rows), "",
             f"- {len(agree)} of {len(climb.rows)} of 002's outcomes agree at the fitted face μ = {face.value:.2g} at "
             f"h and h/2; {stands} of {len(flat.rows) + len(climb.rows)} verdicts of both fits stand at h/2.",
             "- Face μ from these outcomes: " + ("identifiable" if face.identifiable else f"**{NOT_IDENTIFIABLE}**")
             + f" (accepted {face.spread[0]:.2g} … {face.spread[1]:.2g}); at the fitted values {short} of "
             f"{len(climb.rows)} runs end before the head reaches the box (*did not reach*), where no face μ acts"
             + ("." if face.identifiable else "; the calibrated scenario leaves the face μ at its base scenario's "
                "value, as it does every field its table does not pin."),
             "", "### Where the fit differs from 002, and why", "", *_differences(r)]
    return "\n".join(lines) + "\n"


def _differences(r: Results) -> list[str]:
    """The fitted values against 002's Table 5.1 and the suite's shipped ones."""
    mu, tc, s = (_value(r.flat, k) for k in ("contact.friction", "contact.solref.0", "robot.motor_gain_scale"))
    face = _value(r.climb, "world.side_friction")
    d = r.defaults

    def where(f: FittedField, shipped: float, what: str) -> str:
        inside = f.spread[0] <= shipped <= f.spread[1]
        return (f"- {what}: fitted {f.value:.3g} (accepted {f.spread[0]:.3g} … {f.spread[1]:.3g}) against "
                f"{shipped:g} shipped: " + (f"{NOT_IDENTIFIABLE}: any value in the box fits as well."
                                            if not f.identifiable else
                                            "the shipped value is inside the accepted range, the table does not "
                                            "tell them apart." if inside else
                                            "the shipped value is outside the accepted range."))

    return [where(mu, d["contact.friction"], "Ground μ (002 Table 5.1: μ_c = 0.6)"),
            where(tc, d["contact.solref.0"], "Contact softness, solref time constant [s] (MuJoCo's default; 002's "
                                             "contact model is a spring–damper of its own)"),
            where(s, d["robot.motor_gain_scale"], "Motor PD gain scale (002 Table 5.1's K_p = 60, K_D = 25: s = 1)"),
            where(face, d["world.side_friction"], "Face μ of the boxes (002 does not print it; the worlds' own)"),
            "- Why they differ: 002's measured speeds are of its robot (the tether, the cable's drag, the modules' "
            "own servo loop) and MuJoCo's contact is not 002's; a fit absorbs those differences into the four "
            "fields it is given, so a fitted value is what makes this model reproduce the table, not a measurement "
            "of 002's robot."]


def calibrated_text(r: Results) -> str:
    """config/scenarios/<calibrated>.yaml (the settings' name): fit 1's scenario with the values the fits identify
    (fit 1's ground μ, softness and gain scale, fit 2's face μ; a field not identifiable from its table keeps the base
    scenario's value and is named as such), its provenance in its comments and description (the shipped scenarios do
    not change)."""
    base, name = r.settings.scenario_3d, r.settings.calibrated
    fields = [*(f for f in r.flat.fitted if f.key != "world.side_friction"), _value(r.climb, "world.side_friction")]
    params = {f.key: f.value for f in fields if f.identifiable}
    frozen = [f.key for f in fields if not f.identifiable]
    calibration = TableCalibration(base, Path("table"), tuple(Range(k, 0.0, 1.0) for k in params))
    values = ", ".join(f"{k} = {v:.4g}" for k, v in params.items())
    data = {"base": base, "name": name,
            "description": f"3-D (MuJoCo): {base} with 002's unknowns calibrated to 002's measured outcomes "
                           f"({values}; docs/reproduction.md)", **fitted_patch(calibration, params)}
    head = [f"# {name}: {base} calibrated in MuJoCo on {r.date} by `snake-sim reproduce --only "
            "calibration_002`", "# (docs/reproduction.md, section \"" + TITLE + "\"):",
            f"#   fit 1, {r.flat.name} (002's measured speeds, five cells): {r.flat.command}",
            f"#   fit 2, {r.climb.name} (002's outcomes on the robot): {r.climb.command}",
            "# Fitted: " + (", ".join(f"{k} (fit {1 if k != 'world.side_friction' else 2})" for k in params) or "none")
            + ". Not identifiable from its table, left at the base scenario's value: "
            + (", ".join(frozen) or "none") + ". The shipped scenarios and robot files are unchanged.", ""]
    return "\n".join(head) + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
