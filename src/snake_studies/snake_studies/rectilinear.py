"""The parametric study of 003 ch. 4 with effort-optimal trajectories (``snake-sim rectilinear study``).

For every gait angle α, step time T and link length l, the whole cycle is optimised step by step
(:func:`snake_core.rectilinear.optimise.optimise_cycle`); other link masses re-use those trajectories, as
003 did (§4.5: τ is linear in m, so the effort scales with m²). :func:`write_study` writes to a folder:

* ``study.csv`` / ``study.md``: one row per setting (speed from Eq. 4.1, effort per step and per cycle, peak
  torque, smallest contact force, feasibility with the reason; infeasible rows carry no effort number);
* ``effort_vs_angle.png`` (003 Figs. 4.8, 4.10), ``effort_vs_step_time.png`` (Fig. 4.6),
  ``effort_vs_speed.png`` (Figs. 4.7, 4.9, 4.11), ``effort_vs_length.png`` (Figs. 4.12–4.13, with several
  lengths), ``effort_vs_mass.png`` (Fig. 4.14, with several masses);
003 does not say whether its ch. 4 efforts are per step or per cycle ([AMBIG], seed003 §10): the tables give
both, the figures the cycle total. Links are thin rods, I = m l²/12, as in 003's analysis.

* ``cycle.png``: joint trajectories, torques and contact force over the cycle of the lowest-effort setting
  (003 Figs. 3.16–3.28), and ``best_gait.yaml``: that setting as ``gait.*`` parameters for a scenario.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import yaml
from tqdm import tqdm

from snake_core.rectilinear.cycle import average_speed, plan
from snake_core.rectilinear.mechanism import build_model
from snake_core.rectilinear.optimise import METHODS, CycleResult, StepProblem, evaluate, optimise_cycle
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError, choice, number, positive
from snake_sim.outputs.output_folder import save_figure

#: 003 ch. 4 gait angles [deg] and step times [s] (Figs. 4.8–4.11).
DEFAULT_ANGLES = (15.0, 25.0, 30.0, 35.0, 45.0)
DEFAULT_STEP_TIMES = (1.0, 0.1)


@dataclass(frozen=True)
class StudyRow:
    angle_deg: float
    step_time: float
    link_length: float
    mass: float
    speed: float  # 003 Eq. 4.1 [m/s]
    step_efforts: tuple[float, ...]  # NaN where infeasible
    cycle_effort: float  # [N²·m²·s], NaN if any step is infeasible
    peak_torque: float  # [N·m]
    min_normal_force: float  # [N]
    within_torque_limit: bool  # peak torque ≤ the robot's joint effort limit (servo stall torque)
    feasible: bool
    reason: str
    evaluations: int


def _row(cyc: CycleResult, angle_deg: float, torque_limit: float) -> StudyRow:
    m = cyc.model
    why = "; ".join(f"step {s.number} ({s.kind}): {', '.join(r.violations)}"
                    for s, r in zip(cyc.steps, cyc.results, strict=True) if not r.feasible)
    return StudyRow(angle_deg, m.step_time, m.link_length, m.link_mass,
                    average_speed(m.link_length, cyc.alpha, m.step_time, len(cyc.steps)),
                    tuple(r.effort for r in cyc.results), cyc.effort,
                    cyc.peak_torque, cyc.min_normal_force, bool(cyc.peak_torque <= torque_limit), cyc.feasible, why,
                    sum(r.evaluations for r in cyc.results))


def _rescaled(cyc: CycleResult, mass: float) -> CycleResult:
    """The same trajectories with every mass scaled (003 §4.5)."""
    model = cyc.model.scaled_mass(mass / cyc.model.link_mass)
    results = tuple(evaluate(StepProblem(model, s, cyc.alpha), r.free, r.method, r.evaluations, r.iterations)
                    for s, r in zip(cyc.steps, cyc.results, strict=True))
    return CycleResult(cyc.alpha, model, cyc.steps, results)


def run_study(robot: RobotParams, angles_deg: list[float], step_times: list[float], lengths: list[float],
              masses: list[float], mu: float, joint_limit: float, torque_limit: float = math.inf,
              method: str = "slsqp", progress: bool = True
              ) -> tuple[list[StudyRow], dict[tuple[float, float, float, float], CycleResult]]:
    """Optimise every (α, T, l) and re-use the trajectories for every mass; validated inputs."""
    n_steps = len(plan(robot.n_links))
    choice(method, "--method", METHODS)
    for a in angles_deg:
        if not isinstance(a, (int, float)) or not 0.0 < a <= math.degrees(joint_limit) + 1e-9:
            raise ConfigError("--angles", a, f"each gait angle must be in (0, {math.degrees(joint_limit):g}] degrees "
                              "(the robot's joint range; the boundary states put joints at ±α)")
    for t in step_times:
        positive(t, "--step-times")
    for v in lengths:
        positive(v, "--link-length")
    for v in masses:
        positive(v, "--mass")
    number(mu, "--mu", low=0.0, high=2.0)
    rows, cycles = [], {}
    bar = tqdm(total=len(angles_deg) * len(step_times) * len(lengths) * n_steps, desc="rectilinear study",
               unit="step", disable=not progress)
    for length in lengths:
        for t in step_times:
            for a in angles_deg:
                model = build_model(replace(robot, link_length=length, link_mass=masses[0]), mu=mu, step_time=t,
                                    joint_limit=joint_limit)
                cyc = optimise_cycle(model, robot.n_links, math.radians(a), method,
                                     progress=lambda: None if method == "delta" else bar.update())
                if method == "delta":
                    bar.update(n_steps)
                for mass in masses:
                    c = cyc if mass == masses[0] else _rescaled(cyc, mass)
                    cycles[(a, t, length, mass)] = c
                    rows.append(_row(c, a, torque_limit))
    bar.close()
    return rows, cycles


def _fmt(v: float, spec: str = ".4g") -> str:
    return "" if not np.isfinite(v) else format(v, spec)


def write_tables(rows: list[StudyRow], out: Path) -> None:
    n_steps = len(rows[0].step_efforts)
    head = ["angle_deg", "step_time_s", "link_length_m", "mass_kg", "speed_m_s",
            *[f"effort_step{k + 1}" for k in range(n_steps)], "cycle_effort_N2m2s", "peak_torque_Nm",
            "min_normal_force_N", "within_torque_limit", "feasible", "reason", "evaluations"]
    with open(out / "study.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(head)
        for r in rows:
            w.writerow([r.angle_deg, r.step_time, r.link_length, r.mass, _fmt(r.speed, ".6g"),
                        *[_fmt(e, ".6g") for e in r.step_efforts], _fmt(r.cycle_effort, ".6g"),
                        *((_fmt(r.peak_torque, ".6g"), _fmt(r.min_normal_force, ".6g"), r.within_torque_limit)
                          if r.feasible else ("", "", "")), r.feasible, r.reason, r.evaluations])
    (out / "study.md").write_text(markdown_table(rows) + "\n", encoding="utf-8")


def markdown_table(rows: list[StudyRow]) -> str:
    lines = ["| α [°] | T [s] | l [m] | m [kg] | speed [cm/s] | effort per cycle [N²m²s] | peak τ [N·m] | "
             "min F_R [N] | status |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        status = "ok" if r.feasible else f"infeasible: {r.reason}"
        if r.feasible and not r.within_torque_limit:
            status = "ok, beyond the servo*"
        lines.append(f"| {r.angle_deg:g} | {r.step_time:g} | {r.link_length:g} | {r.mass:g} | {100 * r.speed:.3f} | "
                     f"{_fmt(r.cycle_effort, '.3e') or '—'} | {_fmt(r.peak_torque, '.3f') if r.feasible else '—'} | "
                     f"{_fmt(r.min_normal_force, '.3f') if r.feasible else '—'} | {status} |")
    if any(r.feasible and not r.within_torque_limit for r in rows):
        lines += ["", "\\* The gait is feasible (contacts hold, joints within their range), but its peak joint torque "
                  "exceeds the robot file's `joints.effort_limit`, the servo's stall torque: that servo cannot drive "
                  "it at this link mass and length (it needs a stronger servo, lighter links or another step time)."]
    return "\n".join(lines)


def _plot_lines(rows: list[StudyRow], x_of, group_of, x_label: str, group_label: str, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for g in sorted({group_of(r) for r in rows}):
        sel = sorted((r for r in rows if group_of(r) == g), key=x_of)
        xs = [x_of(r) for r in sel if r.feasible]
        ys = [r.cycle_effort for r in sel if r.feasible]
        ax.plot(xs, ys, "o-", label=f"{group_label} = {g:g}")
        bad = [x_of(r) for r in sel if not r.feasible]
        if bad:
            ax.plot(bad, [0.0] * len(bad), "rx", label="infeasible" if g == sorted({group_of(r) for r in rows})[0]
                    else None)
    ax.set_xlabel(x_label)
    ax.set_ylabel("effort per cycle J [N²·m²·s]")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, 120)


def write_figures(rows: list[StudyRow], cycles: dict, out: Path) -> list[Path]:
    made = []
    base_l, base_m = rows[0].link_length, rows[0].mass
    sel = [r for r in rows if r.link_length == base_l and r.mass == base_m]
    specs = [("effort_vs_angle.png", lambda r: r.angle_deg, lambda r: r.step_time, "gait angle α [°]", "T [s]",
              "Effort vs gait angle (003 Figs. 4.8, 4.10)", sel),
             ("effort_vs_step_time.png", lambda r: r.step_time, lambda r: r.angle_deg, "gait step time T [s]",
              "α [°]", "Effort vs step time (003 Fig. 4.6)", sel),
             ("effort_vs_speed.png", lambda r: 100 * r.speed, lambda r: r.step_time, "average speed [cm/s] (Eq. 4.1)",
              "T [s]", "Effort vs speed (003 Figs. 4.7, 4.9, 4.11)", sel)]
    if len({r.link_length for r in rows}) > 1:
        specs.append(("effort_vs_length.png", lambda r: r.link_length, lambda r: r.angle_deg, "link length l [m]",
                      "α [°]", "Effort vs link length (003 Fig. 4.12)",
                      [r for r in rows if r.mass == base_m and r.step_time == rows[0].step_time]))
    if len({r.mass for r in rows}) > 1:
        specs.append(("effort_vs_mass.png", lambda r: r.mass, lambda r: r.angle_deg, "link mass m [kg]", "α [°]",
                      "Effort vs link mass (003 Fig. 4.14)",
                      [r for r in rows if r.link_length == base_l and r.step_time == rows[0].step_time]))
    for name, x_of, g_of, xl, gl, title, subset in specs:
        _plot_lines(subset, x_of, g_of, xl, gl, title, out / name)
        made.append(out / name)
    feasible = [r for r in rows if r.feasible]
    if feasible:
        best = min(feasible, key=lambda r: r.cycle_effort)
        plot_cycle(cycles[(best.angle_deg, best.step_time, best.link_length, best.mass)], out / "cycle.png")
        made.append(out / "cycle.png")
    return made


def plot_cycle(cyc: CycleResult, path: Path) -> None:
    """Joint angles (ours, tail → head), driven torques and F_R over one cycle (003 Figs. 3.16–3.28)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = cyc.series()
    n_joints = series.alpha.shape[1]
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    for k in range(1, len(cyc.steps) + 1):
        sel = series.step == k
        t = series.t[sel]
        for j in range(n_joints):
            axes[0].plot(t, np.degrees(series.alpha[sel, j]), color=f"C{j}", label=f"joint {j + 1}" if k == 1 else None)
            axes[1].plot(t, series.tau[sel, j], color=f"C{j}")
        axes[2].plot(t, series.normal_force[sel], color="k")
        for ax in axes:
            ax.axvline(t[0], color="0.8", lw=0.8)
    axes[0].set_ylabel("joint angle [°]")
    axes[0].legend(fontsize=7, ncol=n_joints, title="tail → head", title_fontsize=7)
    axes[1].set_ylabel("joint torque [N·m]")
    axes[2].set_ylabel("contact normal force F_R [N]")
    axes[2].set_xlabel("time [s] (steps separated by grey lines)")
    axes[0].set_title(f"Optimised rectilinear cycle: α = {math.degrees(cyc.alpha):g}°, T = {cyc.model.step_time:g} s, "
                      f"J = {cyc.effort:.3e} N²m²s")
    fig.tight_layout()
    save_figure(fig, path, 120)


