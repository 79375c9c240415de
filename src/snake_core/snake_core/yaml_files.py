"""YAML of the suite's files and ``--set`` values: PyYAML's safe loader without aliases, exponents as numbers.

:func:`safe_load` is ``yaml.safe_load`` with two changes:

- an alias (``*name``) is refused with a ``yaml.YAMLError`` at its line: nested aliases expand a few hundred bytes
  into a tree of billions of nodes (the validation walks and copies it), and no file of the suite needs them;
- ``1e-4`` is the number 1e-4 (YAML 1.1 wants ``1.0e-4``, so PyYAML reads the string ``'1e-4'``, which validation
  then refused as "must be a number").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import IO, Any

import yaml

from .validation import ConfigError

#: A float with an exponent but no dot (``1e-4``, ``-2E+3``), which YAML 1.1's float pattern leaves out.
EXPONENT_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")


class SafeLoader(yaml.SafeLoader):
    """yaml.SafeLoader refusing aliases and reading exponent floats without a dot as numbers."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, f"alias *{event.anchor} is not allowed (aliases and "
                                              "anchors are not supported in the suite's files)", event.start_mark)
        return super().compose_node(parent, index)


SafeLoader.add_implicit_resolver("tag:yaml.org,2002:float", EXPONENT_FLOAT, list("-+0123456789"))


def safe_load(stream: str | bytes | IO[str] | IO[bytes]) -> Any:
    """The document in ``stream`` (:class:`SafeLoader`); yaml.YAMLError if it is not valid or has an alias."""
    return yaml.load(stream, Loader=SafeLoader)


def load_file(path: Path) -> Any:
    """The document of the file ``path``; ConfigError in one line (the problem and where) if it is not valid."""
    return load_text(path.read_text(encoding="utf-8"), path)


def load_text(text: str, path: Path) -> Any:
    """The document ``text``, read from the file ``path``: as :func:`load_file`."""
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError("<file>", str(path), f"not valid YAML ({problem}{where})", path.name) from None
