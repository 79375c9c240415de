"""The report of section ``rollover``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.rollover` alone; nothing here runs a simulation.
"""

from __future__ import annotations

from pathlib import Path

from snake_sim.analysis.rollover import wilson_interval
from snake_studies.reproduction.experiments.rollover import Results, groups
from snake_studies.rollover import CLIMBER, KEPT_UPRIGHT_002, ROLLED_002, Axis, Rate, ordering_holds, rates_apart

# KEPT_UPRIGHT_002, ROLLED_002: 002's findings (the paper's); CLIMBER: a row's label; the boards the runs used are
# results.settings.

TITLE = "Roll-over rates under 002's asymmetries, and what the unknowns change (002 §6.4, §7.4)"


# --- render -------------------------------------------------------------------------------------------------------


def _level(axis: Axis | None, level: float) -> str:
    if axis is None:
        return "none (symmetric)"
    return f"{axis.label} {level:g}{' ' + axis.unit if axis.unit else ''}"


def _cell(r: Rate) -> str:
    lo, hi = r.interval
    flips = "" if r.rolled_h == r.rolled_half else f"; h: {r.rolled_h}, h/2: {r.rolled_half}"
    climbed = f"; climbed {r.climbed}" if r.climbed else ""
    failed = f"; {r.failed} without result" if r.failed else ""
    return f"{r.rolled}/{r.runs} [{100 * lo:.0f}–{100 * hi:.0f} %]{flips}{climbed}{failed}"


def _axis(results: Results, name: str) -> Axis | None:
    return next((a for a in (*results.axes, *results.factors) if a.name == name), None)


