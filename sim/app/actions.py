"""What each named control does in a running scene: the other half of `sim.app.controls`.

`controls` says which key sends which action; this module says what the action does, so a new
feature adds its action here instead of growing the app's composition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sim.editor.inspector import TURN_DEG

if TYPE_CHECKING:
    from sim.app.composition import SimApp


def key_actions(app: SimApp) -> dict[str, Callable[[], None]]:
    """Every action of the controls table, bound to `app`'s parts."""
    view, menu, race = app.search_view, app.generator_menu, app.race
    # While the race is open the search view's keys drive it (`RaceControl.route`).
    routed = race.route
    lanes = race.view
    inspector = app.inspector
    return {
        "remove_hovered": app.editor.remove_hovered,
        "toggle_snap": app.editor.toggle_snap,
        "cycle_terrain_cost": app.cycle_terrain_cost,
        "open_generator_menu": menu.open,
        "reset_camera": app.camera.reset,
        "quit": app.base.userExit,
        "toggle_grid": app.toggle_grid,
        "toggle_blocks": app.toggle_blocks,
        "toggle_path": app.toggle_path,
        "toggle_hud": app.toggle_hud,
        "toggle_pause": app.toggle_pause,
        "reset_agents": app.reset_agents,
        "toggle_agent_mode": app.toggle_agent_mode,
        "cycle_heuristic": app.cycle_heuristic,
        "toggle_connectivity": app.toggle_connectivity,
        "cycle_diagonal_rule": lambda: app.grid.set_planning(diagonal=app.grid.rule.next),
        "toggle_search_view": view.toggle,
        "toggle_race": lanes.toggle,
        "close_search_view": routed(view.close, lanes.close),
        "play_pause": routed(view.play_pause, lanes.play_pause),
        "step_back": routed(view.step_back, lanes.step_back),
        "step_forward": routed(view.step_forward, lanes.step_forward),
        "faster": routed(view.faster, lanes.faster),
        "slower": routed(view.slower, lanes.slower),
        "reset_search": routed(view.reset, lanes.reset),
        "search_to_end": routed(view.to_end, lanes.to_end),
        "toggle_parent_arrows": routed(app.toggle_parent_arrows, lanes.toggle_parents),
        "toggle_search_numbers": app.toggle_search_numbers,
        "toggle_compare": routed(app.search_panel.toggle_compare, lambda: None),
        "toggle_crowd_gizmos": app.crowd_render.toggle_gizmos,
        "rotate_left": lambda: inspector.rotate(-TURN_DEG),
        "rotate_right": lambda: inspector.rotate(TURN_DEG),
        "nudge_left": lambda: inspector.nudge(-1, 0),
        "nudge_right": lambda: inspector.nudge(1, 0),
        "nudge_up": lambda: inspector.nudge(0, 1),
        "nudge_down": lambda: inspector.nudge(0, -1),
        "inspect_fields": inspector.next_field,
    }
