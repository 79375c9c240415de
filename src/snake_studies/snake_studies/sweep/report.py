"""``report.md`` and the figure of a sweep: one summary field and the success rate per cell (over its seeds).

The field is ``time_to_climb_s`` where the world has something to climb (``climbed`` is not null) and
``average_speed_mps`` otherwise, or any numeric field of summary.json. A run succeeds if its status is ``ok``
and, on a world with something to climb, it climbed. The figure is a line plot over one swept key or a heat
map over two (a scatter where a key is drawn at random); with more keys the report has the table only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from snake_sim.outputs.output_folder import save_figure, write_text

from .cells import SweepSpec

#: Rows of failed runs listed in the report.
FAILED_LISTED = 20


def climbs(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the runs' world has something to climb (some run's ``climbed`` is not null)."""
    return any(r.get("climbed") is not None for r in rows)


def default_field(rows: Sequence[dict[str, Any]]) -> str:
    """``time_to_climb_s`` where some run climbed, else ``average_speed_mps`` (the figure is never empty for want
    of a climber; the report says so)."""
    climbed = any(math.isfinite(_numeric(r.get("time_to_climb_s"))) for r in rows)
    return "time_to_climb_s" if climbs(rows) and climbed else "average_speed_mps"


def _numeric(value: Any) -> float:
    """A field's value as a float (True = 1); NaN if missing or not a number."""
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else math.nan


