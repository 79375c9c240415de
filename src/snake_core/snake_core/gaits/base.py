"""The interface every gait implements."""

from __future__ import annotations

from typing import Protocol

import numpy as np

#: Joint references are refused beyond this magnitude (DESIGN.md "Bad input", 002 §3.3: ±60°).
MAX_REFERENCE = np.pi / 3


class Gait(Protocol):
    """Joint-space reference generator; joint order tail (1) → head (N−1)."""

    n_joints: int

    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Desired relative joint angles α_d and rates α̇_d at time ``t`` [s], shape (n_joints,)."""
        ...
