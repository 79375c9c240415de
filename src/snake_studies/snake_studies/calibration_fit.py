"""The fit after ``snake-sim calibrate``'s global search (:mod:`snake_studies.calibrate`): restarts of a local
polish, identifiability and 95 % intervals from the profile of the loss.

Everything here works on the fields normalised to u ∈ [0, 1] of their box (log-space for ``--log`` fields) and on a
residual function r(u) whose loss is S = Σ r², its entries in K equal blocks, one per window of the recording.

Polish and restarts (:func:`fit`): a field whose column of the Jacobian J at the search's best trial is flat (norm ≤
:data:`FLAT` × the largest column's) does not change the fit across its box: it is "not identifiable from this
recording" and frozen at the search's value. The others are polished with ``scipy.optimize.least_squares``
(trust-region reflective, bounded to the box, J by forward differences of :data:`DIFF_STEP` in u) from each of the
``restarts`` best *distinct* trials of the search (no two closer than :data:`DISTINCT` in every u), and the least
loss is kept. The contact model has nearby false minima a single polish can end in; the restarts are said to agree
when every other restart's optimum lies inside the kept one's intervals.

Intervals (:func:`profile`): the profile of the loss, S_p(θ_i) = min over the other free fields of S with field i
fixed at θ_i, on a grid in u around the optimum (the others re-polished from the neighbouring grid point); the 95 %
interval is where S_p − S_min ≤ q² σ_i², q² the 0.95 quantile of F(1, K − 1) (χ²₁(0.95) = 3.84 as K grows; K − 1
degrees of freedom because σ_i² is estimated from K windows). σ_i² is the residuals' variance corrected for their
correlation in time: the residuals of a window are not independent samples (each window starts from the
recording's own noisy state, and a wrong start or a wrong parameter shifts a whole window), so σ_i² is taken from
the scatter of the windows themselves — the cluster-robust ("sandwich") covariance of least squares with the
windows as independent blocks, V = K/(K − 1) · H⁻¹ (Σ_w J_wᵀ r_w r_wᵀ J_w) H⁻¹ with H = JᵀJ (Liang & Zeger 1986),
and σ_i² = V_ii / (H⁻¹)_ii, the scale on which a quadratic profile gives the interval θ̂_i ± q √V_ii (the profile of
the independence likelihood adjusted for clustered data, Chandler & Bate 2007). m σ² / σ_i² (σ² = S_min / (m − p),
the uncorrected Gauss–Newton scale of m entries and p fields) is the effective number of independent residuals.
The confidence set is where S_p is under the threshold, and the contact model's loss has jumps and separate
minima: the interval is widened to hold every restart's optimum whose loss is under it too (those restarts
agree). Where the profile does not rise by q² σ_i² before an edge of the box, the interval ends at that edge; a
field whose profile rises less than that over its whole box is "not identifiable from this recording" and frozen
at its fitted value. The Gauss–Newton interval θ̂_i ± 1.96 √(σ² (H⁻¹)_ii) is kept beside it, for comparison: it
treats every residual as independent and is too narrow on noisy recordings. Log fields' intervals are in log-space.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares
from scipy.stats import f as f_dist

from snake_studies.sweep.cells import Range

#: Forward-difference step of the polish's Jacobian, in the field's box normalised to [0, 1]: the residuals of the
#: contact model jump by small steps on finer scales (the friction law's re-solves, contacts made and broken); a step
#: of 1e-3 measured those jumps (slopes that grew as 1/step) and stopped the polish short of the optimum.
DIFF_STEP = 1e-2
#: Tolerances of the polish (scipy's ftol and xtol: relative change of the loss and of u). Its gradient test is off
#: (gtol=None; scipy 1.17.1 scipy/optimize/_lsq/least_squares.py:378): scipy's is absolute, and a good fit's loss
#: (1e-5) has a gradient below any fixed bound.
POLISH_TOL = 1e-4
#: Most steps of a polish (each a run of the windows and a Jacobian of one run per free field).
POLISH_STEPS = 20
#: A Jacobian column this small against the largest is flat: the field is not identifiable.
FLAT = 1e-3
#: Confidence level of the intervals.
CONFIDENCE = 0.95
#: Two-sided 95 % quantile of the normal distribution (the Gauss–Newton interval's).
Z95 = 1.959963984540054
#: Default number of polishes, each from one of the search's best distinct trials.
RESTARTS = 3
#: Two trials closer than this in every normalised field are not distinct starts.
DISTINCT = 0.05
#: The profile's grid on each side of the optimum: these multiples of the expected half-width q √V_ii, then the
#: box's edge; it stops at the first point above the threshold.
PROFILE_GRID = (0.5, 1.0, 1.5, 2.5, 4.0)
#: Smallest expected half-width the grid is scaled by (in u): a step the residuals' jumps do not hide.
MIN_HALF_WIDTH = 2 * DIFF_STEP


def to_unit(r: Range, value: float) -> float:
    """``value`` in the box of ``r`` normalised to [0, 1] (log-space for a log range)."""
    if r.log:
        return math.log(value / r.low) / math.log(r.high / r.low)
    return (value - r.low) / (r.high - r.low)


def value_of(r: Range, u: float) -> float:
    """Inverse of :func:`to_unit`, beyond the box too."""
    u = float(u)
    return r.low * (r.high / r.low) ** u if r.log else r.low + u * (r.high - r.low)


def from_unit(r: Range, u: float) -> float:
    """Inverse of :func:`to_unit`, cut to the box."""
    return value_of(r, min(max(float(u), 0.0), 1.0))


@dataclass(frozen=True)
class Profile:
    """The profiled loss of one field: S_p at the field's values (sorted), the threshold S_min + q² σ_i² and the
    interval it gives (None: the profile is flat over the box)."""

    values: list[float]
    loss: list[float]
    threshold: float
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class Fitted:
    """One fitted field: its value, 95 % profile interval (None if frozen), the Gauss–Newton one, and whether the
    recording identifies it."""

    key: str
    value: float
    start: float  # the global search's best
    interval: tuple[float, float] | None
    identifiable: bool
    gauss_newton: tuple[float, float] | None = None
    effective_samples: float | None = None  # m σ² / σ_i² (module docstring)
    profile: Profile | None = None


@dataclass(frozen=True)
class Restart:
    """One polish: the trial it started from, its loss there, where it ended and its loss."""

    start: dict[str, float]
    start_loss: float
    end: dict[str, float]
    loss: float
    agrees: bool  # its optimum inside the kept one's intervals (the kept one: True)


@dataclass(frozen=True)
class FitResult:
    fitted: list[Fitted]
    loss: float
    restarts: list[Restart]
    evaluations: int  # runs of the residuals after the search
    windows: int
    quantile: float  # q² of the profile's threshold
    free: tuple[int, ...] = ()  # the polished fields' indices (their Jacobian columns not flat)


class Residuals:
    """r(u) of a point of the box, counted and cached (least_squares asks for J where it just asked for r)."""

    def __init__(self, fit: Sequence[Range], residuals: Callable[[dict[str, float]], np.ndarray],
                 tick: Callable[[], object] | None = None):
        self.fit, self._residuals, self._tick = tuple(fit), residuals, tick
        self.evaluations = 0
        self._last: dict[bytes, np.ndarray] = {}

    def params(self, u: np.ndarray) -> dict[str, float]:
        return {rg.key: from_unit(rg, float(x)) for rg, x in zip(self.fit, u, strict=True)}

    def __call__(self, u: np.ndarray) -> np.ndarray:
        key = np.asarray(u, dtype=float).tobytes()
        if key not in self._last:
            self.evaluations += 1
            if self._tick is not None:
                self._tick()
            self._last.clear()
            self._last[key] = np.asarray(self._residuals(self.params(u)), dtype=float)
        return self._last[key]


def jacobian(residuals: Callable[[np.ndarray], np.ndarray], u: np.ndarray, r0: np.ndarray,
             columns: Sequence[int]) -> np.ndarray:
    """(m, len(u)) forward differences of ``residuals`` at u in the ``columns`` (DIFF_STEP in u, backwards at 1);
    the other columns zero."""
    jac = np.zeros((len(r0), len(u)))
    for i in columns:
        step = DIFF_STEP if u[i] + DIFF_STEP <= 1.0 else -DIFF_STEP
        du = u.copy()
        du[i] += step
        jac[:, i] = (residuals(du) - r0) / step
    return jac


def polish(residuals: Callable[[np.ndarray], np.ndarray], u0: np.ndarray,
           free: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u, r, J over the free columns) of a bounded least-squares polish of the ``free`` fields from u0 (the others
    fixed at u0); never worse than u0."""
    free = list(free)
    r0 = residuals(u0)
    if not free:
        return u0, r0, np.zeros((len(r0), 0))

    def full(x: np.ndarray) -> np.ndarray:
        u = u0.copy()
        u[free] = x
        return u

    out = least_squares(lambda x: residuals(full(x)), u0[free], bounds=(0.0, 1.0), method="trf",
                        jac=lambda x: jacobian(residuals, full(x), residuals(full(x)), free)[:, free],
                        ftol=POLISH_TOL, xtol=POLISH_TOL, gtol=None, max_nfev=POLISH_STEPS)
    if float(out.fun @ out.fun) < float(r0 @ r0):
        # J at the polish's last point: trf_bounds evaluates the callable after every accepted step, the last one
        # included (scipy 1.17.1 scipy/optimize/_lsq/trf.py:376)
        return full(out.x), out.fun, out.jac
    return u0, r0, jacobian(residuals, u0, r0, free)[:, free]


