"""Turn a SceneSpec into game objects, ground and lights in a World."""

from __future__ import annotations

from direct.showbase.Loader import Loader
from panda3d.core import AmbientLight, DirectionalLight, NodePath

from sim.config import AGENT_MODEL_RADIUS
from sim.engine import GameObject, World
from sim.scene.spec import ObjectSpec, SceneSpec

GROUND_COLOR = (0.62, 0.66, 0.60, 1.0)
BACKDROP_COLOR = (0.30, 0.33, 0.32, 1.0)
BACKDROP_MARGIN = 0.5  # the backdrop reaches this fraction of the grid's size past each edge
NOSE_COLOR = (0.1, 0.1, 0.1, 1.0)  # the agent's nose is dark so its facing reads at a glance
AMBIENT = (0.38, 0.38, 0.42, 1.0)
SUN = (0.85, 0.82, 0.75, 1.0)
SUN_HPR = (35.0, -55.0, 0.0)
GROUND_BIN_SORT = 1  # terrain patches follow from sort 10 on


def build_scene(world: World, loader: Loader, spec: SceneSpec) -> list[GameObject]:
    """Light the world, lay the ground under the grid and add one game object per scene object.

    Returns the scene's objects in file order. Each object's node carries the scene's position,
    scale and heading; the model hangs under it, so the node's transform is the object's footprint.
    """
    _add_lights(world.root)
    _add_ground(world.root, loader, spec)
    # Each model is loaded once and copied per object: a load costs about 130 us even from the
    # loader's model pool (2.7 s for 20,000 objects), a copy about 15 us. Copies share the
    # geometry, as the pool's copies do.
    models: dict[str, NodePath] = {}
    objects = []
    for obj in spec.objects:
        if obj.model not in models:
            models[obj.model] = loader.load_model(obj.model, okMissing=False)
        objects.append(world.add(_make_object(world.root, models[obj.model], obj)))
    return objects


def _make_object(root: NodePath, template: NodePath, obj: ObjectSpec) -> GameObject:
    node = root.attach_new_node(obj.name)
    model = template.copy_to(node)
    node.set_pos(*obj.pos)
    node.set_scale(*obj.scale)
    node.set_h(obj.heading)
    node.set_color(*obj.color)
    if obj.agent is not None:
        _draw_to_radius(model, obj)
    nose = model.find("**/nose")
    if not nose.is_empty():
        nose.set_color(*NOSE_COLOR)
    return GameObject(node, tag=str(obj.tag))


def _draw_to_radius(model: NodePath, obj: ObjectSpec) -> None:
    """Scale an agent's model so it spans its disc: `radius` world units each side of its centre.

    The model hangs under the object's node, so the node keeps the scene's scale (the report's)
    and the model undoes it; at the default radius and scale 1 nothing changes.
    """
    if obj.agent is None:
        return
    size = obj.agent.radius / AGENT_MODEL_RADIUS
    model.set_scale(*(size / axis for axis in obj.scale))


def _add_ground(root: NodePath, loader: Loader, spec: SceneSpec) -> None:
    grid = spec.grid
    x0, y0 = grid.origin
    width, height = grid.columns * grid.cell_size, grid.rows * grid.cell_size
    ground = loader.load_model("plane", okMissing=False)
    ground.reparent_to(root)
    ground.set_name("ground")
    ground.set_pos(x0, y0, 0.0)
    ground.set_scale(width, height, 1.0)
    ground.set_color(*GROUND_COLOR)
    # Push the ground back in depth so grid lines at z=0 never z-fight with it (lines ignore
    # polygon offsets under GL, so the offset goes on the ground, not on the lines).
    ground.set_depth_offset(-1)
    # Drawn first (the background bin, in sort order), so terrain patches can lie on it
    # without hiding what is drawn just above the ground (`sim.components.terrain`).
    ground.set_bin("background", GROUND_BIN_SORT)
    margin_x, margin_y = width * BACKDROP_MARGIN, height * BACKDROP_MARGIN
    backdrop = loader.load_model("plane", okMissing=False)
    backdrop.reparent_to(root)
    backdrop.set_name("backdrop")
    backdrop.set_pos(x0 - margin_x, y0 - margin_y, -0.01)
    backdrop.set_scale(width + 2 * margin_x, height + 2 * margin_y, 1.0)
    backdrop.set_color(*BACKDROP_COLOR)
    backdrop.set_depth_offset(-2)
    backdrop.set_bin("background", GROUND_BIN_SORT - 1)


def _add_lights(root: NodePath) -> None:
    ambient = root.attach_new_node(AmbientLight("ambient"))
    ambient.node().set_color(AMBIENT)
    sun = root.attach_new_node(DirectionalLight("sun"))
    sun.node().set_color(SUN)
    sun.set_hpr(*SUN_HPR)
    root.set_light(ambient)
    root.set_light(sun)
