"""The simulator's side of the ROS graph: the embedded simulator's node (:mod:`snake_sim_ros.simulator`,
``sim.launch.py simulator:=embedded``) and the whole body behind the emulated joint modules
(``snake-can emulate --world``). It imports snake_sim and the robot's packages; none of them imports it."""
