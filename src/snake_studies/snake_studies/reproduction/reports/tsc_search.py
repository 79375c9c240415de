"""The report of section ``tsc_search``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.tsc_search` alone; nothing here runs a simulation.
"""

from __future__ import annotations

from snake_studies.reproduction.experiments import stiffness
from snake_studies.reproduction.experiments.tsc_search import Results, Run, Search

# stiffness.TABLE_7_1_GAINS: Table 7.1's gains (002's numbers); how the searches were made is results.settings.

TITLE = "Does any TSC setting climb the single obstacle? A search over a wide box"
#: Climbers listed in the section's tables, fastest first.
LISTED = 6
#: Names of the searched keys in the text.
SYMBOLS = {"gait.amplitude": "A", "controller.inertia": "M_d", "controller.damping": "D_d",
           "controller.stiffness": "K_d", "controller.torque_gain": "K_τ"}
#: Units of the searched keys in the text.
UNITS = {"gait.amplitude": "rad", "controller.inertia": "N·m·s²/rad", "controller.damping": "N·m·s/rad",
         "controller.stiffness": "N·m/rad", "controller.torque_gain": ""}


# --- rendering ---------------------------------------------------------------------------------------------------

MODEL_NAMES = {"vertical": "Vertical-plane model", "mujoco": "3-D model (MuJoCo)"}


def _value(key: str, value: float) -> str:
    return f"{value:.3f}" if key == "gait.amplitude" else f"{value:.3g}"


def _span(key: str, low: float, high: float) -> str:
    return _value(key, low) if low == high else f"{_value(key, low)}–{_value(key, high)}"


def _settings(run: Run, keys: tuple[str, ...]) -> str:
    return ", ".join(f"{SYMBOLS[k]} = {_value(k, run.params[k])}" for k in keys)


def _inside(run: Run, ranges: dict[str, tuple[float, float]]) -> bool:
    """Inside 002's ranges of every searched key that 002 varies (not M_d, a single value)."""
    return all(lo <= run.params[k] <= hi for k, (lo, hi) in ranges.items() if lo < hi)


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} s"


def _relative(value: float, reference: float) -> str:
    return f"{100.0 * (value / reference - 1.0):+.0f} %"


def _region_table(search: Search, results: Results, climbers: list[Run]) -> list[str]:
    keys = tuple(r.key for r in search.space)
    lines = ["| | " + " | ".join(f"{SYMBOLS[k]} [{UNITS[k]}]" if UNITS[k] else SYMBOLS[k] for k in keys) + " |",
             "|---|" + "---|" * len(keys),
             "| searched box | " + " | ".join(_span(r.key, r.low, r.high) + (" (log)" if r.log else "")
                                             for r in search.space) + " |",
             "| 002 | " + " | ".join(_span(k, *results.ranges_002[k]) for k in keys) + " |"]
    for label, runs in (("step-checked climbers", climbers), ("of which crawl", [r for r in climbers
                                                                                  if r.mode == "crawl"])):
        if runs:
            lines.append(f"| {label} ({len(runs)}) | " + " | ".join(
                _span(k, min(r.params[k] for r in runs), max(r.params[k] for r in runs)) for k in keys) + " |")
    return lines


def _listing(search: Search, climbers: list[Run], three_d: bool) -> list[str]:
    keys = tuple(r.key for r in search.space)
    roll = " max roll [°] |" if three_d else ""
    lines = ["| " + " | ".join(SYMBOLS[k] for k in keys) + " | climbed | at h/2 | mode | max chord angle [°] |"
             + roll, "|" + "---|" * (len(keys) + 4 + three_d)]
    for r in climbers[:LISTED]:
        lines.append("| " + " | ".join(_value(k, r.params[k]) for k in keys)
                     + f" | {_seconds(r.time_to_climb_s)} | {_seconds(r.half.time_to_climb_s)} | {r.mode} | "
                     + f"{r.max_chord_angle_deg:.0f} |" + (f" {r.max_roll_deg:.1f} |" if three_d else ""))
    return lines


