"""Scenes and maps as learning environments: Gymnasium and PettingZoo, as ML-Agents opens Unity.

``import sim.envs`` registers ``gridpath/Navigate-v0`` with Gymnasium:

    import gymnasium, sim.envs
    env = gymnasium.make("gridpath/Navigate-v0", map="maze.map", obs_radius=5)

and `parallel_env` makes the multi-agent PettingZoo environment. `oracle_policy` and
`mapf_policy` are the baselines a learned policy is compared against. Panda3D is loaded only
when an environment renders. Needs the ``rl`` extra (gymnasium, pettingzoo).
"""

from __future__ import annotations

import gymnasium

from sim.envs.baselines import mapf_policy, oracle_policy
from sim.envs.navigate import NavigateEnv
from sim.envs.parallel import GridpathParallelEnv, parallel_env
from sim.envs.source import EnvError

NAVIGATE_ID = "gridpath/Navigate-v0"

if NAVIGATE_ID not in gymnasium.registry:
    gymnasium.register(id=NAVIGATE_ID, entry_point="sim.envs.navigate:NavigateEnv")

__all__ = [
    "NAVIGATE_ID",
    "EnvError",
    "GridpathParallelEnv",
    "NavigateEnv",
    "mapf_policy",
    "oracle_policy",
    "parallel_env",
]
