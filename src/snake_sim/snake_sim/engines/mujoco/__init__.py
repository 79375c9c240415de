"""The 3-D model on MuJoCo (002's robot in 3-D): the MJCF built from the robot and world files (:mod:`.mjcf`),
its numerical settings (:mod:`.settings`), the model/data functions (:mod:`.model`) and the runtime
(:mod:`.runtime`)."""
