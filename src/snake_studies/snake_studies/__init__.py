"""Studies and their figures behind the command line and the reproduction: 001 pushing (:mod:`.pushing`),
003 rectilinear gait (:mod:`.rectilinear`), climbing in 3-D (:mod:`.climb_3d`) and across engines (:mod:`.engines`).
``commands/`` parses arguments and prints; ``reproduction/`` imports these. Independent simulation runs of a study
or a reproduction section run on the sweep engine (:mod:`.grid`).
"""
