"""Long seeded runs of edits, undos and redos end in the scene the remaining edits make alone.

Each edit goes through the editor's own entry points (a drop, an add, X's removal, U's cost, the
generator), one frame apart as a person's would be. A model of the history keeps the edits that
remain; afterwards everything is undone (which must give back the scene as loaded) and only
those edits are made again, as new edits: the scene must come out the same, object for object
and cell for cell.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest

from sim.config import Tag
from sim.navigation.maps.generators import LAYOUT_KINDS
from tests.helpers.paths import DEFAULT_SCENE, SCENES_DIR

pytestmark = pytest.mark.render

STEPS = 200
MOVABLE = (Tag.START, Tag.END, Tag.OBSTACLE, Tag.TERRAIN)


@dataclass(frozen=True)
class EditMade:
    """One edit as the user made it, enough to make it again on the same scene."""

    kind: str  # "move", "add", "remove", "cost", "generate"
    name: str = ""
    xy: tuple[float, float] = (0.0, 0.0)
    seed: int = 0


def live(app, name):
    return next(obj for obj in app.objects if obj.alive and obj.name == name)


def make(app, edit: EditMade) -> None:
    """Make `edit` the way its input would."""
    editor = app.editor
    if edit.kind == "move":
        obj = live(app, edit.name)
        grabbed_at = obj.xy
        obj.node.set_x(edit.xy[0])
        obj.node.set_y(edit.xy[1])
        editor.on_drop(obj, grabbed_at)
    elif edit.kind == "add":
        editor.add_obstacle(*edit.xy)
    elif edit.kind == "remove":
        editor.remove(live(app, edit.name))
    elif edit.kind == "cost":
        editor.step_cost(live(app, edit.name))
    else:
        app.generator_menu.generated = edit.seed
        assert app.generator_menu.generate(edit.name)
    app.step()


def scene_now(app):
    """What a save would write (by name) and the grid's cells and costs."""
    states = sorted(app.editor.object_states(), key=lambda state: state.name)
    costs = None if app.grid.costs is None else app.grid.costs.copy()
    return states, app.grid.walkable.copy(), costs


def assert_same_scene(got, expected) -> None:
    assert got[0] == expected[0]
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])


def random_edit(app, rng: random.Random, generated: int) -> EditMade:
    grid = app.grid
    x0, y0 = grid.origin
    width = grid.num_of_columns * grid.grid_cell_size
    height = grid.num_of_rows * grid.grid_cell_size
    spot = (
        round(x0 + rng.uniform(0.1, width - 0.1), 3),
        round(y0 + rng.uniform(0.1, height - 0.1), 3),
    )
    objects = [obj for obj in app.objects if obj.alive]
    obstacles = [obj for obj in objects if obj.tag == Tag.OBSTACLE]
    patches = [obj for obj in objects if obj.tag == Tag.TERRAIN]
    roll = rng.random()
    if roll < 0.03:
        return EditMade("generate", rng.choice(LAYOUT_KINDS), seed=generated)
    if roll < 0.25:
        cell = grid.world_to_cell(*spot)
        return EditMade("add", xy=grid.cell_to_world(cell))
    if roll < 0.4 and obstacles:
        return EditMade("remove", rng.choice(obstacles).name)
    if roll < 0.5 and patches:
        return EditMade("cost", rng.choice(patches).name)
    movable = [obj for obj in objects if obj.tag in MOVABLE]
    return EditMade("move", rng.choice(movable).name, xy=spot)


@pytest.mark.parametrize(
    ("scene", "seed"),
    [(SCENES_DIR / "terrain.toml", 1), (DEFAULT_SCENE, 2)],
    ids=["terrain-seed-1", "default-seed-2"],
)
def test_a_random_run_ends_as_its_remaining_edits_make_it(open_app, scene, seed):
    app = open_app(scene, size=(320, 240))
    app.step()
    loaded = scene_now(app)
    rng = random.Random(seed)
    done: list[EditMade] = []
    undone: list[EditMade] = []
    generated = 0
    counts = {"undo": 0, "redo": 0, "edit": 0}
    for _ in range(STEPS):
        roll = rng.random()
        if roll < 0.25:
            app.editor.undo()
            if done:
                undone.append(done.pop())
            counts["undo"] += 1
        elif roll < 0.4:
            app.editor.redo()
            if undone:
                done.append(undone.pop())
            counts["redo"] += 1
        else:
            edit = random_edit(app, rng, generated)
            generated += edit.kind == "generate"
            make(app, edit)
            done.append(edit)
            undone.clear()
            counts["edit"] += 1
        app.step()
        history = app.editor.history
        assert (history.undo_depth, history.redo_depth) == (len(done), len(undone))
    assert min(counts.values()) > 20, counts
    assert done, "some edits remain"
    reached = scene_now(app)

    while app.editor.history.undo_depth:
        app.editor.undo()
        app.step()
    assert_same_scene(scene_now(app), loaded)

    for edit in done:
        make(app, edit)
    assert_same_scene(scene_now(app), reached)
