"""001's snake pushing an object in the horizontal plane ("Studying slippage on pushing applications with
snake robots", 2017): a dynamic simulation with penalty contact and regularised wheels, compared with 001's
instantaneous analysis (:mod:`.plant`), and the runtime of the ``pushing`` scenario (:mod:`.runtime`).
"""
