"""001's studies (pushing an object, slippage ratio) behind ``snake-sim pushing study | check | analyse``.

:func:`run_study` reproduces 001's two case studies. Case study 1 (two joints, 001 Table 1, κ = 100): the
norms ‖a⃗_obj‖², ‖q̈⃗_s‖² and sr over the input region (31) at q_s = (0, 0, 0, −135°, −135°), for the
three scenarios (001 Fig. 4), sr for several κ (Fig. 4c), and the extremes over the 784
configurations of the [−135°, 135°] / 10° grid. Case study 2 (three joints, 21 952 configurations):
‖λ⃗‖², ‖a⃗_obj‖² and sr against the polar coordinates (|COM|, ∠COM) (Fig. 5), the best and worst
configurations (Fig. 6) and Table 2. Writes to a folder: ``fig4_case1.png``, ``fig4c_kappa.png``,
``fig5_polar.png``, ``fig6_configurations.png``, ``table2.md`` (ours beside 001's), ``table2.csv``,
``study.json``. Each configuration is scored by :data:`snake_core.pushing.study.REDUCTION`.

:func:`run_check` pushes the box of ``worlds/pushing.sdf`` in the dynamic simulation of
:mod:`snake_sim.engines.pushing.plant` and compares the initial accelerations with the analysis
(``check.json``, ``check.png``). :func:`analyse` answers for one shape (and optionally one input).
"""

from __future__ import annotations

import csv
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from snake_core.pushing import PushingModel, Scenario, build_model
from snake_core.pushing.constraints import object_pose
from snake_core.pushing.kinematics import centre_of_mass, com_polar, joint_points, link_point
from snake_core.pushing.model import KAPPA_FIG4
from snake_core.pushing.response import respond
from snake_core.pushing.study import (
    REDUCTION,
    SAMPLE_RADII,
    Extremes,
    angle_grid,
    configurations,
    extremes,
    input_ellipse_grid,
)
from snake_core.validation import ConfigError, integer, number, positive
from snake_sim.engines.pushing.plant import (
    CONTACT_STIFFNESS,
    FIT_WINDOW,
    WHEEL_DAMPING,
    Comparison,
    compare,
    pushing_world,
)

#: 001 Table 2 "Results of the norms" (case study 2), per scenario 1, 2, 3.
PAPER_TABLE2 = {
    "worst a_obj": (0.000763215, 0.00107454, 0.00107454),
    "best a_obj": (0.00785302, 0.00861168, 0.00861168),
    "worst sr": (0.00138484, 0.00185713, 0.00185098),
    "best sr": (0.0267348, 0.988638, 0.988643),
}
#: 001 Fig. 4 configuration.
FIG4_Q = np.array([0.0, 0.0, 0.0, np.radians(-135.0), np.radians(-135.0)])
#: 001 Fig. 4c shows "several values of κ" without listing them.
FIG4C_KAPPAS = (1.0, 10.0, 100.0, 1000.0)
#: --fast: a coarser grid and fewer samples (smoke runs; numbers not for the docs).
FAST_STEP_DEG = 30.0
FAST_DIRECTIONS = 16
HEATMAP_POINTS = 101
#: Default configuration of ``pushing check``: the body bends away from the box (no other link touches it).
CHECK_JOINTS_DEG = (-60.0, -60.0)
SCENARIO_LABEL = {Scenario.NO_FRICTION: "Scenario 1 (no friction)", Scenario.BOUNDED_WHEELS:
                  "Scenario 2 (wheels, μ_s bound)", Scenario.IDEAL_WHEELS: "Scenario 3 (ideal wheels)"}


