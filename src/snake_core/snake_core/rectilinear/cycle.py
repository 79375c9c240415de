"""The discrete-step state machine of the rectilinear gait, 003 §3.3 and the mapping matrices (3.51)–(3.56).

A hump of three links (one up at +α, one level and raised, one down at −α) forms at the tail, is passed
link by link to the head and dissolves there; each cycle advances the robot by Δx = 2l(1 − cos α) (003 Eq. 4.1,
the printed Eq. 3.9 has a typo). Every gait step moves one closed-chain mechanism of 003 §3.5:

* M1 (3 moving links, 2 driven joints + 1 passive): forms the hump at the free end of the chain;
* M2 (4 moving links, 3 driven + 1 passive): moves the hump one link away from the free end;
* M3 (4 hump links + the flat links behind them sliding on the ground, 3 driven + 2 passive).

**Numbering and sign.** 003 numbers links from the head (link 1) to the tail (link N), joint j joins links j and
j+1, and its angles are measured in a frame whose x points from the head to the tail; the suite numbers joints
from the tail and uses 002's relative angle α_j = θ_j − θ_{j+1} of the absolute link angles (§4.3.1; x along
the direction of travel, z up). 003 joint j is our joint N − j, and mirroring x and reversing the traversal
turn 003's θ into −α (seed003_rectilinear.md §3.3 shows the relative angle is invariant under the pair of
changes; 002's difference runs the other way): α_{N−j} = SIGN_002 · θ_j (003). Mechanism computations stay in
003's local frames; only joint vectors of the whole robot are in our convention.

**Generalisation to N links ([RECON], our construction).** For 6 links the sequence below is exactly 003's
S1..S5 (checked in the tests). For N links the hump starts on 003 links N−2..N (M1 with the head-side links as the
anchor), moves N−3 times by one link toward the head — as M2 while it touches the tail end, as M3 with N−h−2
trailing flat links sliding while it is in the middle, and as the mirrored, time-reversed M2 for the last
move — and dissolves with the mirrored, time-reversed M1: N − 1 steps per cycle. Every step needs at least one
anchor link that stays on the ground (003 §3.5, "the base links do not slip"), and M2 lifts four links, so
**N ≥ 5 is required** (N = 4 would lift the whole robot in its second step); fewer links are refused.

**Steps run backwards** ([AMBIG] in 003, which only says steps 4–5 reuse "reversed coordinate systems and
opposite trajectory directions"): a reversed step traverses its forward mechanism's trajectory from u = 1 to
u = 0 in the mirrored frame; velocities change sign, so the friction at the sliding contact changes sign and
its torques are computed from the reversed motion, not copied from the forward step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import ConfigError

#: α (ours, 002 §4.3.1) = SIGN_002 · θ (003), see the module docstring.
SIGN_002 = -1.0
#: Links the smallest robot the construction handles needs (see the module docstring).
MIN_LINKS = 5

#: Local boundary joint values of each forward mechanism in units of α (003 §3.3, §3.7), driven joints first,
#: then the passive (constrained) joint(s). M2 and M3 share the driven boundary values (seed003 §3.3).
BOUNDARY = {
    "M1": (np.array([0.0, 0.0, 0.0]), np.array([1.0, -1.0, -1.0])),
    "M2": (np.array([0.0, 1.0, -1.0, -1.0]), np.array([1.0, -1.0, -1.0, 1.0])),
    "M3": (np.array([0.0, 1.0, -1.0, -1.0, 1.0]), np.array([1.0, -1.0, -1.0, 1.0, 0.0])),
}
#: Driven (free) local joints per mechanism (exact actuation, 003 §3.2.3).
N_DRIVEN = {"M1": 2, "M2": 3, "M3": 3}
#: Links of the moving chain that are not the slider (hump links incl. the closing link).
N_CHAIN = {"M1": 3, "M2": 4, "M3": 4}


@dataclass(frozen=True)
class StepSpec:
    """One gait step: which mechanism moves which joints, and in which time direction."""

    number: int  # 1-based step number in the cycle
    kind: str  # "M1" | "M2" | "M3"
    joints: tuple[int, ...]  # our 0-based joint index (tail → head) of each local joint of the mechanism
    reversed: bool  # the forward mechanism's trajectory run backwards in a mirrored frame
    slider_links: int  # M3: flat links sliding behind the hump (1 for 003's 6-link robot), else 0

    @property
    def n_driven(self) -> int:
        return N_DRIVEN[self.kind]

    def local_boundary(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """Local joint values at the start and the end of the *forward* mechanism motion."""
        start, end = BOUNDARY[self.kind]
        return alpha * start, alpha * end


def plan(n_links: int) -> tuple[StepSpec, ...]:
    """The steps of one cycle for ``n_links`` links (N − 1 steps; 003's S1..S5 for N = 6)."""
    if isinstance(n_links, bool) or not isinstance(n_links, int) or n_links < MIN_LINKS:
        raise ConfigError("links.count", n_links,
                          f"the rectilinear gait needs an integer >= {MIN_LINKS} links (M2 lifts four links and at "
                          "least one anchor link must stay on the ground)")
    n = n_links

    def ours(j003: int) -> int:  # 003 joint (1-based, head → tail) → our 0-based index (tail → head)
        return n - j003 - 1

    steps = [StepSpec(1, "M1", tuple(ours(j) for j in (n - 3, n - 2, n - 1)), False, 0)]
    for h in range(n - 2, 2, -1):  # hump on 003 links h..h+2 moves to h−1..h+1, anchor links 1..h−2
        local = [h - 2, h - 1, h, h + 1]
        if h + 2 == n:
            steps.append(StepSpec(len(steps) + 1, "M2", tuple(map(ours, local)), False, 0))
        else:
            steps.append(StepSpec(len(steps) + 1, "M3", tuple(map(ours, [*local, h + 2])), False, n - h - 2))
    steps.append(StepSpec(len(steps) + 1, "M2", tuple(map(ours, (4, 3, 2, 1))), True, 0))
    steps.append(StepSpec(len(steps) + 1, "M1", tuple(map(ours, (3, 2, 1))), True, 0))
    return tuple(steps)


def boundary_states(steps: tuple[StepSpec, ...], n_joints: int, alpha: float) -> np.ndarray:
    """Joint vectors α (ours, tail → head) at the start of each step and at the end of the cycle, (len+1, n_joints).

    Raises if the local boundary values of consecutive steps do not chain up (a construction error).
    """
    states = [np.zeros(n_joints)]
    for s in steps:
        start, end = (SIGN_002 * v for v in s.local_boundary(alpha))
        if s.reversed:
            start, end = end, start
        idx = list(s.joints)
        if not np.allclose(states[-1][idx], start):
            raise AssertionError(f"step {s.number} does not start where step {s.number - 1} ended")
        nxt = states[-1].copy()
        nxt[idx] = end
        states.append(nxt)
    if not np.allclose(states[-1], 0.0):
        raise AssertionError("the cycle does not return to the flat state")
    return np.array(states)


def advance_per_cycle(link_length: float, alpha: float) -> float:
    """Δx = 2 l (1 − cos α), 003 Eq. 4.1 (no slip)."""
    return 2.0 * link_length * (1.0 - np.cos(alpha))


def average_speed(link_length: float, alpha: float, step_time: float, n_steps: int = 5) -> float:
    """v = 2 l (1 − cos α) / (n_steps t), 003 Eq. 4.1 (n_steps = 5 for 6 links)."""
    return advance_per_cycle(link_length, alpha) / (n_steps * step_time)


def anchor_link(spec: StepSpec, n_links: int) -> int:
    """Our 0-based index (tail → head) of the end link that stays on the ground during ``spec``.

    Forward steps anchor the head-side links (003: links 1–3 in step 1, 1–2 in step 2, 1 in step 3), the
    mirrored, reversed steps the tail-side ones.
    """
    return 0 if spec.reversed else n_links - 1


def body_points(alpha: np.ndarray, link_length: float, anchor: int, anchor_x: float = 0.0) -> np.ndarray:
    """Link end points (…, N+1, 2), tail end first, with link ``anchor`` lying flat on the ground.

    ``alpha`` are our relative joint angles (…, N−1) (tail → head, α_j = θ_j − θ_{j+1}); x along the direction
    of travel, y up; the tail-side end of the anchor link sits at (``anchor_x``, 0).
    """
    alpha = np.asarray(alpha, dtype=float)
    psi = np.concatenate([np.zeros((*alpha.shape[:-1], 1)), -np.cumsum(alpha, axis=-1)], axis=-1)
    psi = psi - psi[..., anchor:anchor + 1]
    seg = link_length * np.stack([np.cos(psi), np.sin(psi)], axis=-1)
    pts = np.concatenate([np.zeros((*alpha.shape[:-1], 1, 2)), np.cumsum(seg, axis=-2)], axis=-2)
    return pts - pts[..., anchor:anchor + 1, :] + np.array([anchor_x, 0.0])


def kinematic_advance(n_links: int, link_length: float, alpha: float) -> float:
    """Distance the tail end moves toward the head in one cycle when no anchor link slips.

    Computed from the state machine's boundary shapes (the anchor of each step held in place); it must equal
    003's Eq. 4.1, 2 l (1 − cos α), which the tests check.
    """
    steps = plan(n_links)
    states = boundary_states(steps, n_links - 1, alpha)
    x_tail = 0.0
    for k, spec in enumerate(steps):
        a = anchor_link(spec, n_links)
        before = body_points(states[k], link_length, a)
        after = body_points(states[k + 1], link_length, a)
        x_tail += after[0, 0] - before[0, 0]
    return float(x_tail)
