"""A head reference through timed poses, as an operator sends it on /head/reference (nav_msgs/Path,
or one geometry_msgs/PoseStamped), for the head trackers of 004 §6.

The samples are world head poses (X, Y, ψ) at times t_k (docs/design.md world frame, ψ the heading of
the head). Between samples the reference moves at constant velocity (piecewise-linear w^r, ẇ^r the
segment's slope, ẅ^r = 0); before the first and after the last sample it holds that pose with zero
velocity. Headings are unwrapped so that a path crossing ±π does not turn the head a full circle.
The result is in 004's frame (``convention.head_pose_to_world`` is its own inverse).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import ConfigError
from .convention import head_pose_to_world
from .head_tracking import HeadReference


@dataclass(frozen=True, eq=False)
class SampledReference:
    t: np.ndarray  # (k,) strictly increasing [s]
    w: np.ndarray  # (k, 3) [x_h, y_h, θ_1] in 004's frame

    def __call__(self, t: float) -> HeadReference:
        k = int(np.searchsorted(self.t, t, side="right"))  # samples at or before t
        if k == 0 or k == len(self.t):
            w = self.w[0] if k == 0 else self.w[-1]
            return HeadReference(w.copy(), np.zeros(3), np.zeros(3))
        t0, t1 = self.t[k - 1], self.t[k]
        rate = (self.w[k] - self.w[k - 1]) / (t1 - t0)
        return HeadReference(self.w[k - 1] + rate * (t - t0), rate, np.zeros(3))


def sampled_reference(t: np.ndarray, world_poses: np.ndarray, source: str | None = None) -> SampledReference:
    """Validate timed world poses (k, 3) = (X, Y, ψ) and build the reference."""
    t = np.asarray(t, dtype=float)
    poses = np.asarray(world_poses, dtype=float)
    if t.ndim != 1 or t.size == 0 or poses.shape != (t.size, 3):
        raise ConfigError("head reference", poses.shape, "must be k ≥ 1 poses (X, Y, ψ) with one time each", source)
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(poses))):
        raise ConfigError("head reference", "NaN/inf", "poses and times must be finite", source)
    if np.any(np.diff(t) <= 0):
        raise ConfigError("head reference stamps", t.tolist(), "must be strictly increasing", source)
    poses = poses.copy()
    poses[:, 2] = np.unwrap(poses[:, 2])
    return SampledReference(t, head_pose_to_world(poses))