@dataclass(frozen=True)
class Settings:
    kappa: float
    step_deg: float
    limit_deg: float
    directions: int
    params: tuple[tuple[str, object], ...] = ()  # model overrides (--param)

    def __post_init__(self) -> None:
        positive(self.kappa, "--kappa")
        number(self.step_deg, "--step-deg", low=0.5, high=90.0)
        number(self.limit_deg, "--limit-deg", low=0.0, high=180.0)
        integer(self.directions, "--directions", low=4, high=4096)
        self.model(2)  # validate the overrides before anything runs

    def model(self, n_joints: int) -> PushingModel:
        """The case-study model: 001 Table 1 with κ and the --param overrides."""
        return build_model(n_joints, fields={**dict(self.params), "kappa": self.kappa}, source="--param", path="")


@dataclass(frozen=True)
class CaseResult:
    """Per-configuration extremes of every scenario on a joint-angle grid."""

    model: PushingModel
    q: np.ndarray  # (C, n_s)
    com_r: np.ndarray  # |COM| (C,)
    com_angle: np.ndarray  # ∠COM (C,) rad
    by_scenario: dict[Scenario, Extremes]

    def table(self) -> dict[str, tuple[float, float, float]]:
        """Table 2's rows: best/worst over configurations of the per-configuration maxima."""
        ex = [self.by_scenario[s] for s in Scenario]
        return {"worst a_obj": tuple(float(e.a_obj_sq.min()) for e in ex),
                "best a_obj": tuple(float(e.a_obj_sq.max()) for e in ex),
                "worst sr": tuple(float(e.sr.min()) for e in ex),
                "best sr": tuple(float(e.sr.max()) for e in ex)}


def run_case(model: PushingModel, settings: Settings, progress: bool = True) -> CaseResult:
    """Extremes of the three scenarios over the joint grid of ``settings``."""
    q = configurations(angle_grid(model.n_joints, settings.limit_deg, settings.step_deg))
    r, ang = com_polar(model, q)
    out = {}
    with tqdm(total=3 * len(q), desc=f"{model.n_joints} joints", unit="cfg", disable=not progress) as bar:
        for scenario in Scenario:
            out[scenario] = extremes(model, q, scenario, directions=settings.directions, progress=bar.update)
    return CaseResult(model, q, r, ang, out)


def table_markdown(ours: dict[str, tuple[float, float, float]], n_configs: int, settings: Settings) -> str:
    lines = ["| Concept | Scenario 1 (001) | Scenario 1 (ours) | Scenario 2 (001) | Scenario 2 (ours) | "
             "Scenario 3 (001) | Scenario 3 (ours) |", "|---|---|---|---|---|---|---|"]
    for key, paper in PAPER_TABLE2.items():
        label = key.replace("a_obj", "‖a_obj‖²")
        cells = " | ".join(f"{p:.6g} | {o:.6g}" for p, o in zip(paper, ours[key], strict=True))
        lines.append(f"| {label} | {cells} |")
    lines.append("")
    lines.append(f"Settings: 3 joints, 001 Table 1 (m = 1 kg, ℓ = 0.15 m, I = 0.002 kg m², μ_s = 0.1, g = 9.81), "
                 f"κ = {settings.kappa:g}, joint angles [−{settings.limit_deg:g}°, {settings.limit_deg:g}°] every "
                 f"{settings.step_deg:g}° ({n_configs} configurations), contact at the middle of link 1 (tail) "
                 "with the normal perpendicular to it, wheels at the other links' centres. Each configuration is "
                 f"scored by the {REDUCTION}: closed form in Scenarios 1 and 3, sampled in Scenario 2 "
                 f"({settings.directions} directions × radii {', '.join(f'{r:g}' for r in SAMPLE_RADII)} of the "
                 "boundary, plus the Scenario 3 maximisers)."
                 + ("" if not settings.params else " Model overrides: "
                    + ", ".join(f"{k} = {v}" for k, v in settings.params) + "."))
    return "\n".join(lines)