def _rate_tables(results: Results) -> list[str]:
    names = list(results.controller_overrides)
    lines = []
    by_level = groups(results.rates)
    for world in dict.fromkeys(r.world for r in results.rates):
        lines += [f"**{world}** — rolled over at h and at h/2 out of the seeds run [95 % Wilson interval]:", "",
                  "| asymmetry | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for (w, axis, level), by in by_level.items():
            if w == world:
                lines.append(f"| {_level(_axis(results, axis), level)} | "
                             + " | ".join(_cell(by[c]) if c in by else "not run" for c in names) + " |")
        lines.append("")
    return lines


def _ordering(results: Results) -> list[str]:
    point, strict = [], []
    for (world, axis, level), by in groups(results.rates).items():
        p, s = ordering_holds(by)
        where = f"{world}, {_level(_axis(results, axis), level)}"
        if p:
            point.append(where)
        if s:
            strict.append(where)
    rolled = " and ".join(ROLLED_002)
    head = (f"*002's ordering* ({rolled} roll over, {KEPT_UPRIGHT_002} does not): ")
    if not point:
        return [head + "it appears nowhere in this space: at no (world, asymmetry level) do both roll over in some "
                "runs while TSC K_τ = 6 rolls in none.", ""]
    text = head + "as counts (both roll over in some runs, TSC K_τ = 6 in none) at " + "; ".join(point) + ". "
    text += ("Beyond the 95 % intervals (both lower bounds above TSC K_τ = 6's upper bound): "
             + ("; ".join(strict) if strict else f"nowhere, with {len(results.seeds)} seeds per level on the "
                f"single obstacle and {len(results.few_seeds)} on the two") + ".")
    return [text, ""]


def _apart(results: Results) -> list[str]:
    """Where one controller rolls over more often than others beyond the 95 % intervals."""
    found = []
    for (world, axis, level), by in groups(results.rates).items():
        for c, below in rates_apart(by).items():
            found.append(f"at {world}, {_level(_axis(results, axis), level)}: {c} ({by[c].rolled}/{by[c].runs}) "
                         "above " + ", ".join(f"{d} ({by[d].rolled}/{by[d].runs})" for d in below))
    head = "*Rates apart beyond the 95 % intervals* (one controller's lower bound above another's upper bound): "
    return [head + ("; ".join(found) if found else "nowhere") + ".", ""]


def _movement(results: Results) -> list[str]:
    """Why a controller never rolls: it does not reach the obstacle (the CoM speed of the symmetric runs)."""
    base = [r for r in results.rates if r.axis == "none"]
    speeds = ", ".join(f"{r.controller} on the {r.world} {1e3 * r.speed_mps:.1f} mm/s" for r in base)
    return [f"CoM speed along +x of the symmetric runs (mean over the seeds, at h): {speeds}.", ""]


Ranked = tuple[str, float, float, float | None, float]


def _sensitivity(results: Results) -> tuple[list[Ranked], list[str]]:
    """Per factor: (label, largest change of the climbed fraction, of the rolled fraction, of the mean climb
    time [relative], of the mean CoM speed [m/s]) against the scenarios' values on the factor's world, ranked; and
    the table lines."""
    base = {(r.world, r.controller): r for r in results.sensitivity if r.axis == "none"}
    names = list(results.sensitivity_overrides)
    ranking = []
    lines = ["| unknown, value | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    values = ", ".join(f"{k} {v:g}" for k, v in results.baseline.items())
    for world in dict.fromkeys(w for w, _ in base):
        gap = f", gap {1e3 * results.settings.two_obstacles_gap:g} mm" if world == "two obstacles" else ""
        lines.append(f"| the study's ({values}{gap}), {world} | "
                     + " | ".join(_sens_cell(base.get((world, c))) for c in names) + " |")
    for factor in results.factors:
        dc = dr = dv = 0.0
        dt: float | None = None
        for level in factor.levels:
            by = {r.controller: r for r in results.sensitivity if r.axis == factor.name and r.level == level}
            if not by:
                continue
            lines.append(f"| {_level(factor, level)}, {factor.world} | "
                         + " | ".join(_sens_cell(by.get(c)) for c in names) + " |")
            for c, r in by.items():
                b = base.get((factor.world, c))
                if b is None or not r.runs or not b.runs:
                    continue
                dc = max(dc, abs(r.climbed / r.runs - b.climbed / b.runs))
                dr = max(dr, abs(r.rolled / r.runs - b.rolled / b.runs))
                dv = max(dv, abs(r.speed_mps - b.speed_mps))
                if r.climb_time_s is not None and b.climb_time_s is not None:
                    dt = max(dt or 0.0, abs(r.climb_time_s - b.climb_time_s) / b.climb_time_s)
        ranking.append((factor.label, dc, dr, dt, dv))
    ranking.sort(key=lambda x: (x[1] + x[2], x[3] or 0.0, x[4]), reverse=True)
    return ranking, lines


def _sens_cell(r: Rate | None) -> str:
    if r is None or not r.runs:
        return "not run"
    t = f" in {r.climb_time_s:.1f} s" if r.climb_time_s is not None else ""
    return f"climbed {r.climbed}/{r.runs}{t}, rolled {r.rolled}/{r.runs}, {1e3 * r.speed_mps:.1f} mm/s"


def _resolution(n: int) -> str:
    """What n seeds can tell: whether none-of-n and all-of-n lie beyond each other's 95 % intervals."""
    none, every = wilson_interval(0, n), wilson_interval(n, n)
    span = f"0/{n} is [0–{100 * none[1]:.0f} %], {n}/{n} [{100 * every[0]:.0f}–100 %]"
    if none[1] < every[0]:
        return f"with {n} seeds {span}: only rates that far apart are a difference."
    return (f"with {n} seeds {span}: even these overlap, so no two rates are a difference beyond the intervals; "
            "the counts say where roll-overs happen, not how often.")


def _seeds(seeds: tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in seeds)


def render(results: Results) -> str:
    settings = "; ".join(f"{c}: `{' '.join(ov)}`" for c, ov in results.controller_overrides.items())
    axes = "; ".join(f"{a.label} ({', '.join(f'{v:g}' for v in a.levels)}{' ' + a.unit if a.unit else ''}: "
                     f"`{' '.join(a.overrides).replace('{!r}', '<level>')}`)" for a in results.axes)
    lines = [f"## {TITLE}", ""]
    if results.fast:
        lines += ["*Smoke run (`--fast`): short runs, numbers not for comparison.*", ""]
    counts = ", ".join(f"μ = {mu}: {k}" for mu, k in results.face_counts.items())
    gains = "; ".join(f"{c}: {ch.label} ({ch.why})" for c, ch in results.choices.items())
    lines += [
        "002 blames its robot's roll-overs on narrow links, an uneven mass distribution within each link, "
        "un-modelled external forces and the tether through a slip ring at the tail, and on the robot open loop and "
        "local stiffness rolled over where TSC with K_τ = 6 did not. A controller can roll over on a box only once "
        "it engages it, so the four controllers of §7.4 run here on 002's boards of §7.4 and §7.4.2 (the top plate "
        f"of μ = {results.settings.plate_friction:g}) with the boxes' faces at μ = {results.face_friction:g}, the face "
        "μ under which the most of 002's §7.4 and §7.4.2 outcomes hold in MuJoCo (rows that hold per face μ: "
        f"{counts or 'no stored runs'}; ties to the higher μ), and each with the gains nearest 002's printed ones "
        "under which it climbs the box at h and at h/2 in MuJoCo in the gain study (002's own where none does): "
        f"{gains}. The overrides: {settings}. "
        f"Each asymmetry at a few levels with the others symmetric, on the MuJoCo model: "
        f"{axes}. On the single obstacle every level runs with perturbation seeds {_seeds(results.seeds)} (the "
        "initial roll and joint noise of the `*-3d` scenarios), on the two obstacles only the symmetric runs and "
        f"each axis's largest level, with seeds {_seeds(results.few_seeds)}; {results.duration_s:g} s each at "
        f"h = {1e3 * results.time_step_s:g} ms and again at h/2; a run rolled over when a module turned past "
        f"{results.roll_over_deg:g}° about its axis, and counts when it did so at both steps (where h and h/2 "
        "disagree the cell gives both counts). Each rate comes with its 95 % Wilson score interval; "
        + _resolution(len(results.seeds)) + " `snake-sim reproduce --only rollover` also draws the rates against "
        "each asymmetry per controller (`rollover_rates.png`) and the ranking below (`rollover_sensitivity.png`) "
        "beside the stored results (not kept in the repository).", "",
        *_rate_tables(results), *_ordering(results), *_apart(results), *_movement(results)]
    ranking, table = _sensitivity(results)
    lines += ["### What the unknowns change", "",
              "One at a time around the study's values, the same controllers on the single obstacle (the gap on "
              "the two obstacles) with seeds "
              f"{_seeds(results.few_seeds)}, and {CLIMBER}, a run that climbs here (`"
              f"{' '.join(results.sensitivity_overrides.get(CLIMBER, ()))}`), for a climb time to compare "
              "(`world.side_friction` sets the μ of the boxes' vertical faces, the top plate keeps its own; "
              "`robot.module_width` reads the module's 68 mm across the corners of its "
              "octagon instead of across its flats, same mass, the inertia of the narrower shape):", "",
              *table, "", "Ranked by the largest change of the fraction of runs that climb plus that of runs that "
              "roll over, against the study's values (then by the mean climb time's relative change, then by the "
              "CoM speed's change, over the controllers):", ""]
    lines += [f"{k}. {label}: climbed fraction ±{dc:.2f}, rolled fraction ±{dr:.2f}"
              + (f", climb time ±{100 * dt:.0f} %" if dt is not None else ", no climb at both values to compare")
              + f", CoM speed ±{1e3 * dv:.1f} mm/s"
              for k, (label, dc, dr, dt, dv) in enumerate(ranking, 1)]
    lines.append("")
    if results.failed:
        lines += ["Runs without a result (left out of the counts): " + "; ".join(results.failed) + ".", ""]
    return "\n".join(lines)


# --- figures ------------------------------------------------------------------------------------------------------


def figures(results: Results, folder: Path) -> list[Path]:
    """``rollover_rates.png`` (roll-over rate with its Wilson interval against each asymmetry, a line per
    controller, a column per world) and ``rollover_sensitivity.png`` (the unknowns ranked) in ``folder``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    worlds = list(dict.fromkeys(r.world for r in results.rates))
    names = list(results.controller_overrides)
    fig, axs = plt.subplots(len(results.axes), len(worlds), figsize=(5 * len(worlds), 3 * len(results.axes)),
                            squeeze=False, sharey=True)
    for i, axis in enumerate(results.axes):
        for k, world in enumerate(worlds):
            ax = axs[i][k]
            for n, c in enumerate(names):
                pts = sorted((0.0 if r.axis == "none" else r.level, r) for r in results.rates
                             if r.world == world and r.controller == c and r.axis in ("none", axis.name) and r.runs)
                if not pts:
                    continue
                x = [p[0] + 0.01 * (n - 1.5) * (max(axis.levels) or 1.0) for p in pts]
                y = [p[1].rate for p in pts]
                lo = [p[1].rate - p[1].interval[0] for p in pts]
                hi = [p[1].interval[1] - p[1].rate for p in pts]
                ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=c)
            ax.set_xlabel(f"{axis.label} [{axis.unit}]")
            ax.set_title(world)
            ax.set_ylim(-0.05, 1.05)
            if k == 0:
                ax.set_ylabel("roll-over rate")
    axs[0][0].legend(fontsize=7)
    fig.tight_layout()
    rates = folder / "rollover_rates.png"
    fig.savefig(rates, dpi=100)
    plt.close(fig)
    ranking, _ = _sensitivity(results)
    fig, (ax, ax_t, ax_v) = plt.subplots(1, 3, figsize=(13, 0.6 * len(ranking) + 1.5), sharey=True)
    labels = [r[0] for r in ranking][::-1]
    rows = range(len(labels))
    ax.barh([i - 0.2 for i in rows], [r[1] for r in ranking][::-1], height=0.4, label="climbed fraction")
    ax.barh([i + 0.2 for i in rows], [r[2] for r in ranking][::-1], height=0.4, label="rolled-over fraction")
    ax.set_yticks(rows, labels, fontsize=8)
    ax.set_xlabel("largest change of the verdicts")
    ax.legend(fontsize=8)
    ax_t.barh(rows, [100 * (r[3] or 0.0) for r in ranking][::-1], height=0.5)
    ax_t.set_xlabel("largest change of the climb time [%]")
    ax_v.barh(rows, [1e3 * r[4] for r in ranking][::-1], height=0.5)
    ax_v.set_xlabel("largest change of the CoM speed [mm/s]")
    fig.suptitle("what the unknowns change, against the scenarios' values", fontsize=9)
    fig.tight_layout()
    sensitivity = folder / "rollover_sensitivity.png"
    fig.savefig(sensitivity, dpi=100)
    plt.close(fig)
    return [rates, sensitivity]
