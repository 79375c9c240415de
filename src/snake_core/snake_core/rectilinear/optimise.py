"""Effort-optimal B-spline control points for one gait step (003 §3.5–3.6) and the whole cycle.

Two optimisers over the free control points C (3 per driven joint, (3.8)) of one step:

* ``"slsqp"`` (default): scipy's SLSQP with exact gradients of J and of the constraints by complex-step
  differentiation (Squire & Trapp 1998; Martins et al. 2003): every model function is evaluated at
  C + i h e_k, h = 1e-30, in one batched call, and Im(·)/h is the derivative to machine precision. This is the
  gradient method 003 proposes (3.63)–(3.74) but did not implement; it avoids the ill-conditioning of finite
  differences 003 cites, and the implicit derivative of A·Fa = Fi (3.71)–(3.74) comes out of the complex solve.
  The friction sign(v_tip) of (3.33) makes J jump wherever the tip reverses between samples, which traps a
  gradient method on the first jump; the iterations therefore use sign(v) ≈ tanh(v / v_ε) with
  v_ε = SMOOTHING_FRACTION · l / T (≈ 5 mm/s for 003's baseline) and the result is re-evaluated and reported
  with the exact sign. Constraints (all ≥ 0 at every sample): joints above the
  ground, the chain closable (3.24), F_R > 0 and the joint range.
* ``"delta"``: 003's ±Δ "binary gradient" search (Fig. 3.14): per iteration, try C(i) ± Δ for every free
  point, move each by +Δ/−Δ/0 depending on which side lowered the effort (f(Dir) = Dir(:,1) − Dir(:,2),
  [AMBIG] in 003), keep the best feasible C seen. Infeasible trials never win (003 returned a penalty
  effort of 100; here they are compared as +∞ and never reported as a number).

Every result says whether it is feasible and why not; efforts of infeasible results are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import minimize

from ..validation import choice, integer, positive
from . import bspline
from .cycle import N_DRIVEN, SIGN_002, StepSpec, boundary_states, plan
from .mechanism import (
    CLOSURE_LIMIT,
    RectilinearModel,
    StepDynamics,
    check_alpha,
    closed_chain_forces,
    closed_motion,
    driven_trajectory,
    effort,
    open_m1_dynamics,
    step_dynamics,
)
from .newton_euler import PlanarChain, inverse_dynamics
from .published import C0_003, C_FINAL_003

METHODS = ("slsqp", "delta")
#: Complex-step size; any tiny value gives the derivative to machine precision.
COMPLEX_STEP = 1e-30
#: 003's search settings (§3.5.3): Δ = α/100, 50 iterations.
DELTA_FRACTION = 0.01
DELTA_ITERATIONS = 50
#: Friction-sign smoothing of the gradient iterations as a fraction of the link speed scale l / T.
SMOOTHING_FRACTION = 0.035
#: Smallest normal force the optimiser accepts, as a fraction of one link's weight: a margin that keeps the
#: exact-sign re-evaluation of a smoothed optimum in contact (F_R > 0).
MIN_NORMAL_FORCE_FRACTION = 0.01
#: The optimiser keeps this fraction of the ground tolerance (and 1e-6 inside the closure limit), so
#: that a converged point on a constraint boundary passes the final feasibility check.
MARGIN = 0.5


def initial_points(kind: str, alpha: float, open_loop: bool = False) -> np.ndarray:
    """003's initial guess Co: straight lines for M1 (open or closed), its sampled feasible set for M2/M3."""
    if open_loop:
        return bspline.linear_free_points(np.zeros(3), alpha * np.array([1.0, -1.0, -1.0]))
    if kind == "M1":
        return bspline.linear_free_points(np.zeros(2), alpha * np.array([1.0, -1.0]))
    return alpha * C0_003["M2" if kind == "M3" else kind]


