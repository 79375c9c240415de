"""Compile the numba kernels into their on-disk cache (``make build`` runs ``python -m snake_sim.commands.warm_up``).

The vertical model's (002 (4.35), contacts, the plant step) and head tracking's (004) kernels are compiled on their
first call (the vertical plant step also in its batched form); a few steps of each here mean that no test, bench
or ROS node pays that compilation at its first tick.
"""

from __future__ import annotations

import warnings

from snake_sim.core.models import runtime_for
from snake_sim.core.scenario import load_scenario

#: (model's runtime module, scenario) pairs whose first steps reach every compiled kernel.
WARM_UP_RUNS: tuple[tuple[str, str], ...] = (
    ("vertical", "open-loop-obstacle"), ("vertical", "pedal-wave"),
    ("planar", "head-tracking-pfl"), ("planar", "head-tracking-lyapunov"),
)


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance notes on first compilation
        for model, name in WARM_UP_RUNS:
            runtime = runtime_for(model)
            runtime.simulate(runtime.build(load_scenario(name)), duration=0.05)
        vertical = runtime_for("vertical")  # the batched plant step (snake_sim.engines.vertical.batch)
        vertical.simulate_batch([vertical.build(load_scenario("pedal-wave", ["sim.duration=0.05"])) for _ in range(2)])


if __name__ == "__main__":
    main()
