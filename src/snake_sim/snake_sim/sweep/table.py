"""``results.csv``: the rows of a sweep, on disk as soon as each run finishes.

A row is appended and flushed to the disk as it arrives, so an interrupted sweep (Ctrl-C, a lost machine)
keeps every finished run; a row with a column the file has not got yet rewrites the file with the wider header
(written beside it and renamed over it, so the file on disk is always whole). Empty fields are missing values
(null in summary.json); booleans are ``True``/``False``.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

#: Columns kept as text when read back (a cell id such as ``1234e5678901`` is not a number).
TEXT_COLUMNS = ("cell", "status", "message", "worker")


def parse(text: str) -> Any:
    """A CSV field back to its value: None, bool, int, float or the string."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


class ResultsTable:
    """The rows of ``path`` (read if it exists) and the appending of new ones."""

    def __init__(self, path: Path):
        self.path = path
        self.header: list[str] = []
        self.rows: list[dict[str, Any]] = []
        if path.is_file():
            with open(path, newline="", encoding="utf-8") as fh:
                reader = csv.DictReader(fh)
                self.header = list(reader.fieldnames or [])
                self.rows = [{k: v if k in TEXT_COLUMNS else parse(v) for k, v in r.items() if v != ""} for r in reader]

    def done(self) -> set[str]:
        """Ids of the cells with a row."""
        return {r["cell"] for r in self.rows}

    def append(self, row: dict[str, Any]) -> None:
        """Add ``row`` to the file now (durably)."""
        self.rows.append(row)
        new = [k for k in row if k not in self.header]
        if new or not self.path.is_file():
            self.header += new
            tmp = self.path.with_name(self.path.name + ".tmp")
            with open(tmp, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, self.header)
                writer.writeheader()
                writer.writerows(self.rows)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            return
        with open(self.path, "a", newline="", encoding="utf-8") as fh:
            csv.DictWriter(fh, self.header).writerow(row)
            fh.flush()
            os.fsync(fh.fileno())
