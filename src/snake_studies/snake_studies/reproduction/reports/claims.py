"""The report of section ``claims``: its Markdown, ``render(results)``, from the stored results of
:mod:`snake_studies.reproduction.experiments.claims` alone; nothing here runs a simulation.
"""

from __future__ import annotations

from snake_studies.reproduction.experiments.claims import NOT_RUN, Finding, Results

TITLE = "002's claims: one verdict per engine, traced to the stored results"

VERDICTS = ("reproduced", "explained", "inconclusive", "contradicts")


def render(results: Results) -> str:
    engines = results.settings.engines
    names = {"vertical": "vertical plane", "mujoco": "MuJoCo", "dart": "DART"}
    lines = [f"## {TITLE}", "",
             "Each claim of 002 that the sections above test, with one verdict per engine and across them. "
             "*Reproduced*: at 002's own settings every run has 002's outcome at h and at h/2 (a speed: within the "
             "pedal-wave section's order of magnitude); *explained*: not at 002's settings, but under a reading the "
             "suite brackets (the boxes' faces at another μ, another gain scale, an asymmetry 002 names) every run "
             "has it, the reading named; *inconclusive*: neither, and a run's outcome changes with the step, ends "
             "before the robot reaches the box, or only some runs have 002's outcome; *contradicts*: neither, and "
             "every run stands at h/2 with another outcome. Across engines: the common verdict, *explained* where "
             "each reproduces or explains, else *inconclusive*. Each cell names what it rests on, in the stored "
             f"results {', '.join(f'`{s}`' for s in results.sources) or '(none stored)'}.", "",
             "| section | claim | 002 | " + " | ".join(names[e] for e in engines) + " | verdict |",
             "|---|---|---|" + "---|" * len(engines) + "---|"]
    for c in results.claims:
        cells = [f"**{f.verdict}**" + (f" ({f.trace})" if f.trace else "") for f in
                 (c.findings.get(e, Finding(NOT_RUN, "")) for e in engines)]
        lines.append(f"| {c.section} | {c.claim} | {c.said_002} | " + " | ".join(cells) + f" | **{c.verdict}** |")
    counts = {v: sum(c.verdict == v for c in results.claims) for v in (*VERDICTS, NOT_RUN)}
    lines += ["", "Across engines: " + ", ".join(f"{v} {k}" for v, k in counts.items() if k) + f" of "
              f"{len(results.claims)} claims.", ""]
    return "\n".join(lines)
