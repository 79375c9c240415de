"""docs/reproduction.md section, the last: 002's claims, one verdict per engine, each traced to the stored results.

Nothing runs here: :func:`assemble` reads the stored results of the sections that test 002 (pedal wave, 002's runs
with their face study, the gain study, the roll-over study) and applies one rule per claim and engine:

* *reproduced*: at 002's own settings every run has 002's outcome at h and at h/2 (for a speed: the section's own
  criterion);
* *explained*: not at 002's settings, but under a reading the suite brackets (the boxes' faces at another μ, another
  gain scale, an asymmetry 002 names) every run has it, and the trace names that reading;
* *inconclusive*: neither, and some run's outcome changes between h and h/2, ends before the robot reaches the box,
  or only some runs have 002's outcome;
* *contradicts*: neither, and every run stands at h/2 with another outcome.

The verdict across engines is the common one where the engines agree, *explained* where each reproduces or
explains, *contradicts* where every engine contradicts, else *inconclusive*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from snake_sim.analysis.step_check import TOLERANCE, compare, relative_change
from snake_studies.climb_3d import claim_verdict
from snake_studies.engines import ENGINES
from snake_studies.reproduction.experiments import gain_scale, pedal_wave, rollover, runs_002
from snake_studies.rollover import ordering_holds

NOT_RUN = "not run"

#: 002's claims on its rows of the runs at 002's settings: (claim, section, the rows' controllers).
ROW_CLAIMS = (
    ("Local stiffness K_d = K/6 climbs the obstacle where position control (K_d = K) fails", "§6.4",
     ("K_d = K (position control)", "local stiffness K_d = K/6")),
    ("The open loop and TSC climb the 36 mm obstacle (simulation)", "§7.3",
     ("open loop", "TSC K_τ = 0", "TSC K_τ = 6")),
    ("TSC climbs the single box, with K_τ = 6 and with K_τ = 0", "§7.4", ("TSC K_τ = 6", "TSC K_τ = 0")),
    ("Local stiffness K_d = K/7 climbs the single box", "§7.4", ("local stiffness K_d = K/7",)),
    ("The open loop rolls over at the single box", "§7.4", ("open loop",)),
    ("TSC K_τ = 6 climbs the two boxes", "§7.4.2", ("TSC K_τ = 6",)),
    ("TSC K_τ = 0 and local stiffness K_d = K/7 roll over on the two boxes", "§7.4.2",
     ("TSC K_τ = 0", "local stiffness K_d = K/7")),
)
#: The gain study's controller of a row of 002's runs, for rows whose claim is a climb.
GAIN_CONTROLLERS = {"local stiffness K_d = K/6": "local stiffness", "local stiffness K_d = K/7": "local stiffness",
                    "TSC K_τ = 0": "TSC K_τ = 0", "TSC K_τ = 6": "TSC K_τ = 6"}


@dataclass(frozen=True)
class Finding:
    verdict: str  # one of VERDICTS, or NOT_RUN
    trace: str  # the stored results it rests on


@dataclass(frozen=True)
class Claim:
    section: str  # 002's section or table
    claim: str
    said_002: str  # 002's words and numbers
    findings: dict[str, Finding]  # by engine
    verdict: str  # across the engines that ran it


@dataclass(frozen=True)
class RunSettings:
    """How the verdicts were made, as the text states it: the engines judged."""

    engines: tuple[str, ...]


def run_settings(fast: bool) -> RunSettings:
    """The settings of a (``fast``) run of the section, stored with its results."""
    return RunSettings(ENGINES)


@dataclass(frozen=True)
class Results:
    fast: bool
    claims: tuple[Claim, ...]
    sources: tuple[str, ...]  # the stored results read
    settings: RunSettings


def plan(fast: bool, earlier: dict[str, Any]) -> dict[str, Any]:
    """Nothing to run: the claims are read from the other sections' stored results."""
    return {}


def overall(findings: Sequence[Finding]) -> str:
    """The verdict across engines (module docstring)."""
    words = [f.verdict for f in findings if f.verdict != NOT_RUN]
    if not words:
        return NOT_RUN
    if len(set(words)) == 1:
        return words[0]
    if set(words) <= {"reproduced", "explained"}:
        return "explained"
    return "inconclusive"


def _word(runs: Sequence[runs_002.Run002], expected: str) -> str:
    return claim_verdict([r.run for r in runs], expected)[0] if runs else NOT_RUN