def _open_loop_text(search: Search, results: Results, best: list[tuple[str, Run]]) -> list[str]:
    """The open loop at 002's face μ (and lowered μ or other seeds), against TSC's best step-checked climb."""
    a, phi = search.open_loop_gait
    shipped = search.open_loop[0]
    faces = [r for r in search.open_loop if "world.side_friction" in r.params]
    seeds = [r for r in search.open_loop if "sim.perturbation.seed" in r.params]
    text = (f"*Open loop* (`{search.open_loop_scenario}`, A = {a:.3f} rad, φ = {phi:.3f} rad) at 002's face "
            f"μ = {results.face_friction:g}: " + (f"climbs in {_seconds(shipped.time_to_climb_s)}" if shipped.climbed
                                                  else "does not climb")
            + ("" if not shipped.climbed else
               " (step-checked)" if shipped.checked_climb else " (**not step-checked**: it changes at h/2)"))
    lines = [text + "."]
    reference: tuple[str, Run] | None = ("at 002's face μ", shipped) if shipped.checked_climb else None
    if faces:
        climbs = [r for r in faces if r.checked_climb]
        mus = ", ".join(f"{r.params['world.side_friction']:g}" for r in climbs)
        top = max(climbs, key=lambda r: r.params["world.side_friction"]) if climbs else None
        lines.append(f"With the box's vertical faces' μ lowered (`world.side_friction`, steps of "
                     f"{results.settings.face_friction_step:g}): step-checked climbs at μ = {mus or 'none'}"
                     + ("" if top is None else f"; at the highest, μ = {top.params['world.side_friction']:g}, "
                        f"in {_seconds(top.time_to_climb_s)}") + ".")
        if reference is None and top is not None:
            reference = (f"at face μ = {top.params['world.side_friction']:g}", top)
    if seeds:
        runs = [shipped, *seeds]
        ok = sum(r.checked_climb for r in runs)
        numbers = [0, *(int(r.params["sim.perturbation.seed"]) for r in seeds)]
        lines.append(f"At perturbation seeds {', '.join(map(str, numbers))}: "
                     + ", ".join(_seconds(r.time_to_climb_s) if r.climbed else "no" for r in runs)
                     + f" ({ok} of {len(runs)} step-checked climbs; rolled over: "
                     + ", ".join("yes" if r.rolled_over else "no" for r in runs) + ").")
    if reference is None or not best:
        lines.append("There is no pair of step-checked climbs (TSC at 002's face μ, the open loop) to compare.")
    else:
        where, ol = reference
        t_ol = ol.time_to_climb_s
        lines.append(f"Against the open loop {where} ({t_ol:.1f} s), TSC's " + "; its ".join(
            f"{label} ({r.time_to_climb_s:.1f} s) is {_faster(r.time_to_climb_s, t_ol)}, time "
            f"{_relative(r.time_to_climb_s, t_ol)}" for label, r in best) + ".")
    return lines


def _faster(value: float, reference: float) -> str:
    return "faster" if value < reference else "slower" if value > reference else "as fast"


def clean(run: Run) -> bool:
    """A step-checked crawl that did not roll over: the robot climbed as a gait climbs."""
    return run.checked_climb and run.mode == "crawl" and not run.rolled_over


def _compared(checked: list[Run], own: Run) -> list[tuple[str, Run]]:
    """What is compared with the open loop: the fastest step-checked climb of the search, if another its fastest
    clean crawl, and the scenario's own setting if it is a step-checked climb."""
    out = [("fastest step-checked climb at 002's face μ", checked[0])] if checked else []
    crawls = [r for r in checked if clean(r)]
    if crawls and crawls[0] is not checked[0]:
        rolling = " without rolling over" if crawls[0].rolled_over is not None else ""
        out.append((f"fastest step-checked crawl{rolling}", crawls[0]))
    if own.checked_climb:
        out.append(("own setting (the scenario's)", own))
    return out


def _not_checked(climbed: list[Run], tolerance: float) -> str:
    """Why climbs at h do not count: no climb at h/2, another mode, or times and speeds moving by more than
    ``tolerance`` (the step check's; and of those, how many keep the time to climb within it: only the speeds move)."""
    failed = [r for r in climbed if not r.checked_climb]
    if not failed:
        return ""
    lost = [r for r in failed if not r.half.climbed]
    mode = [r for r in failed if r.half.climbed and r.half.mode != r.mode]
    moved = [r for r in failed if r.half.climbed and r.half.mode == r.mode]
    time_kept = [r for r in moved if r.half.time_to_climb_s is not None
                 and abs(r.time_to_climb_s / r.half.time_to_climb_s - 1.0) <= tolerance]
    return (f" Of the {len(failed)} climbs that do not stand at h/2: {len(lost)} do not climb at h/2, {len(mode)} "
            f"climb another way, {len(moved)} climb the same way but their times or speeds move by more than "
            f"{100 * tolerance:g} % ({len(time_kept)} of them keep the time to climb within it: the CoM or climb "
            "speed moves).")


