"""The crowd: every agent's state and its step, with no Panda3D.

`Crowd` owns the agents by index (`add_agent`, `update_agent`, `request_target`, `remove_agent`)
and `update(dt, locate)` steps them: the driven ones down shared distance fields with reciprocal
avoidance (ORCA), walls and parting, the self-steered ones through `avoid` and `commit_pose`.
`avoid` gives a crowd's new velocities and `find_neighbours` the neighbours each one considers.
"""

from sim.crowd.avoidance import avoid, find_neighbours
from sim.crowd.crowd import Crowd

__all__ = ["Crowd", "avoid", "find_neighbours"]