def _rows_finding(r002: runs_002.Results, gains: gain_scale.Results | None, experiment: str,
                  controllers: Sequence[str], engine: str) -> Finding:
    """A claim on rows of 002's runs in one engine: at 002's settings, then the face study, then the gain study."""
    rows = [r for r in runs_002.rows_002() if r.experiment == experiment and r.controller in controllers]
    words = {row.controller: _word(runs_002.select(r002, experiment, row.controller, engine),
                                   runs_002.expected_outcome(row, engine)) for row in rows}
    trace = "002's runs: " + ", ".join(f"{c} {w}" for c, w in words.items())
    if NOT_RUN in words.values():
        return Finding(NOT_RUN, trace)
    if all(w == "holds" for w in words.values()):
        return Finding("reproduced", trace)
    for mu in r002.face_frictions:
        faces = [_word(runs_002.select(r002, experiment, row.controller, engine, face=mu),
                       runs_002.expected_outcome(row, engine)) for row in rows]
        if all(w == "holds" for w in faces):
            return Finding("explained", f"{trace}; every one holds with the boxes' faces at μ = {mu:g} (face study)")
    readings = _gain_readings(gains, experiment, rows, engine)
    if readings:
        return Finding("explained", f"{trace}; climbs under the gain study's {readings}")
    if any(w in ("inconclusive", "did not reach", "partly") for w in words.values()):
        return Finding("inconclusive", trace)
    return Finding("contradicts", trace)


def _gain_readings(gains: gain_scale.Results | None, experiment: str, rows: Sequence[runs_002.Row],
                   engine: str) -> str:
    """For a claim that every row climbs: the gain study's readings of each row's controller under which it climbs
    at h and h/2 in ``engine`` (§6.4: a softer reading climbing where K_d = K fails), "" where a row has none."""
    if gains is None or engine not in gain_scale.ENGINES:
        return ""
    if experiment == "§6.4":
        stiff = [r for r in gains.readings if r.experiment == experiment and r.controller == "open loop"]
        softer = [r for r in gains.readings if r.experiment == experiment and r.controller == "local stiffness"]
        found = [r.label for r in softer for s in stiff if gain_scale.softer_climbs_where_stiff_fails(
            gains.runs_of(r, engine), gains.runs_of(s, engine)) == "yes"]
        return f"{experiment} local stiffness at {', '.join(found)}" if found else ""
    if any(row.outcome_002 != "climbs" or row.controller not in GAIN_CONTROLLERS for row in rows):
        return ""
    parts = []
    for row in rows:
        climbing = [r.label for r in gains.climbing(GAIN_CONTROLLERS[row.controller], engine)
                    if r.experiment == experiment]
        if not climbing:
            return ""
        parts.append(f"{row.controller} at {', '.join(climbing)}")
    return "; ".join(parts)


def _comparison_finding(r002: runs_002.Results, experiment: str, faster: str, slower: str, engine: str) -> Finding:
    """002's "``faster`` climbed faster than ``slower``": a difference of the mean climb times beyond the half-step
    spread of the runs it compares, with the sign 002 reports."""
    a, b = (runs_002.select(r002, experiment, c, engine) for c in (faster, slower))
    if not a or not b:
        return Finding(NOT_RUN, "")
    c = compare([r.run.time_pair for r in a], [r.run.time_pair for r in b])
    if c.difference is None:
        return Finding("inconclusive", "002's runs: not compared, a run of either does not climb at h or at h/2")
    trace = (f"002's runs: {faster} − {slower} = {c.difference:+.1f} s against a half-step spread of "
             f"{c.spread:.1f} s")
    if not c.is_difference:
        return Finding("inconclusive", trace)
    return Finding("reproduced" if c.difference < 0 else "contradicts", trace)


