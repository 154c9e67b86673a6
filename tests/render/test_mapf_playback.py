"""`sim run MAP.map --scen SCEN --agents K` headless: the map as a scene, the plan played on it.

A hand-made map and scenario file (no benchmark data needed): the app is opened as `sim run`
opens it (`open_scene`, `SimApp`, `play_plan`), keys are pressed through a virtual keyboard,
and the report's ``mapf_playback`` section is checked against the solver's plan.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from panda3d.core import KeyboardButton

from sim.app.composition import RunOptions, SimApp
from sim.app.controls import CONTROLS, Binder
from sim.app.report import validate_report
from sim.commands.dispatch import build_parser
from sim.commands.run_map import MapPlan, OpenedScene, open_scene, play_plan
from sim.components.mapf_agents import STATE_COLORS, AgentState, MapfAgents
from sim.engine.showbase import DisplaySettings
from sim.mapf.checker import check_plan, flat_to_pairs
from sim.scene.grid import scene_grid
from sim.scene.layout import grid_cell
from tests.helpers.paths import artifact
from tests.helpers.pixels import near, rgb, screenshot_rgb
from tests.helpers.reports import as_read
from tests.helpers.virtual_mouse import Mouse

pytestmark = pytest.mark.render

# Two rooms joined by a one-cell door: agents on either side must take turns through it.
MAP_ROWS = [
    "..........",
    "..........",
    "....@@@...",
    "@@@.@@@@@@",
    "..........",
    "..........",
]
# x (column), y (row) of each agent's start and goal; half of them cross the door.
AGENTS = [((0, 0), (1, 5)), ((9, 5), (8, 0)), ((2, 1), (3, 4)), ((5, 4), (5, 1)), ((7, 0), (0, 4))]


def write_instance(folder: Path) -> tuple[Path, Path]:
    """The map and its scenario file in `folder`."""
    height, width = len(MAP_ROWS), len(MAP_ROWS[0])
    map_path = folder / "rooms.map"
    map_path.write_text(
        f"type octile\nheight {height}\nwidth {width}\nmap\n" + "\n".join(MAP_ROWS) + "\n"
    )
    lines = ["version 1"]
    for (sx, sy), (gx, gy) in AGENTS:
        lines.append(f"0\trooms.map\t{width}\t{height}\t{sx}\t{sy}\t{gx}\t{gy}\t1")
    scen_path = folder / "rooms.scen"
    scen_path.write_text("\n".join(lines) + "\n")
    return map_path, scen_path


class Played:
    """A headless app playing a plan, with its keyboard."""

    def __init__(self, app: SimApp, plan: MapPlan, agents: MapfAgents) -> None:
        self.app, self.plan, self.agents = app, plan, agents
        self.keys = Mouse(app)
        self.paths = np.array(plan.result.paths)

    def entry(self) -> dict:
        return as_read(self.app.report())["mapf_playback"]

    def cells_at(self, step: int) -> list[list[int]]:
        width = self.plan.problem.width
        return [[cell % width, cell // width] for cell in self.paths[:, step].tolist()]


@pytest.fixture
def played(tmp_path: Path) -> Iterator[Played]:
    map_path, scen_path = write_instance(tmp_path)
    args = build_parser().parse_args(
        ["run", str(map_path), "--scen", str(scen_path), "--agents", str(len(AGENTS))]
    )
    args.save_as = tmp_path / "saved.toml"
    opened = open_scene(args)
    assert opened.scene is not None
    assert opened.plan is not None
    display = DisplaySettings(headless=True, size=(640, 480))
    app = SimApp(RunOptions(scene=opened.scene, display=display, save_as=opened.save_as))
    try:
        playback = play_plan(
            opened.plan,
            world=app.world,
            root=app.base.render,
            corner=app.base.a2dBottomLeft,
            hud_visible=lambda: app.hud.visible,
            captured=app.modes.captured,
        )
        app.mapf_playback = playback
        app.step()
        app.toggle_pause()  # the timeline then moves only by its keys
        yield Played(app, opened.plan, playback.agents)
        assert validate_report(as_read(app.report())) == []
    finally:
        app.destroy()


def test_the_plan_is_valid_and_the_report_names_it(played: Played) -> None:
    plan = played.plan
    assert check_plan(plan.problem, flat_to_pairs(plan.problem, plan.result.paths)) == []
    entry = played.entry()
    assert entry["agents"] == len(AGENTS)
    assert entry["solver"] == "lacam"
    assert (entry["soc"], entry["makespan"]) == (plan.result.soc, plan.result.makespan)
    assert entry["steps"] == len(played.paths[0]) - 1


def test_step_forward_and_back_put_the_agents_on_the_plans_cells(played: Played) -> None:
    played.agents.set_time(0.0)
    assert played.entry()["cells"] == played.cells_at(0)
    played.keys.key(".")
    played.keys.key(".")
    assert played.entry()["step"] == 2
    assert played.entry()["cells"] == played.cells_at(2)
    played.keys.key(",")
    assert played.entry()["step"] == 1
    assert played.entry()["cells"] == played.cells_at(1)


def test_scrubbing_stops_at_both_ends(played: Played) -> None:
    steps = played.entry()["steps"]
    for _ in range(steps // 10 + 2):
        played.keys.key("]")
    assert played.entry()["step"] == steps
    assert played.entry()["states"]["at_goal"] == len(AGENTS)
    assert played.entry()["cells"] == played.cells_at(steps)
    for _ in range(steps // 10 + 2):
        played.keys.key("[")
    assert played.entry()["step"] == 0


def test_agents_glide_between_steps(played: Played) -> None:
    agents = played.agents
    agents.set_time(0.5)
    centres = agents.geometry.centres(played.paths[:, :2])
    x, y = (axis.mean(axis=1) for axis in centres)
    middle = np.stack([x, y], axis=1)
    assert agents.positions() == pytest.approx(middle)


def test_playing_runs_the_timeline_to_its_end(played: Played) -> None:
    played.app.toggle_pause()
    steps = played.entry()["steps"]
    for _ in range(600):
        if played.entry()["step"] == steps:
            break
        played.app.step()
    assert played.entry()["step"] == steps
    assert played.entry()["states"] == {"moving": 0, "waiting": 0, "at_goal": len(AGENTS)}


def test_the_hud_shows_the_step_and_the_totals(played: Played) -> None:
    played.keys.key(".")
    played.app.step()
    hud = played.app.hud.text()
    assert f"step 1 / {played.entry()['steps']}" in hud
    assert f"sum of costs {played.plan.result.soc}" in hud


def test_the_merged_walls_block_exactly_the_maps_blocked_cells(played: Played) -> None:
    spec = played.app.options.scene
    blocked = ~scene_grid(spec).walkable
    expected = np.zeros_like(blocked)
    for row, line in enumerate(MAP_ROWS):
        for col, char in enumerate(line):
            if char == "@":
                expected[grid_cell((row, col), len(MAP_ROWS))] = True
    assert (blocked == expected).all()


def test_the_agents_show_in_their_state_colours(played: Played) -> None:
    played.keys.key(".")
    played.app.save_screenshot(artifact("mapf-playback.png"))
    played.app.toggle_hud()  # the legend's swatches hold the same colours: hide them
    played.app.step()
    image = screenshot_rgb(played.app.base.win)
    states = played.agents.states()
    for state in {AgentState(int(value)) for value in states}:
        assert near(image, rgb(STATE_COLORS[state]), 12).sum() > 20, state


def test_ctrl_s_saves_a_new_scene_file_and_leaves_the_map(played: Played, tmp_path: Path) -> None:
    before = (tmp_path / "rooms.map").read_text()
    played.keys.key("s", holding=KeyboardButton.control())
    assert (tmp_path / "saved.toml").exists()
    assert (tmp_path / "rooms.map").read_text() == before


def test_a_scene_file_keeps_its_own_save_target(tmp_path: Path) -> None:
    args = build_parser().parse_args(["run", "scenes/default.toml"])
    opened = open_scene(args)
    assert isinstance(opened, OpenedScene)
    assert opened.plan is None
    assert opened.save_as is None


def test_every_timeline_key_of_the_controls_table_is_bound(played: Played) -> None:
    rows = [c for c in CONTROLS if c.bound_by is Binder.PLAYBACK]
    wanted = {c.key for c in rows} | {f"{c.key}-repeat" for c in rows if c.repeats}
    accepting = played.app.base.messenger.whoAccepts
    assert {event for event in wanted if accepting(event)} == wanted
