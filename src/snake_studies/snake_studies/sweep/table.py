"""``results.csv``: the rows of a sweep, on disk as soon as each run finishes, and whole.

A row is one ``write`` of its whole line to the end of the file, then ``fsync``: a write that fails half way (a
full disk) cuts the file back to where it was, so the file on disk only ever holds whole rows; a row with a column
the file has not got yet rewrites the file with the wider header (written beside it and renamed over it). A process
killed within a write can still leave a partial last line (no line end): it is read as :attr:`ResultsTable.partial`
and :meth:`ResultsTable.drop_partial` cuts it off. Any other row that is not a row of the header (another number of
fields, no cell id, not CSV) is a :class:`~snake_core.validation.ConfigError` naming its line. One writer per folder:
:func:`writer_lock` holds ``results.csv.lock`` (an advisory lock the system releases when the process ends). Empty
fields are missing values (null in summary.json); booleans are ``True``/``False``.
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from snake_core.validation import ConfigError

#: Columns kept as text when read back (a cell id such as ``1234e5678901`` is not a number).
TEXT_COLUMNS = ("cell", "status", "message", "worker")
#: The CSV line end (the csv module's).
LINE_END = "\r\n"


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


@contextmanager
def writer_lock(path: Path, option: str = "--out") -> Iterator[None]:
    """Hold the one-writer lock of the table ``path`` (``<path>.lock``, its folder must exist); ConfigError if
    another process holds it."""
    lock = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a folder of that name, no permission
        raise ConfigError(option, str(path.parent), f"cannot open the lock file {lock.name} ({exc.strerror or exc})"
                          ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise ConfigError(option, str(path.parent), f"is being written by another process (pid {holder}): wait "
                              f"for it to finish or choose another folder") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _line(header: list[str], row: dict[str, Any]) -> str:
    buffer = io.StringIO()
    csv.DictWriter(buffer, header, lineterminator=LINE_END).writerow(row)
    return buffer.getvalue()


class ResultsTable:
    """The rows of ``path`` (read if it exists) and the appending of new ones."""

    def __init__(self, path: Path):
        self.path = path
        self.header: list[str] = []
        self.rows: list[dict[str, Any]] = []
        self.partial: int | None = None  # line of a partial last row (a write cut short), if any
        if path.is_file():
            self._read()

    def _read(self) -> None:
        raw = self.path.read_bytes()
        whole = raw[:raw.rfind(b"\n") + 1]
        if len(whole) < len(raw):
            self.partial = whole.count(b"\n") + 1
        try:
            text = whole.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._garbled(whole[:exc.start].count(b"\n") + 1, "not UTF-8 text")
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        line = 1  # where the record being read starts
        try:
            self.header = next(reader, [])
            if self.header and "cell" not in self.header:
                self._garbled(1, "the header has no cell column")
            line = reader.line_num + 1
            for record in reader:
                if len(record) != len(self.header):
                    self._garbled(line, f"{len(record)} fields where the header has {len(self.header)}")
                row = dict(zip(self.header, record, strict=True))
                if not row["cell"]:
                    self._garbled(line, "no cell id")
                self.rows.append({k: v if k in TEXT_COLUMNS else parse(v) for k, v in row.items() if v != ""})
                line = reader.line_num + 1
        except csv.Error as exc:
            self._garbled(line, f"not CSV ({exc})")

    def _garbled(self, line: int, why: str) -> None:
        raise ConfigError(f"{self.path.name} line {line}", str(self.path), f"garbled row: {why}; repair or delete "
                          f"that row (or the file), or choose another folder")

    def drop_partial(self) -> int | None:
        """Cut a partial last row off the file; its line (None if there was none)."""
        line, self.partial = self.partial, None
        if line is not None:
            raw = self.path.read_bytes()
            with open(self.path, "r+b") as fh:
                fh.truncate(raw.rfind(b"\n") + 1)
                os.fsync(fh.fileno())
        return line

    def done(self) -> set[str]:
        """Ids of the cells with a row."""
        return {r["cell"] for r in self.rows}

    def append(self, row: dict[str, Any]) -> None:
        """Add ``row`` to the file now (durably, whole or not at all; OSError if it cannot be written)."""
        new = [k for k in row if k not in self.header]
        if new or not self.path.is_file():
            self._rewrite([*self.header, *new], [*self.rows, row])
        else:
            self._append_line(_line(self.header, row).encode("utf-8"))
        self.rows.append(row)

    def _append_line(self, data: bytes) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            size = os.fstat(fd).st_size
            try:
                written = 0
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            except OSError:
                os.ftruncate(fd, size)
                os.fsync(fd)
                raise
        finally:
            os.close(fd)

    def _rewrite(self, header: list[str], rows: list[dict[str, Any]]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            with open(tmp, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, header, lineterminator=LINE_END)
                writer.writeheader()
                writer.writerows(rows)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, self.path)
        self.header = header