def distinct_starts(trials: Sequence[tuple[dict[str, float], float]], fit: Sequence[Range],
                    k: int) -> list[tuple[np.ndarray, float]]:
    """(u, loss) of the ``k`` best trials no two of which are within :data:`DISTINCT` in every field."""
    chosen: list[tuple[np.ndarray, float]] = []
    for params, value in sorted(trials, key=lambda t: t[1]):
        u = np.array([to_unit(rg, params[rg.key]) for rg in fit])
        if all(np.max(np.abs(u - c)) > DISTINCT for c, _ in chosen):
            chosen.append((u, float(value)))
            if len(chosen) == k:
                break
    return chosen


def quantile(windows: int) -> float:
    """q²: the CONFIDENCE quantile of F(1, K − 1) (module docstring)."""
    return float(f_dist.ppf(CONFIDENCE, 1, windows - 1))


def covariances(r: np.ndarray, jac: np.ndarray, windows: int) -> tuple[np.ndarray, float, np.ndarray]:
    """(H⁻¹, the Gauss–Newton scale σ², the cluster-robust V) of the free columns ``jac`` at the optimum,
    the windows the ``windows`` equal blocks of r (module docstring)."""
    m, p = jac.shape
    h_inv = np.linalg.pinv(jac.T @ jac)
    sigma2 = float(r @ r) / max(m - p, 1)
    scores = np.array([block_j.T @ block_r for block_j, block_r in
                       zip(np.split(jac, windows), np.split(r, windows), strict=True)])  # (K, p)
    robust = windows / (windows - 1) * h_inv @ (scores.T @ scores) @ h_inv
    return h_inv, sigma2, robust


