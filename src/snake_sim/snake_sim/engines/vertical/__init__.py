"""002's snake with series elastic actuators in the vertical plane (Koopaee's thesis, ch. 4–5): the plant
(4.35) with the motor-side PD (4.39) (:mod:`.plant`), its linearly implicit integrator (:mod:`.integrator`),
contact surfaces from an SDF world (:mod:`.terrain`), the lock-step runtime with the gait and per-joint SEA
controllers (:mod:`.runtime`) and the model stepped by external motor commands (:mod:`.stepper`).
"""