def _own_verdict(run: Run) -> str:
    if not run.climbed:
        return "does not climb"
    how = f"{run.mode}" + (", rolled over" if run.rolled_over else "")
    if run.checked_climb:
        return f"climbs in {run.time_to_climb_s:.1f} s ({how}; step-checked)"
    return (f"climbs in {run.time_to_climb_s:.1f} s ({how}) but not at h/2" if not run.half.climbed else
            f"climbs in {run.time_to_climb_s:.1f} s ({how}) but is not step-checked "
            f"({100 * run.half.max_rate_change:.1f} % at h/2)")


def _own_text(search: Search, results: Results) -> str:
    """The scenario's own setting, inside 002's ranges: a point the box's cover may not come near."""
    own = search.own
    keys = tuple(r.key for r in search.space)
    inside = "inside" if _inside(own, results.ranges_002) else "outside"
    return (f"*The scenario's own setting* ({_settings(own, keys)}; {inside} 002's ranges) {_own_verdict(own)}"
            + ("." if search.model == "vertical" or own.max_roll_deg is None else
               f", largest roll {own.max_roll_deg:.1f}°."))


def _search_text(search: Search, results: Results) -> list[str]:
    three_d = search.model != "vertical"
    keys = tuple(r.key for r in search.space)
    runs = search.trials
    failed = sum(r.status != "ok" for r in runs)
    climbed = [r for r in runs if r.climbed]
    checked = sorted((r for r in runs if r.checked_climb), key=lambda r: r.time_to_climb_s)
    sobol_checked = sum(r.checked_climb for r in runs[:search.sobol_trials])
    crawl = [r for r in checked if r.mode == "crawl"]
    tumble = [r for r in checked if r.mode == "tumble"]
    inside = [r for r in checked if _inside(r, results.ranges_002)]
    lines = [f"### {MODEL_NAMES.get(search.model, search.model)}: `{search.scenario}`", "",
             f"{len(runs)} trials of {search.duration_s:g} s at h = {1e3 * search.time_step_s:g} ms (a trial took "
             f"{search.trial_wall_time_s:.1f} s of a worker on average): the first {search.sobol_trials} the Sobol "
             f"cover, the other {len(runs) - search.sobol_trials} TPE's"
             + (f"; {failed} runs failed (non-finite state or error)" if failed else "; no run failed") + ". "
             f"{len(climbed)} climbed at h ({sum(r.mode == 'crawl' for r in climbed)} crawling, "
             f"{sum(r.mode == 'tumble' for r in climbed)} tumbling"
             + (f"; {sum(bool(r.rolled_over) for r in climbed)} rolled over" if three_d else "") + "), "
             f"{len(checked)} of them also at h/2 with times and speeds within "
             f"{100 * results.settings.step_tolerance:g} % and the same mode (step-checked); {sobol_checked} of the "
             f"{search.sobol_trials} Sobol points ({100 * sobol_checked / max(search.sobol_trials, 1):.0f} % of the "
             "box) are step-checked climbs." + _not_checked(climbed, results.settings.step_tolerance), ""]
    if not checked:
        best_progress = max((r.progress_speed_mps for r in runs if r.progress_speed_mps is not None), default=None)
        lines += [f"**No setting climbed** at steps that pass the step check, in {len(runs)} trials over the box"
                  + ("" if best_progress is None else
                     f" (the best progress speed: {1e3 * best_progress:.1f} mm/s)") + ".", ""]
    else:
        best = checked[0]
        lines += [f"**Step-checked climbs: {len(checked)}.** Their region, per parameter (smallest–largest), "
                  "against the box and 002's values:", "", *_region_table(search, results, checked), "",
                  f"{len(inside)} of the {len(checked)} lie inside 002's ranges of "
                  + ", ".join(SYMBOLS[k] for k, (lo, hi) in results.ranges_002.items() if lo < hi)
                  + f" (002 fixes M_d = {stiffness.TABLE_7_1_GAINS[0]:g}). "
                  f"*How they climb*: {len(crawl)} crawl over the box, {len(tumble)} tumble (head over tail"
                  + (f", the body turning by up to {max(r.max_body_rotation_deg for r in tumble):.0f}°" if tumble
                     else "") + "). "
                  f"The fastest: {best.time_to_climb_s:.1f} s ({_settings(best, keys)}; {best.mode})"
                  + ("" if best.mode == "crawl" or not crawl else
                     f"; the fastest crawl: {crawl[0].time_to_climb_s:.1f} s ({_settings(crawl[0], keys)})") + ".",
                  ""]
        if three_d:
            rolled = [r for r in checked if r.rolled_over]
            roll = max((r.max_roll_deg for r in checked if r.max_roll_deg is not None), default=float("nan"))
            lines += [f"Roll-over: {len(rolled)} of the {len(checked)} step-checked climbers rolled over (a module "
                      f"past {results.settings.roll_over_deg:g}°); their largest roll: "
                      f"{roll:.1f}°.", ""]
        lines += [f"The fastest {min(LISTED, len(checked))} step-checked climbs:", "",
                  *_listing(search, checked, three_d), ""]
        if search.seeded:
            ok = [r for r in search.seeded if r.checked_climb]
            seeds = sorted({int(r.params["sim.perturbation.seed"]) for r in search.seeded})
            lines += [f"The {len(search.seeded) // max(len(seeds), 1)} fastest at perturbation seeds "
                      f"{', '.join(map(str, seeds))} (the search ran at seed 0): {len(ok)} of {len(search.seeded)} "
                      "runs are step-checked climbs ("
                      + "; ".join(f"{_settings(r, keys)}, seed {int(r.params['sim.perturbation.seed'])}: "
                                  + (_seconds(r.time_to_climb_s) if r.climbed else "no")
                                  + ("" if r.checked_climb or not r.climbed else
                                     " (no climb at h/2)" if not r.half.climbed else
                                     f" (not step-checked: {100 * r.half.max_rate_change:.1f} % at h/2)")
                                  for r in search.seeded) + ").", ""]
    lines += [_own_text(search, results), ""]
    lines += [" ".join(_open_loop_text(search, results, _compared(checked, search.own))), ""]
    return lines