def _speed_findings(pw: pedal_wave.PedalWaveResults) -> tuple[dict[str, Finding], dict[str, Finding]]:
    """Table 5.2: (the speeds of the section's grids against 002's S (vertical) and E (3-D) columns by the section's
    order-of-magnitude rule, speed rising with A for every φ), per engine."""
    speeds, rises = {}, {}
    grids = {"vertical": (np.array(pw.speed), None, pedal_wave.TABLE_S, "S")}
    grids.update({e: (np.array(g.speed), np.array(g.half_step_speed), pedal_wave.TABLE_E, "E")
                  for e, g in pw.grids_3d.items()})
    for engine in ENGINES:
        if engine not in grids:
            speeds[engine] = rises[engine] = Finding(NOT_RUN, "")
            continue
        ours, half, table, column = grids[engine]
        ratio = ours / (np.array(table) / 100)
        moved = [] if half is None else [relative_change(float(x), float(y)) for x, y in zip(ours.flat, half.flat,
                                                                                             strict=True)]
        settled = all(m is not None and abs(m) <= TOLERANCE for m in moved)
        same = bool(np.all((ratio >= 1 / pedal_wave.ORDER_OF_MAGNITUDE) & (ratio <= pedal_wave.ORDER_OF_MAGNITUDE)))
        word = ("reproduced" if same else "contradicts") if settled else "inconclusive"
        speeds[engine] = Finding(word, f"pedal wave: {ratio.min():.2f}–{ratio.max():.2f} × 002's {column} column"
                                 + ("" if settled else ", not converged at h/2"))
        up = all(np.all(np.diff(row) > 0) for row in ours)
        rises[engine] = Finding(("reproduced" if up else "contradicts") if settled else "inconclusive",
                                f"pedal wave: {'rises' if up else 'does not rise'} with A for every φ")
    return speeds, rises


def _ordering_finding(ro: rollover.Results) -> dict[str, Finding]:
    """002's roll-over ordering in the roll-over study (MuJoCo): at the symmetric runs, else under an asymmetry."""
    holds = [key for key, by in rollover.groups(ro.rates).items() if ordering_holds(by)[0]]
    symmetric = [w for w, axis, _ in holds if axis == "none"]
    where = [f"{w}, {axis} {level:g}" for w, axis, level in holds]
    out = {e: Finding(NOT_RUN, "") for e in ENGINES}
    if symmetric:
        out["mujoco"] = Finding("reproduced", f"roll-over study: the symmetric runs on {', '.join(symmetric)}")
    elif where:
        out["mujoco"] = Finding("explained", f"roll-over study: under {'; '.join(where)}")
    else:
        out["mujoco"] = Finding("contradicts", "roll-over study: at no world and asymmetry level")
    return out


#: The sections whose results the claims are read from (:mod:`.experiment`).
READS = {"pedal_wave": pedal_wave.Results, "runs_002": runs_002.Results, "gain_scale": gain_scale.Results,
         "rollover": rollover.Results}


def _claim(section: str, claim: str, said: str, findings: dict[str, Finding]) -> Claim:
    return Claim(section, claim, said, findings, overall(list(findings.values())))


def assemble(fast: bool, plan: dict[str, Any], rows: dict[str, dict], earlier: dict[str, Any]) -> Results:
    """Every claim from the results the run stored of the sections before (:data:`READS`; a section without stored
    results: its claims are left out)."""
    sources = [f"reproduction/{name}.json" for name, results in earlier.items() if results is not None]
    pw, r002, gains, ro = (earlier[name] for name in READS)
    claims = []
    if pw is not None:
        speeds, rises = _speed_findings(pw)
        claims += [_claim("Table 5.2", "Average speeds of the pedal wave: simulation (S, Table 5.1's robot) and robot "
                          "(E, the robot as built)", "1.7–5.9 cm/s (S), 2.7–6.2 cm/s (E)", speeds),
                   _claim("Table 5.2", "Speed rises with the amplitude A for every φ", "yes, S and E", rises)]
    if r002 is not None:
        by_row = {(r.experiment, r.controller): r for r in runs_002.rows_002()}
        for claim, experiment, controllers in ROW_CLAIMS:
            said = "; ".join(f"{c}: {by_row[(experiment, c)].result_002}" for c in controllers)
            claims.append(_claim(experiment, claim, said, {e: _rows_finding(r002, gains, experiment, controllers, e)
                                                          for e in ENGINES}))
        for experiment, faster, slower, words in runs_002.COMPARISONS_002:
            claims.append(_claim(experiment, f"{faster} climbs faster than {slower}", words,
                                 {e: _comparison_finding(r002, experiment, faster, slower, e) for e in ENGINES}))
    if ro is not None:
        claims.append(_claim("§6.4, §7.4", "The open loop and local stiffness roll over where TSC K_τ = 6 does not",
                             "rolled over in 5 of 5 trials, TSC K_τ = 6 in none", _ordering_finding(ro)))
    return Results(fast, tuple(claims), tuple(sources), run_settings(fast))
