"""YAML of the suite's files and ``--set`` values: PyYAML's safe loader without aliases, exponents as numbers.

:func:`safe_load` is ``yaml.safe_load`` with two changes:

- an alias (``*name``) is refused with a ``yaml.YAMLError`` at its line: nested aliases expand a few hundred bytes
  into a tree of billions of nodes (the validation walks and copies it), and no file of the suite needs them;
- ``1e-4`` is the number 1e-4 (YAML 1.1 wants ``1.0e-4``, so PyYAML reads the string ``'1e-4'``, which validation
  then refused as "must be a number");
- collections nested deeper than :data:`MAX_DEPTH` are refused (:class:`NestingError`, a ``yaml.YAMLError`` at its
  line) as the document is read, before any value is built: a few kB of ``[[[[…`` would otherwise end Python's
  recursion in a RecursionError.

:func:`read_file` reads a file of the suite's (scenario, robot) after checking, before any parsing, that it is at
most :data:`MAX_FILE_BYTES` long (a 16 MB file took minutes to parse) and that it is text (UTF-8, no NUL byte).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import IO, Any

import yaml

from .validation import ConfigError

#: A float with an exponent but no dot (``1e-4``, ``-2E+3``), which YAML 1.1's float pattern leaves out.
EXPONENT_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
#: The deepest nesting of mappings and lists a document may have (the suite's files use at most 5).
MAX_DEPTH = 20
#: The longest file of the suite's a command reads [bytes] (the longest shipped one is under 10 kB).
MAX_FILE_BYTES = 1_000_000


class NestingError(yaml.composer.ComposerError):
    """A document nested deeper than :data:`MAX_DEPTH`."""


class SafeLoader(yaml.SafeLoader):
    """yaml.SafeLoader refusing aliases and reading exponent floats without a dot as numbers."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, f"alias *{event.anchor} is not allowed (aliases and "
                                              "anchors are not supported in the suite's files)", event.start_mark)
        if self.depth >= MAX_DEPTH and self.check_event(yaml.CollectionStartEvent):
            raise NestingError(None, None, f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


SafeLoader.add_implicit_resolver("tag:yaml.org,2002:float", EXPONENT_FLOAT, list("-+0123456789"))


def safe_load(stream: str | bytes | IO[str] | IO[bytes]) -> Any:
    """The document in ``stream`` (:class:`SafeLoader`); yaml.YAMLError if it is not valid or has an alias."""
    return yaml.load(stream, Loader=SafeLoader)


def read_file(path: Path) -> str:
    """The text of the file ``path``; ConfigError in one line if it is longer than :data:`MAX_FILE_BYTES` (checked
    before reading it) or not text."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ConfigError("<file>", str(path), f"is {size:,} bytes, more than the {MAX_FILE_BYTES:,} a file of the "
                          "suite may have", path.name)
    data = path.read_bytes()
    try:
        if b"\0" in data:
            raise ValueError
        return data.decode("utf-8")
    except ValueError:  # UnicodeDecodeError included
        raise ConfigError("<file>", str(path), "is not a text file (binary, or not UTF-8): give a YAML file",
                          path.name) from None


def load_file(path: Path) -> Any:
    """The document of the file ``path`` (:func:`read_file`); ConfigError in one line (the problem and where) if it
    is not valid."""
    return load_text(read_file(path), path)


def load_text(text: str, path: Path) -> Any:
    """The document ``text``, read from the file ``path``: as :func:`load_file`."""
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError("<file>", str(path), f"not valid YAML ({problem}{where})", path.name) from None
