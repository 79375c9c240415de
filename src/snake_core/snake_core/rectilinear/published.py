"""Control points 003 prints for its baseline (§3.6, α = π/4, T = 1 s, l = 0.14 m, m = 0.015 kg, μ = 0.4).

Rows are driven joints of the mechanism (local frame), columns the free points C1..C3 of (3.8); stored
normalised by α so that they scale with the gait angle (a starting point, not an optimum, at other angles).
"""

from __future__ import annotations

import numpy as np

#: The gait angle of 003's printed control points.
ALPHA_003 = np.pi / 4
#: 003's initial guess Co for step 2, "sampled to find a feasible set" (§3.6; step 1 starts from straight lines).
C0_003 = {
    "M2": np.array([[0.2, 0.4, 0.5], [0.0, -0.1, -0.2], [-0.2, -0.7, -0.7]]) / ALPHA_003,
}
#: 003's final (step 1) and best (step 2) C of its ±Δ search.
C_FINAL_003 = {
    "M1": np.array([[0.1335, 0.2670, 0.3848], [-0.2670, -0.5262, -0.7933]]) / ALPHA_003,
    "M2": np.array([[0.2628, 0.5021, 0.5314], [0.0707, -0.0372, -0.1843], [-0.0979, -0.6764, -0.7393]]) / ALPHA_003,
}
#: M3's are not printed ([AMBIG]): M3 has M2's driven boundary values (seed003 §3.3), so it uses M2's.
C_FINAL_003["M3"] = C_FINAL_003["M2"]