def cell_stats(spec: SweepSpec, rows: Sequence[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    """Per cell (swept values, over its seeds): runs, failed, success rate, mean/min/max of ``field``."""
    climbing = climbs(rows)
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(r.get(k) for k in spec.swept), []).append(r)
    stats = []
    for values, group in groups.items():
        ok = [r for r in group if r["status"] == "ok"]
        success = [r for r in ok if not climbing or r.get("climbed") is True]
        v = np.array([_numeric(r.get(field)) for r in group])
        finite = v[np.isfinite(v)]
        stats.append({"values": values, "runs": len(group), "failed": len(group) - len(ok),
                      "success_rate": len(success) / len(group),
                      "mean": float(finite.mean()) if finite.size else math.nan,
                      "min": float(finite.min()) if finite.size else math.nan,
                      "max": float(finite.max()) if finite.size else math.nan})
    return stats


def _levels(values: Sequence[Any]) -> list[Any]:
    """The distinct values of a key: ascending if numbers, in order of appearance otherwise."""
    distinct = list(dict.fromkeys(values))
    return sorted(distinct) if all(isinstance(v, (int, float)) for v in distinct) else distinct


def _label(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def plot(spec: SweepSpec, stats: list[dict[str, Any]], field: str, path: Path) -> Path | None:
    """The figure of ``field`` and the success rate over the swept keys; None for none or more than two."""
    keys = spec.swept
    if not 1 <= len(keys) <= 2 or not stats:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panels = ((axes[0], "mean", f"{field} (mean over seeds)"), (axes[1], "success_rate", "success rate"))
    columns = [[s["values"][i] for s in stats] for i in range(len(keys))]
    if len(keys) == 1:
        xs = _levels(columns[0])
        at = {x: next(s for s in stats if s["values"][0] == x) for x in xs}
        numeric = all(isinstance(x, (int, float)) for x in xs)
        pos = np.array(xs, dtype=float) if numeric else np.arange(len(xs), dtype=float)
        for ax, what, title in panels:
            ax.plot(pos, [at[x][what] for x in xs], "o" if spec.random else "o-", ms=4)
            if what == "mean":
                ax.vlines(pos, [at[x]["min"] for x in xs], [at[x]["max"] for x in xs], color="C0", alpha=0.4,
                          label="min–max over seeds")
            if not numeric:
                ax.set_xticks(pos, [_label(x) for x in xs])
            if what == "success_rate":
                ax.set_ylim(-0.05, 1.05)
            ax.set_xlabel(keys[0])
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3)
    elif not spec.random:  # two grid keys: heat map
        xs, ys = (_levels(c) for c in columns)
        for ax, what, title in panels:
            z = np.full((len(ys), len(xs)), np.nan)
            for s in stats:
                z[ys.index(s["values"][1]), xs.index(s["values"][0])] = s[what]
            limits = {"vmin": 0.0, "vmax": 1.0} if what == "success_rate" else {}
            image = ax.imshow(z, origin="lower", aspect="auto", cmap="viridis", **limits)
            fig.colorbar(image, ax=ax)
            for (i, j), v in np.ndenumerate(z):
                dark = not np.isnan(v) and image.norm(v) < 0.6
                ax.text(j, i, "–" if np.isnan(v) else f"{v:.3g}", ha="center", va="center", fontsize=8,
                        color="w" if dark else "k")
            ax.set_xticks(range(len(xs)), [_label(x) for x in xs])
            ax.set_yticks(range(len(ys)), [_label(y) for y in ys])
            ax.set_xlabel(keys[0])
            ax.set_ylabel(keys[1])
            ax.set_title(title, fontsize=10)
    else:  # a key drawn at random: scatter
        for ax, what, title in panels:
            limits = {"vmin": 0.0, "vmax": 1.0} if what == "success_rate" else {}
            sc = ax.scatter(*(np.array([_numeric(v) for v in c]) for c in columns), c=[s[what] for s in stats],
                            cmap="viridis", s=30, **limits)
            fig.colorbar(sc, ax=ax)
            ax.set_xlabel(keys[0])
            ax.set_ylabel(keys[1])
            ax.set_title(title, fontsize=10)
    if all(math.isnan(s["mean"]) for s in stats):  # say why the panel is empty rather than leave it blank
        axes[0].text(0.5, 0.5, f"no run has a value of {field}", transform=axes[0].transAxes, ha="center",
                     va="center", fontsize=11, color="C3")
    fig.suptitle(f"{spec.scenario}: {field}", fontsize=11)
    fig.tight_layout()
    save_figure(fig, path, 110)
    return path


def _cell_text(value: Any) -> str:
    return "–" if isinstance(value, float) and math.isnan(value) else _label(value)


def write_report(out: Path, spec: SweepSpec, rows: Sequence[dict[str, Any]], planned: int, field: str
                 ) -> list[Path]:
    """``out/report.md`` and ``out/sweep.png`` (if one or two keys are swept) from the rows of the sweep's cells."""
    stats = sorted(cell_stats(spec, rows, field), key=lambda s: [
        (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v)) for v in s["values"]])
    figure = plot(spec, stats, field, out / "sweep.png")
    by_status: dict[str, int] = {}
    for r in rows:
        by_status[r["status"]] = by_status.get(r["status"], 0) + 1
    success = ("its status is `ok` and it climbed (`climbed` is true)" if climbs(rows) else "its status is `ok`")
    lines = [f"# Sweep of `{spec.scenario}`", "",
             "Swept: " + ("; ".join([f"`{k}` ∈ {{{', '.join(v)}}}" for k, v in spec.grid]
                                   + [f"`{r.key}` uniform in [{r.low:g}, {r.high:g}]" for r in spec.random])
                          or "nothing") + (f" ({spec.samples} random samples)" if spec.random else "") + ".",
             f"Seeds per cell: {spec.seeds or 1}" + (" (snake_studies.sweep.cells: perturbation or start seeds)"
                                                     if spec.seeds else "") + ".",
             "Fixed: " + (", ".join(f"`{s}`" for s in spec.sets) or "the scenario as written") + ".", "",
             f"Runs: {planned} planned, {len(rows)} in results.csv ("
             + ", ".join(f"{n} {s}" for s, n in sorted(by_status.items())) + ")"
             + ("." if len(rows) >= planned else f"; {planned - len(rows)} missing: run again with --resume."),
             f"A run succeeds if {success}. Field: `{field}`, over the seeds of a cell."
             + (" No run climbed, so `time_to_climb_s` has no value: the field shown is the average speed."
                if climbs(rows) and field == default_field(rows) == "average_speed_mps" else ""), ""]
    if figure is not None:
        lines += [f"![{field} and success rate]({figure.name})", ""]
    head = [*spec.swept, "runs", "failed", "success rate", f"mean {field}", "min", "max"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in stats:
        cells = [*(_cell_text(v) for v in s["values"]), str(s["runs"]), str(s["failed"]),
                 f"{100 * s['success_rate']:.0f} %", *(_cell_text(s[k]) for k in ("mean", "min", "max"))]
        lines.append("| " + " | ".join(cells) + " |")
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        lines += ["", f"## Failed runs ({len(failed)})", "", "| cell | seed | status | message |", "|---|---|---|---|"]
        for r in failed[:FAILED_LISTED]:
            message = (r.get("message") or "").replace("|", "/")
            lines.append(f"| {r['cell']} | {r.get('seed', '')} | {r['status']} | {message} |")
        if len(failed) > FAILED_LISTED:
            lines.append(f"\n… and {len(failed) - FAILED_LISTED} more in results.csv.")
    write_text(out / "report.md", "\n".join(lines) + "\n")
    return [out / "report.md", *([figure] if figure else [])]
