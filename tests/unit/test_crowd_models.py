"""A driven agent's own model, when a batched renderer draws it instead (`hide_driven`).

Stashed, not hidden: the cull and the picking rays skip it (a hidden node is still walked by
the cull and still taken by collision rays). Handed back, it is in the scene again, visible,
where the crowd left the agent.
"""

from __future__ import annotations

import math

from panda3d.core import (
    CollisionHandlerQueue,
    CollisionNode,
    CollisionRay,
    CollisionSphere,
    CollisionTraverser,
)

from sim.components.crowd import CROWD_THRESHOLD
from sim.engine.picking import PICK_MASK, make_pickable
from tests.unit.test_crowd_sim import Scene, doorway


def crowd_hiding_models(count: int) -> Scene:
    scene = doorway(count)
    scene.sim.hide_driven = True  # as the app's CrowdSim, whose markers draw driven agents
    return scene


def ray_hits_down_at(scene: Scene, x: float, y: float) -> int:
    """How many pickable things a ray straight down at (x, y) meets under the world's root."""
    ray = CollisionNode("ray")
    ray.add_solid(CollisionRay(x, y, 10.0, 0.0, 0.0, -1.0))
    ray.set_from_collide_mask(PICK_MASK)
    ray_np = scene.world.root.attach_new_node(ray)
    queue = CollisionHandlerQueue()
    traverser = CollisionTraverser("test")
    traverser.add_collider(ray_np, queue)
    traverser.traverse(scene.world.root)
    ray_np.remove_node()
    return queue.get_num_entries()


def test_driven_models_are_out_of_the_cull_and_the_rays():
    scene = crowd_hiding_models(CROWD_THRESHOLD)
    agent = scene.agents[0]
    body = agent.game_object.node.attach_new_node(CollisionNode("body"))
    body.node().add_solid(CollisionSphere(0.0, 0.0, 0.2, 0.2))
    make_pickable(agent.game_object)
    x, y = agent.game_object.xy
    assert ray_hits_down_at(scene, x, y) == 1, "a ray meets the agent before the crowd drives it"
    scene.step()
    assert scene.sim.driven.all()
    scene.sim.sync_nodes()
    x, y = agent.position
    assert agent.game_object.node.is_stashed(), "out of the scene graph the cull walks"
    assert ray_hits_down_at(scene, x, y) == 0, "and out of the rays"
    assert scene.world.root.find_all_matches("**/walker-*").get_num_paths() == 0


def test_agents_handed_back_show_their_models_where_the_crowd_left_them():
    scene = crowd_hiding_models(CROWD_THRESHOLD)
    for _ in range(30):
        scene.step()
    assert all(agent.game_object.node.is_stashed() for agent in scene.agents)
    scene.agents[0].game_object.destroy()
    scene.step()  # the agent leaves at the end of this frame
    scene.step()  # and its row at the start of this one: too few left, all handed back
    for agent in scene.agents[1:]:
        node = agent.game_object.node
        assert not agent.driven
        assert not node.is_stashed()
        assert not node.is_hidden()
        assert math.dist((node.get_x(), node.get_y()), agent.position) < 1e-6
    found = scene.world.root.find_all_matches("**/walker-*").get_num_paths()
    assert found == CROWD_THRESHOLD - 1, "all back in the scene graph"
