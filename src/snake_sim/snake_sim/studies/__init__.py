"""Studies and their figures behind the command line and the reproduction: 001 pushing (:mod:`.pushing`) and
003 rectilinear gait (:mod:`.rectilinear`). ``commands/`` parses arguments and prints; ``reproduction/`` imports these.
"""