def best_gait(rows: list[StudyRow], cycles: dict) -> dict | None:
    """The lowest-effort feasible setting as ``gait.*`` parameters (C per mechanism of its first occurrence)."""
    feasible = [r for r in rows if r.feasible]
    if not feasible:
        return None
    best = min(feasible, key=lambda r: r.cycle_effort)
    cyc = cycles[(best.angle_deg, best.step_time, best.link_length, best.mass)]
    points: dict[str, list] = {}
    for s, r in zip(cyc.steps, cyc.results, strict=True):
        if not s.reversed:  # the gait runs the forward mechanisms' C backwards in the mirrored steps
            points.setdefault(s.kind, np.round(r.free, 6).tolist())
    return {"type": "rectilinear", "angle": float(cyc.alpha), "step_time": best.step_time, "control_points": points}


def write_study(rows: list[StudyRow], cycles: dict, out: Path) -> tuple[list[Path], dict | None]:
    """study.csv, study.md, the figures and, if a setting is feasible, best_gait.yaml (``gait:``) in ``out``;
    returns (figures, the lowest-effort gait or None)."""
    out.mkdir(parents=True, exist_ok=True)
    write_tables(rows, out)
    figures = write_figures(rows, cycles, out)
    gait = best_gait(rows, cycles)
    if gait is not None:
        (out / "best_gait.yaml").write_text(yaml.safe_dump({"gait": gait}, sort_keys=False), encoding="utf-8")
    return figures, gait
