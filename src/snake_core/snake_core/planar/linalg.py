"""Small dense linear algebra through LAPACK directly (scipy.linalg.lapack).

The planar model's matrices are tiny ((n+2) × (n+2), n ≈ 10): numpy.linalg's Python wrappers cost
more than the factorisations themselves (≈ 7 µs vs 1.7 µs per solve), and a
1 kHz controller makes several per step. Failures fall back to numpy, which raises its usual
``LinAlgError``; nothing is silently ignored.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack


def spd_solve(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A⁻¹ B for a symmetric positive-definite A (Cholesky, dposv); B may be 1-D or 2-D."""
    _, x, info = lapack.dposv(A, B)
    if info != 0:
        return np.linalg.solve(A, B)
    return x