def _answer(search: Search) -> str:
    """One line: does TSC climb in this model, how, and how fast against the open loop at 002's face μ."""
    checked = sorted((r for r in search.trials if r.checked_climb), key=lambda r: r.time_to_climb_s)
    name = MODEL_NAMES.get(search.model, search.model)
    if not checked:
        return (f"- *{name}*: no TSC setting climbs (step-checked) in {len(search.trials)} trials; the scenario's "
                f"own setting {_own_verdict(search.own)}.")
    modes = {m: sum(r.mode == m for r in checked) for m in ("crawl", "tumble")}
    shipped = search.open_loop[0]
    open_loop = (f"the open loop {shipped.time_to_climb_s:.1f} s" if shipped.checked_climb
                 else "the open loop does not climb (step-checked) at this μ")
    crawls = [r for r in checked if clean(r)]
    rolling = " without rolling over" if search.model != "vertical" else ""
    crawl = (f"the fastest crawl{rolling} in {crawls[0].time_to_climb_s:.1f} s" if crawls
             else f"none crawls{rolling}")
    return (f"- *{name}*: {len(checked)} of {len(search.trials)} trials climb (step-checked; {modes['crawl']} "
            f"crawl, {modes['tumble']} tumble); the fastest in {checked[0].time_to_climb_s:.1f} s "
            f"({checked[0].mode}), {crawl}; {open_loop}; the scenario's own setting {_own_verdict(search.own)}.")


def render(results: Results) -> str:
    box, st = (results.searches[0].space if results.searches else ()), results.settings
    lines = [f"## {TITLE}", "",
             "The question: does any TSC setting climb the single obstacle (world `single_obstacle`) with 002's "
             f"face friction (μ = {results.face_friction:g} on every face of the box, the world file's), the joint "
             "limits kept "
             f"(±{results.joint_limit_deg:.0f}°: A ≤ {box[0].high:.3f} rad, and (7.2)'s output saturates there)? "
             "Each model's search is an Optuna study whose trials run as Dask tasks (`snake_studies.sweep`), "
             f"asked and told in rounds of {st.batch} (seed {results.sampler_seed}, so the same whatever the workers): "
             "first a scrambled Sobol sequence over the box (an unbiased cover: the share of it that climbs), then "
             "TPE (multivariate) maximising the climb's *progress speed* (the climb's average speed for a climber, "
             "the tail tip's advance over the run for a non-climber: every non-climber ranks below every climber, "
             "so the search is led to the box first and to faster climbs after). Every trial that climbed runs again "
             "at half the step; its climb counts only if the verdicts stand, its times and speeds move by at most "
             f"{100 * st.step_tolerance:g} % and it climbs the same way. *How it climbs* "
             "(`snake_sim.analysis.climb_mode`): it *crawls* while the chord from the tail tip to the head tip stays "
             f"within ±{st.chord_limit_deg:g}° of the x axis (the head "
             "ahead of the tail), it *tumbles* once the chord turns past the vertical (head over tail).", ""]
    if results.fast:
        lines += ["*(fast smoke run: a few short trials; these numbers are not the answer.)*", ""]
    lines += ["In short:", "", *(_answer(search) for search in results.searches), ""]
    for search in results.searches:
        lines += _search_text(search, results)
    return "\n".join(lines)
