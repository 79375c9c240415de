"""One summary of a test run made of several pytest runs (``make test``: the tests beside each other, then the
real-time ones alone), from their JUnit XML files, in pytest's own words: the failures and errors, the skip
reasons with their counts, and a last line such as ``==== 2 failed, 1280 passed, 21 skipped in 612.30s ====``
(what a CI reads as the run's result)::

    python -m snake_test_support.summary main.xml=0 real_time.xml=1

Each argument is a JUnit XML file written with ``-o junit_family=xunit1`` (test cases carry their file) and the exit
status of the pytest run that wrote it. A run that ended without its file, or with a status that is not a test
outcome (interrupted, internal or usage error), is counted as an error naming the run. The exit status is 1 if
anything failed or erred, else 0.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: pytest's exit statuses that report test outcomes (ExitCode.OK, TESTS_FAILED, NO_TESTS_COLLECTED).
OUTCOME_STATUSES = (0, 1, 5)
#: The width of pytest's separator lines.
WIDTH = 80


@dataclass
class Summary:
    passed: int = 0
    seconds: float = 0.0
    failed: list[str] = field(default_factory=list)  # "path::test - message"
    errors: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason → count

    def add_run(self, path: Path, status: int) -> None:
        """The outcomes of the JUnit XML file ``path`` of a pytest run that exited with ``status``."""
        if not path.is_file():
            self.errors.append(f"{path.stem}: the pytest run ended with status {status} and wrote no results")
            return
        if status not in OUTCOME_STATUSES:
            self.errors.append(f"{path.stem}: the pytest run ended with status {status} (interrupted or an error "
                               "of pytest): its results are partial")
        root = ET.parse(path).getroot()
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
        for suite in suites:
            self.seconds += float(suite.get("time", 0.0))
            for case in suite.iter("testcase"):
                self._add_case(case)

    def _add_case(self, case: ET.Element) -> None:
        name = f"{case.get('file') or case.get('classname', '')}::{case.get('name')}"
        outcomes = {child.tag: child for child in case if child.tag in ("failure", "error", "skipped")}
        if "failure" in outcomes:
            self.failed.append(f"{name} - {first_line(outcomes['failure'].get('message', ''))}")
        elif "error" in outcomes:
            self.errors.append(f"{name} - {first_line(outcomes['error'].get('message', ''))}")
        elif "skipped" in outcomes:
            self.skipped[first_line(outcomes["skipped"].get("message", ""))] += 1
        else:
            self.passed += 1

    @property
    def ok(self) -> bool:
        return not self.failed and not self.errors

    def lines(self) -> list[str]:
        """The short summary and the last line, as pytest writes them."""
        out = [" short test summary info (all runs) ".center(WIDTH, "=")]
        out += [f"FAILED {f}" for f in self.failed] + [f"ERROR {e}" for e in self.errors]
        out += [f"SKIPPED [{n}] {reason}" for reason, n in sorted(self.skipped.items())]
        counts = [(len(self.failed), "failed"), (self.passed, "passed"), (sum(self.skipped.values()), "skipped"),
                  (len(self.errors), "errors" if len(self.errors) > 1 else "error")]
        parts = ", ".join(f"{n} {what}" for n, what in counts if n) or "no tests ran"
        out.append(f" {parts} in {self.seconds:.2f}s ".center(WIDTH, "="))
        return out


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def main(args: Sequence[str] | None = None) -> int:
    summary = Summary()
    for arg in sys.argv[1:] if args is None else args:
        path, _, status = arg.rpartition("=")
        if not path or not status.lstrip("-").isdigit():
            print(f"summary: error: {arg!r} is not FILE=STATUS", file=sys.stderr)
            return 2
        summary.add_run(Path(path), int(status))
    print("\n".join(summary.lines()))
    return 0 if summary.ok else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