def fig4_heatmaps(path: Path, model: PushingModel) -> dict[str, list[float]]:
    """001 Fig. 4: norms over the input plane at FIG4_Q; returns the maxima per scenario."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t1, t2, tau, inside = input_ellipse_grid(model, FIG4_Q, HEATMAP_POINTS)
    fig, axes = plt.subplots(3, 3, figsize=(13, 11), constrained_layout=True)
    maxima: dict[str, list[float]] = {"a_obj_sq": [], "qdd_sq": [], "sr": []}
    extent = (t1[0], t1[-1], t2[0], t2[-1])
    for col, scenario in enumerate(Scenario):
        res = respond(model, FIG4_Q, tau[inside], scenario)
        fields = {"a_obj_sq": res.a_obj_sq, "qdd_sq": res.qdd_sq, "sr": res.sr}
        for row, (key, label) in enumerate((("a_obj_sq", "‖a_obj‖²"), ("qdd_sq", "‖q̈_s‖²"), ("sr", "sr"))):
            grid = np.full(len(tau), np.nan)
            grid[inside] = fields[key]
            maxima[key].append(float(np.nanmax(fields[key])))
            ax = axes[row, col]
            lost = np.full(len(tau), np.nan)
            lost[inside] = np.where(res.contact, np.nan, 1.0)
            ax.imshow(lost.reshape(len(t2), len(t1)), origin="lower", extent=extent, cmap="Greys", vmin=0, vmax=3,
                      aspect="auto")
            im = ax.imshow(grid.reshape(len(t2), len(t1)), origin="lower", extent=extent, cmap="viridis",
                           aspect="auto", vmin=0.0, vmax=1.0 if key == "sr" else None)
            fig.colorbar(im, ax=ax, shrink=0.8)
            ax.set_title(f"{label}: {SCENARIO_LABEL[scenario]}", fontsize=9)
            ax.set_xlabel("τ₁ [N·m]")
            ax.set_ylabel("τ₂ [N·m]")
    fig.suptitle(f"001 Fig. 4: two joints, q_s = (0, 0, 0, −135°, −135°), κ = {model.kappa:g}; input region (31); "
                 "grey: contact lost (001: sr → 0)")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return maxima


def fig4c_kappa(path: Path, model: PushingModel) -> None:
    """001 Fig. 4c: sr over the input plane for several κ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(FIG4C_KAPPAS), 3, figsize=(12, 3.2 * len(FIG4C_KAPPAS)), constrained_layout=True)
    for row, kappa in enumerate(FIG4C_KAPPAS):
        m = dataclasses.replace(model, kappa=kappa)
        t1, t2, tau, inside = input_ellipse_grid(m, FIG4_Q, HEATMAP_POINTS)
        for col, scenario in enumerate(Scenario):
            grid = np.full(len(tau), np.nan)
            grid[inside] = respond(m, FIG4_Q, tau[inside], scenario).sr
            ax = axes[row, col]
            im = ax.imshow(grid.reshape(len(t2), len(t1)), origin="lower", extent=(t1[0], t1[-1], t2[0], t2[-1]),
                           cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
            ax.set_title(f"sr, κ = {kappa:g}: {SCENARIO_LABEL[scenario]}", fontsize=9)
            ax.set_xlabel("τ₁ [N·m]")
            ax.set_ylabel("τ₂ [N·m]")
    fig.colorbar(im, ax=axes, shrink=0.6)
    fig.suptitle("001 Fig. 4c: slippage ratio for several κ (blank: contact lost or outside (31))")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def fig5_polar(path: Path, case: CaseResult) -> None:
    """001 Fig. 5: ‖λ‖², ‖a_obj‖², sr against (|COM|, ∠COM)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 3, figsize=(13, 13), subplot_kw={"projection": "polar"}, constrained_layout=True)
    for col, scenario in enumerate(Scenario):
        ex = case.by_scenario[scenario]
        for row, (values, label) in enumerate(((ex.lam_sq, "‖λ‖²"), (ex.a_obj_sq, "‖a_obj‖²"), (ex.sr, "sr"))):
            ax = axes[row, col]
            order = np.argsort(values)
            sc = ax.scatter(case.com_angle[order], case.com_r[order], c=values[order], s=3, cmap="viridis")
            fig.colorbar(sc, ax=ax, shrink=0.7)
            ax.set_title(f"{label}: {SCENARIO_LABEL[scenario]}", fontsize=9)
    fig.suptitle(f"001 Fig. 5: {case.model.n_joints} joints, {len(case.q)} configurations; angle ∠COM from the "
                 f"contact link, radius |COM| [m]; each point the {REDUCTION}")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _draw(ax, model: PushingModel, q: np.ndarray, title: str) -> None:
    pts = joint_points(model, q)
    ax.plot(pts[:, 0], pts[:, 1], "-o", lw=4, ms=4, color="tab:green")
    ax.plot(*pts[0], "s", color="k", ms=6)  # tail
    c, psi = object_pose(model, q)
    half = model.object_offset[0]
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]) * half
    rot = np.array([[np.cos(psi), -np.sin(psi)], [np.sin(psi), np.cos(psi)]])
    box = corners @ rot.T + c
    ax.fill(box[:, 0], box[:, 1], color="tab:brown", alpha=0.4)
    p_c = link_point(model, q, model.contact_link, model.contact_position)
    com = centre_of_mass(model, q)
    ax.plot(*p_c, "r*", ms=10)
    ax.annotate("", xy=com, xytext=p_c, arrowprops={"arrowstyle": "->", "color": "tab:blue"})
    ax.plot(*com, "o", color="tab:blue")
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=8)
    ax.axis("off")


def fig6_configurations(path: Path, case: CaseResult) -> dict[str, dict[str, list[float]]]:
    """001 Fig. 6: best and worst configurations for ‖a_obj‖² and sr; returns their joint angles [deg]."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    picks: dict[str, dict[str, list[float]]] = {}
    fig, axes = plt.subplots(3, 4, figsize=(14, 10), constrained_layout=True)
    for row, scenario in enumerate(Scenario):
        ex = case.by_scenario[scenario]
        chosen = {"best a_obj": (np.argmax(ex.a_obj_sq), ex.a_obj_sq), "worst a_obj": (np.argmin(ex.a_obj_sq),
                  ex.a_obj_sq), "best sr": (np.argmax(ex.sr), ex.sr), "worst sr": (np.argmin(ex.sr), ex.sr)}
        picks[SCENARIO_LABEL[scenario]] = {}
        for col, (name, (k, values)) in enumerate(chosen.items()):
            phi = np.degrees(case.q[k, 3:])
            picks[SCENARIO_LABEL[scenario]][name] = [round(float(v), 3) for v in phi]
            _draw(axes[row, col], case.model, case.q[k],
                  f"{SCENARIO_LABEL[scenario]}\n{name} = {values[k]:.4g}; φ = {np.round(phi).astype(int).tolist()}°\n"
                  f"|COM| = {case.com_r[k]:.3f} m, ∠COM = {np.degrees(case.com_angle[k]):.0f}°")
    fig.suptitle("001 Fig. 6: best/worst configurations (tail ■, contact ★, COM ●, object in brown)")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return picks


def run_study(out: Path, settings: Settings, progress: bool = True) -> dict:
    """Both case studies; writes figures and tables to ``out`` and returns the numbers."""
    out.mkdir(parents=True, exist_ok=True)
    two = settings.model(2)
    three = settings.model(3)
    fig4 = fig4_heatmaps(out / "fig4_case1.png", two)
    fig4c_kappa(out / "fig4c_kappa.png", two)
    case1 = run_case(two, settings, progress)
    case2 = run_case(three, settings, progress)
    fig5_polar(out / "fig5_polar.png", case2)
    picks = fig6_configurations(out / "fig6_configurations.png", case2)
    table = case2.table()
    (out / "table2.md").write_text("# 001 Table 2, ours beside the paper's\n\n"
                                   + table_markdown(table, len(case2.q), settings) + "\n", encoding="utf-8")
    with (out / "table2.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["concept", *(f"{src} scenario {s}" for s in (1, 2, 3) for src in ("001", "ours"))])
        for key, paper in PAPER_TABLE2.items():
            w.writerow([key, *(v for p, o in zip(paper, table[key], strict=True) for v in (p, o))])
    polar_corr = float(np.corrcoef(case2.by_scenario[Scenario.NO_FRICTION].a_obj_sq,
                                   np.abs(np.sin(case2.com_angle)))[0, 1])
    summary = {
        "settings": {**settings.__dict__, "reduction": REDUCTION, "model": {k: v for k, v in three.__dict__.items()
                                                                          if k != "n_joints"}},
        "case1": {"fig4_q_deg": np.degrees(FIG4_Q[3:]).tolist(), "fig4_maxima": fig4, "configurations": len(case1.q),
                  "table": case1.table()},
        "case2": {"configurations": len(case2.q), "table2": table, "paper_table2": PAPER_TABLE2,
                  "fig6_joint_angles_deg": picks, "corr_a_obj_sin_com_angle_scenario1": polar_corr},
    }
    (out / "study.json").write_text(json.dumps(summary, indent=2, default=float) + "\n", encoding="utf-8")
    return summary


def run_check(out: Path, joints_deg: list[float], tau: list[float] | None = None, scale: float = 1.0,
              stiffness: float = CONTACT_STIFFNESS, wheel_damping: float = WHEEL_DAMPING) -> list[dict]:
    """Simulate the three scenarios and write ``check.json`` and ``check.png`` to ``out``."""
    n_a = len(joints_deg)
    integer(n_a, "--joints-deg (count)", low=1, high=8)
    phi = np.radians([number(v, f"--joints-deg[{i}]", low=-180.0, high=180.0) for i, v in enumerate(joints_deg)])
    number(scale, "--scale", low=0.0, low_open=True)
    if tau is not None and (len(tau) != n_a or not any(tau)):
        raise ConfigError("--tau", tau, f"must be {n_a} numbers (one per joint of --joints-deg), not all zero")
    world = pushing_world(n_a)
    q0 = configurations(phi)[0]
    rows, comps = [], []
    for scenario in Scenario:
        t = (np.asarray(tau, dtype=float) if tau is not None
             else extremes(world.model, q0[None], Scenario.IDEAL_WHEELS).tau_a_obj[0]) * scale
        comp: Comparison = compare(world, q0, t, scenario, stiffness=stiffness, wheel_damping=wheel_damping)
        comps.append(comp)
        rows.append({"scenario": int(scenario), "tau": t.tolist(), "a_obj_analysis": comp.analysis.a_obj.tolist(),
                     "a_obj_sim": comp.a_obj_sim.tolist(), "qdd_analysis": comp.analysis.qdd.tolist(),
                     "qdd_sim": comp.qdd_sim.tolist(), "a_obj_rel_error": comp.a_obj_error,
                     "qdd_rel_error": comp.qdd_error, "sr_analysis": comp.analysis.sr, "sr_sim": comp.sr_sim,
                     "wheels_sliding": comp.analysis.slip.tolist(),
                     "contact_force_end_N": float(comp.trajectory.contact_force[-1])})
    out.mkdir(parents=True, exist_ok=True)
    settings = {"joints_deg": list(joints_deg), "world": "worlds/pushing.sdf", "model": world.model.__dict__,
                "contact_stiffness": stiffness, "wheel_damping": wheel_damping, "fit_window_s": FIT_WINDOW}
    (out / "check.json").write_text(json.dumps({"settings": settings, "scenarios": rows}, indent=2, default=float)
                                    + "\n", encoding="utf-8")
    _check_plot(out / "check.png", comps)
    return rows


def _check_plot(path: Path, comps: list[Comparison]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, len(comps), figsize=(5 * len(comps), 9), constrained_layout=True, squeeze=False)
    for col, comp in enumerate(comps):
        tr = comp.trajectory
        t_ms = tr.t * 1e3
        a_lin = comp.analysis.a_obj[:2]
        k0 = int(np.searchsorted(tr.t, FIT_WINDOW[0]))  # analysis slopes drawn through the simulation there
        ax = axes[0, col]
        speed = tr.box_v[:, :2] @ (a_lin / max(np.linalg.norm(a_lin), 1e-300))
        ax.plot(t_ms, speed, label="simulation")
        ax.plot(t_ms, speed[k0] + (tr.t - tr.t[k0]) * np.linalg.norm(a_lin), "--", label="analysis (001 (21))")
        ax.set_title(f"{SCENARIO_LABEL[comp.scenario]}\nobject speed along a_obj (error {comp.a_obj_error:.2%})",
                     fontsize=9)
        ax.set_ylabel("m/s")
        ax.legend(fontsize=8)
        ax = axes[1, col]
        for k in range(tr.v.shape[1]):
            line, = ax.plot(t_ms, tr.v[:, k], label=f"q̇_{k + 1}")
            ax.plot(t_ms, tr.v[k0, k] + (tr.t - tr.t[k0]) * comp.analysis.qdd[k], "--", color=line.get_color())
        ax.set_title(f"snake velocities (dashed: 001 (20)); error {comp.qdd_error:.2%}", fontsize=9)
        ax.legend(fontsize=7, ncol=3)
        ax = axes[2, col]
        ax.plot(t_ms, tr.contact_force)
        ax.axvspan(FIT_WINDOW[0] * 1e3, FIT_WINDOW[1] * 1e3, color="0.9", label="fit window")
        ax.set_title(f"contact force (λ_c of 001 (17): {comp.analysis.lam[0]:.3f} N)", fontsize=9)
        ax.set_xlabel("t [ms]")
        ax.set_ylabel("N")
        ax.legend(fontsize=8)
    fig.suptitle("Pushing check: penalty-contact simulation from rest vs the rigid analysis of 001")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def analyse(joints_deg: list[float], tau: list[float] | None, kappa: float = KAPPA_FIG4,
            params: tuple[tuple[str, object], ...] = ()) -> dict:
    """001's answers for one shape: per scenario the best ‖a_obj‖² and sr over (31) with their inputs,
    and, for ``tau``, the accelerations' norms and sr (or that the contact is lost)."""
    phi = np.radians([number(v, f"--joints-deg[{i}]", low=-180.0, high=180.0) for i, v in enumerate(joints_deg)])
    model = build_model(len(phi), fields={**dict(params), "kappa": positive(kappa, "--kappa")}, source="--param",
                        path="")
    if tau is not None and len(tau) != model.n_joints:
        raise ConfigError("--tau", tau, f"must be {model.n_joints} numbers (one per joint of --joints-deg)")
    q = configurations(phi)
    r, ang = com_polar(model, q[0])
    out: dict = {"joints_deg": list(joints_deg), "com_distance_m": float(r), "com_angle_deg": float(np.degrees(ang)),
                 "kappa": model.kappa, "scenarios": {}}
    for scenario in Scenario:
        ex = extremes(model, q, scenario)
        row = {"best_a_obj_sq": float(ex.a_obj_sq[0]), "tau_best_a_obj": ex.tau_a_obj[0].tolist(),
               "best_sr": float(ex.sr[0]), "tau_best_sr": ex.tau_sr[0].tolist(), "best_lambda_sq": float(ex.lam_sq[0])}
        if tau is not None:
            res = respond(model, q[0], np.asarray(tau, dtype=float)[None], scenario)
            row["input"] = ({"contact": "lost: the input pulls the contact link away from the object"}
                            if not res.contact[0] else
                            {"contact": "held", "qdd_sq": float(res.qdd_sq[0]), "a_obj_sq": float(res.a_obj_sq[0]),
                             "sr": float(res.sr[0]), "lambda": res.lam[0].tolist(),
                             "wheels_sliding": res.slip[0].tolist()})
        out["scenarios"][SCENARIO_LABEL[scenario]] = row
    return out