def _interval(rg: Range, u: float, half: float) -> tuple[float, float]:
    """value ± half (in u) in the field's units, log-space for a log field, not cut to the box."""
    return value_of(rg, float(u) - float(half)), value_of(rg, float(u) + float(half))


def profile(residuals: Callable[[np.ndarray], np.ndarray], u: np.ndarray, free: Sequence[int], i: int,
            loss_min: float, rise: float, half: float) -> tuple[list[tuple[float, float]], tuple[float, float] | None]:
    """The profile of field ``i`` around the optimum u: its points (u_i, S_p) and the interval in u where
    S_p − loss_min ≤ ``rise`` (None: it stays below over the whole box). ``half``: the expected half-width in u."""
    others = [j for j in free if j != i]
    points = [(float(u[i]), loss_min)]
    ends = []
    for side in (-1.0, 1.0):
        edge = 0.0 if side < 0 else 1.0
        steps = [float(u[i]) + side * max(half, MIN_HALF_WIDTH) * g for g in PROFILE_GRID]
        grid = [x for x in steps if 0.0 < x < 1.0] + [edge]
        start, previous, end = u.copy(), (float(u[i]), loss_min), None
        for x in grid:
            start[i] = x
            start, r, _ = polish(residuals, start, others)
            s = float(r @ r)
            points.append((x, s))
            if s - loss_min > rise:
                (x0, s0) = previous
                end = x0 + (x - x0) * (rise - (s0 - loss_min)) / (s - s0)  # linear between the two grid points
                break
            previous = (x, s)
        ends.append(edge if end is None else end)
    points.sort()
    if ends == [0.0, 1.0]:
        return points, None
    return points, (ends[0], ends[1])