@dataclass(frozen=True)
class StepProblem:
    """Minimise J over the free control points of one step."""

    model: RectilinearModel
    spec: StepSpec
    alpha: float
    open_loop: bool = False  # 003's open-loop M1 alternative (step 1 only)
    smoothing: float = 0.0  # friction-sign smoothing velocity used by the gradient optimiser [m/s]

    def __post_init__(self) -> None:
        check_alpha(self.alpha, self.model.joint_limit)

    @property
    def n_driven(self) -> int:
        return 3 if self.open_loop else N_DRIVEN[self.spec.kind]

    @property
    def n_vars(self) -> int:
        return self.n_driven * bspline.N_FREE

    def dynamics(self, free: np.ndarray) -> StepDynamics:
        free = np.asarray(free, dtype=float).reshape(self.n_driven, bspline.N_FREE)
        if self.open_loop:
            return open_m1_dynamics(self.model, self.alpha, free)
        return step_dynamics(self.model, self.spec, self.alpha, free)

    def batch(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """J (B,) and the constraint values g ≥ 0 (B, m) for a batch of (possibly complex) variables (B, n_vars)."""
        m = self.model
        free = x.reshape(x.shape[0], self.n_driven, bspline.N_FREE)
        th, thd, thdd = driven_trajectory(self.spec, self.alpha, free, m.u, m.step_time)
        lim2 = m.joint_limit**2  # the boundary states sit exactly on ±α, which may equal the range
        if self.open_loop:
            chain = PlanarChain.uniform(3, m.link_length, m.link_mass, m.link_inertia, m.gravity)
            tau = inverse_dynamics(chain, th, thd, thdd)
            heights = m.link_length * np.cumsum(np.sin(np.cumsum(th, axis=-1)), axis=-1)
            g = [heights + MARGIN * m.ground_tolerance, lim2 - th**2]
        else:
            motion = closed_motion(self.spec, th, thd, thdd)
            tau, f_r, _, p = closed_chain_forces(m, self.spec, motion, self.smoothing)
            g = [p[..., 1:-1, 1] + MARGIN * m.ground_tolerance, (CLOSURE_LIMIT - 1e-6) ** 2 - motion.closure**2,
                 f_r - MIN_NORMAL_FORCE_FRACTION * m.link_mass * m.gravity, lim2 - motion.theta**2]
        g = np.concatenate([gi.reshape(x.shape[0], -1) for gi in g], axis=1)
        return effort(tau, m.dt), g


@dataclass(frozen=True)
class StepResult:
    """An optimised (or evaluated) step: C, its effort, feasibility and the cost of finding it."""

    method: str
    free: np.ndarray  # (n_driven, 3) C1..C3 per driven joint
    effort: float  # J [N²·m²·s]; NaN when infeasible
    feasible: bool
    violations: tuple[str, ...]
    evaluations: int  # objective evaluations (a complex-step gradient counts n_vars)
    iterations: int
    history: tuple[float, ...] = field(default=())  # best effort after each iteration
    dynamics: StepDynamics | None = None


def evaluate(problem: StepProblem, free: np.ndarray, method: str = "given", evaluations: int = 0,
             iterations: int = 0, history: tuple[float, ...] = ()) -> StepResult:
    """Effort and feasibility of control points C for a step."""
    free = np.asarray(free, dtype=float).reshape(problem.n_driven, bspline.N_FREE)
    dyn = problem.dynamics(free)
    why = tuple(dyn.violations(problem.model))
    j = float(effort(dyn.tau, problem.model.dt)) if not why else float("nan")
    return StepResult(method, free, j, not why, why, evaluations, iterations, history, dyn)


def _effort_or_inf(problem: StepProblem, x: np.ndarray) -> float:
    dyn = problem.dynamics(x)
    return float("inf") if dyn.violations(problem.model) else float(effort(dyn.tau, problem.model.dt))


def delta_search(problem: StepProblem, start: np.ndarray, delta: float | None = None,
                 iterations: int = DELTA_ITERATIONS, progress=None) -> StepResult:
    """003's ±Δ search (Fig. 3.14), keeping the best feasible C found."""
    delta = positive(DELTA_FRACTION * problem.alpha if delta is None else delta, "delta")
    integer(iterations, "iterations", low=1)
    c = np.asarray(start, dtype=float).ravel().copy()
    e0 = _effort_or_inf(problem, c)  # Eo = COMPUTE_DYN(C)
    best_c, best = c.copy(), e0
    n_eval, history = 1, []
    for _ in range(iterations):
        step = np.zeros_like(c)
        for i in range(c.size):
            for sgn in (1.0, -1.0):
                trial = c.copy()
                trial[i] += sgn * delta
                if _effort_or_inf(problem, trial) < e0:
                    step[i] += sgn  # Dir(i, 1) − Dir(i, 2)
        c = c + delta * step
        e0 = _effort_or_inf(problem, c)  # the next iteration's Eo
        n_eval += 2 * c.size + 1
        if e0 < best:
            best, best_c = e0, c.copy()
        history.append(best)
        if progress is not None:
            progress()
    return evaluate(problem, best_c, "delta", n_eval, iterations, tuple(history))


def slsqp(problem: StepProblem, start: np.ndarray, max_iterations: int = 200, tolerance: float = 1e-5
          ) -> StepResult:
    """SLSQP with complex-step gradients of the effort and the constraints.

    The iterations use the smoothed friction sign (``problem.smoothing``, default SMOOTHING_FRACTION·l/T);
    the result is evaluated and reported with 003's exact sign (3.33).
    """
    if problem.smoothing == 0.0:
        m = problem.model
        problem = replace(problem, smoothing=SMOOTHING_FRACTION * m.link_length / m.step_time)
    x0 = np.asarray(start, dtype=float).ravel()
    n = x0.size
    counter = {"n": 0}
    pert = 1j * COMPLEX_STEP * np.eye(n)
    cache: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
    scale_j, _ = problem.batch(x0[None, :])
    scale = 1.0 / max(float(scale_j[0]), 1e-300)
    counter["n"] += 1

    last: dict[bytes, tuple[float, np.ndarray]] = {}

    def values(x: np.ndarray) -> tuple[float, np.ndarray]:
        key = x.tobytes()
        if key in cache:
            return float(cache[key][0][0]), cache[key][1][0]
        if key not in last:
            j, g = problem.batch(x[None, :])
            counter["n"] += 1
            last.clear()
            last[key] = (float(j[0]), g[0])
        return last[key]

    def derivs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = x.tobytes()
        if key not in cache:
            j, g = problem.batch(x[None, :] + pert)
            counter["n"] += n
            cache.clear()
            cache[key] = (j.real, g.real, j.imag / COMPLEX_STEP, g.imag.T / COMPLEX_STEP)
        return cache[key][2], cache[key][3]

    # Convex hull of the B-spline (003 §3.2.4): |C| within the joint range keeps the driven joints in range.
    bounds = [(-problem.model.joint_limit, problem.model.joint_limit)] * n
    res = minimize(lambda x: values(x)[0] * scale, np.clip(x0, bounds[0][0], bounds[0][1]),
                   jac=lambda x: derivs(x)[0] * scale, method="SLSQP", bounds=bounds,
                   constraints=[{"type": "ineq", "fun": lambda x: values(x)[1], "jac": lambda x: derivs(x)[1]}],
                   options={"maxiter": max_iterations, "ftol": tolerance})
    return evaluate(replace(problem, smoothing=0.0), res.x, "slsqp", counter["n"], int(res.nit))


def optimise_step(problem: StepProblem, method: str = "slsqp", start: np.ndarray | None = None,
                  progress=None) -> StepResult:
    """Optimise one step from ``start`` (default: 003's initial guess) with ``method`` (see METHODS)."""
    choice(method, "method", METHODS)
    if start is None:
        start = initial_points(problem.spec.kind, problem.alpha, problem.open_loop)
    if method == "delta":
        return delta_search(problem, start, progress=progress)
    result = slsqp(problem, start)
    if not result.feasible and not problem.open_loop:  # second start: 003's optimised C scaled to this α
        retry = slsqp(problem, problem.alpha * C_FINAL_003[problem.spec.kind])
        result = replace(retry, evaluations=retry.evaluations + result.evaluations) if retry.feasible else result
    if progress is not None:
        progress()
    return result


@dataclass(frozen=True)
class CycleResult:
    """One optimised gait cycle: a result per step; the cycle effort is their sum (NaN if any is infeasible)."""

    alpha: float
    model: RectilinearModel
    steps: tuple[StepSpec, ...]
    results: tuple[StepResult, ...]

    @property
    def feasible(self) -> bool:
        return all(r.feasible for r in self.results)

    @property
    def effort(self) -> float:
        return float(sum(r.effort for r in self.results)) if self.feasible else float("nan")

    @property
    def peak_torque(self) -> float:
        return max(float(np.max(np.abs(r.dynamics.tau))) for r in self.results)

    @property
    def min_normal_force(self) -> float:
        return min(float(np.min(r.dynamics.normal_force)) for r in self.results)

    def series(self) -> CycleSeries:
        """The cycle as time series of the whole robot (our joint order and sign, see cycle.py)."""
        return cycle_series(self.steps, self.alpha, self.model.step_time, [r.dynamics for r in self.results])


@dataclass(frozen=True)
class CycleSeries:
    """Joint angles, joint torques and contact forces over one cycle; steps concatenated (003 §3.4).

    Joints outside a step's mechanism hold their value and carry no torque (flat on the ground in 003's
    model); passive joints carry none either (exact actuation). Step boundaries appear twice in ``t``.
    """

    t: np.ndarray  # (S,) [s]
    step: np.ndarray  # (S,) 1-based step number
    alpha: np.ndarray  # (S, N−1) joint angles, ours [rad]
    tau: np.ndarray  # (S, N−1) joint torques, ours (sign as α) [N·m]
    normal_force: np.ndarray  # (S,) F_R [N]
    friction: np.ndarray  # (S,) F_fr, along the mechanism's local x [N]


def cycle_series(steps: tuple[StepSpec, ...], alpha: float, step_time: float, dynamics: list[StepDynamics]
                 ) -> CycleSeries:
    """Map each step's local solution to the robot's joints with S_n (3.51)–(3.56) and concatenate."""
    n_joints = len(steps)
    states = boundary_states(steps, n_joints, alpha)
    parts = []
    for k, (s, d) in enumerate(zip(steps, dynamics, strict=True)):
        angles = np.repeat(states[k][None, :], len(d.t), axis=0)
        angles[:, list(s.joints)] = SIGN_002 * d.theta  # θ_global = S_n θ_local
        tau = np.zeros_like(angles)
        tau[:, list(s.joints[: d.tau.shape[1]])] = SIGN_002 * d.tau  # τ_global = S_n τ_local
        parts.append((k * step_time + d.t, np.full(len(d.t), s.number), angles, tau, d.normal_force, d.friction))
    return CycleSeries(*(np.concatenate(x) for x in zip(*parts, strict=True)))


def optimise_cycle(model: RectilinearModel, n_links: int, alpha: float, method: str = "slsqp",
                   progress=None) -> CycleResult:
    """Optimise every step of a cycle independently (the effort is additive and the boundary states fixed)."""
    steps = plan(n_links)
    results = tuple(optimise_step(StepProblem(model, s, alpha), method, progress=progress) for s in steps)
    return CycleResult(alpha, model, steps, results)
