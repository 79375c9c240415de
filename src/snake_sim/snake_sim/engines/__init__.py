"""The simulation engines: the vertical (002), planar (004) and pushing (001) models and the 3-D engines MuJoCo and
DART."""