def fit(ranges: Sequence[Range], residuals: Callable[[dict[str, float]], np.ndarray], windows: int,
        trials: Sequence[tuple[dict[str, float], float]], restarts: int = RESTARTS,
        tick: Callable[[], object] | None = None) -> FitResult:
    """Restarts of the polish from the search's ``trials`` ((params, loss), any order), identifiability and intervals
    (module docstring). ``residuals`` maps a point of the box to r (K = ``windows`` equal blocks); ``tick`` is called
    once per run of it."""
    if windows < 2:
        raise ValueError("the intervals need at least two windows")
    res = Residuals(ranges, residuals, tick)
    starts = distinct_starts(trials, ranges, restarts)
    u0 = starts[0][0]
    r0 = res(u0)
    norms = np.linalg.norm(jacobian(res, u0, r0, range(len(ranges))), axis=0)
    free = [i for i in range(len(ranges)) if norms[i] > FLAT * norms.max()]
    polished = []
    for u_start, loss_start in starts:
        frozen = u0.copy()
        frozen[free] = u_start[free]
        u, r, jac = polish(res, frozen, free)
        polished.append((u_start, loss_start, u, r, jac))
    kept = min(range(len(polished)), key=lambda k: float(polished[k][3] @ polished[k][3]))
    _, _, u, r, jac = polished[kept]
    loss_min = float(r @ r)
    q2 = quantile(windows)
    fitted: dict[int, Fitted] = {}
    if free:
        h_inv, sigma2, robust = covariances(r, jac, windows)
        for col, i in enumerate(free):
            rg = ranges[i]
            scale = float(robust[col, col] / h_inv[col, col]) if h_inv[col, col] > 0 else math.inf
            points, interval = profile(res, u, free, i, loss_min, q2 * scale, math.sqrt(q2 * robust[col, col]))
            if interval is not None:  # the hull of the confidence set: a restart's end under the threshold is in it
                ends = [float(end[i]) for _, _, end, r_end, _ in polished
                        if float(r_end @ r_end) - loss_min <= q2 * scale]
                interval = (min(interval[0], *ends), max(interval[1], *ends))
            values = [from_unit(rg, x) for x, _ in points]
            shown = None if interval is None else (from_unit(rg, interval[0]), from_unit(rg, interval[1]))
            fitted[i] = Fitted(rg.key, from_unit(rg, u[i]), from_unit(rg, u0[i]), shown, interval is not None,
                               _interval(rg, u[i], Z95 * math.sqrt(max(sigma2 * h_inv[col, col], 0.0))),
                               len(r) * sigma2 / scale if scale > 0 else math.inf,
                               Profile(values, [s for _, s in points], loss_min + q2 * scale, shown))
    out = [fitted.get(i, Fitted(rg.key, from_unit(rg, u[i]), from_unit(rg, u0[i]), None, False))
           for i, rg in enumerate(ranges)]
    report = []
    for k, (u_start, loss_start, u_end, r_end, _) in enumerate(polished):
        agrees = k == kept or all(f.interval is None or f.interval[0] <= from_unit(ranges[i], u_end[i])
                                  <= f.interval[1] for i, f in enumerate(out))
        report.append(Restart(res.params(u_start), loss_start, res.params(u_end), float(r_end @ r_end), agrees))
    return FitResult(out, loss_min, report, res.evaluations, windows, q2, tuple(free))
