"""004's snake in the horizontal plane (Ariizumi & Tanaka 2019, head position control with dynamic
manipulability): the continuous-time closed loop of a head tracker and the model (3)–(20) (:mod:`.runtime`),
its head-tracking summary fields and plots (:mod:`.report`) and the model stepped by external joint torques
(:mod:`.stepper`).
"""
