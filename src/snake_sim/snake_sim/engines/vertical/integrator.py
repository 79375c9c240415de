"""Time stepping of 𝕄(q) q̈ = F(q, q̇, t): the linearly implicit Euler scheme, and why.

002 §5.3 steps (4.35) at 1e-4 s "to make sure the fast dynamics of the system, i.e. the last N − 1
rows of (4.35), are captured". Those rows are stiff: with the rotor read as in (4.36)
(𝕊_3 = J_r = 2.45e-7 kg·m²) the motor PD gives a pole at K_D/J_r ≈ 1.0e8 s⁻¹, so no explicit
scheme is stable even at 1e-4 s (explicit Euler needs h < 2 J_r/K_D ≈ 2e-8 s); with the reflected
inertia n²J_r the pole is 1.6e3 s⁻¹. The regularised Coulomb friction of (4.27) adds poles of order
μ f^N/(ε m) ≈ 1e4 s⁻¹. Everything else (the SEA spring against a link, ≈ 100 rad/s; the ground
spring–damper, ≈ 60 rad/s) is slow.

So we linearise the stiff forces and solve, once per step (the "implicit" integrator of MuJoCo,
a one-Newton-iteration backward Euler):

    (𝕄 − h D − h² K) Δv = h (F + h K v),   v⁺ = v + Δv,   q⁺ = q + h v⁺

with D = ∂F/∂q̇ and K = ∂F/∂q of the motor PD (4.39), the SEA spring (4.21)–(4.22) and the contact
law (4.26)–(4.27) (analytic, see ``snake_core.vertical.contact``). For linear stiff terms this is
exactly backward Euler: unconditionally stable, it lets the step be chosen for accuracy of the
slow motion (the gait at ω = π rad/s, contacts at ≈ 10 Hz) instead of for the motor pole.
``snake-sim bench`` measures the price in accuracy against the same model stepped at 002's 1e-4 s
(final centre of mass within 2 % of the distance travelled) and the gain in speed.

The regularised friction (4.27) is the one strongly nonlinear stiff term: its tangent slope is only
valid within a few ε of slip velocity. When a step changes a contact's slip velocity by more than
10 ε, :class:`snake_sim.engines.vertical.plant.VerticalPlant` re-solves the step with the chord slope (secant
iterations) and, if they do not settle, with the dissipative damper form; the tangent alone lets
high-friction runs (μ_c ≥ 3) diverge at 5 ms.

Measured (``make bench``, docs/reproduction.md): at 5 ms the reference gait (A = π/6) ends within
0.3 % of the 1e-4 s solution, A = π/3 within about 1 %; the reproduction sweeps use 1 ms.
Explicit Euler at 1e-4 s diverges within a few steps with 𝕊_3 = J_r.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def implicit_euler_step(q: np.ndarray, v: np.ndarray, h: float, M: np.ndarray, F: np.ndarray, D: np.ndarray,
                        K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One linearly implicit Euler step (see the module docstring); returns (q⁺, v⁺). Compiled (numba)."""
    W = M - h * D - (h * h) * K
    try:  # LAPACK LU solve (dgesv)
        dv = np.linalg.solve(W, h * (F + h * (K @ v)))
    except Exception:  # singular iteration matrix: leave the state to the non-finite check
        dv = np.full_like(v, np.nan)
    v1 = v + dv
    return q + h * v1, v1


def explicit_euler_step(q: np.ndarray, v: np.ndarray, h: float, M: np.ndarray, F: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Semi-implicit (symplectic) explicit Euler, v⁺ = v + h 𝕄⁻¹F, q⁺ = q + h v⁺ (for comparison only)."""
    v1 = v + h * np.linalg.solve(M, F)
    return q + h * v1, v1
