"""The crowd's maths, with no Panda3D.

Reciprocal avoidance (ORCA) between disc agents, the walls a disc meets, and where an agent aims
along a shared distance field. `avoid` gives a crowd's new velocities and `find_neighbours` the
neighbours each one considers.
"""

from sim.crowd.avoidance import avoid, find_neighbours

__all__ = ["avoid", "find_neighbours"]
