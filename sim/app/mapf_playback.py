"""A MAPF plan's playback in the app: its agents, its timeline keys, HUD lines, legend, report.

`sim run MAP.map --scen SCEN --agents K` solves the instance before the window opens and hands
the plan here. The agents are one `MapfAgents` component; the timeline keys are the controls
table's PLAYBACK rows (`sim.app.controls`), bound on a listener of their own so they never
replace the table's bindings, and skipped while a menu or a field holds the keyboard. The
playback is a component itself: it binds its keys when it wakes and lets go of them when the
world is torn down.
"""

from __future__ import annotations

from collections.abc import Callable

from direct.showbase.DirectObject import DirectObject
from panda3d.core import NodePath

from sim.app.controls import Binder, Mode, controls
from sim.app.report import MapfPlaybackEntry
from sim.components.legend import Legend, LegendRow, LegendSection
from sim.components.mapf_agents import (
    STATE_COLORS,
    STATE_LABELS,
    MapfAgents,
    PlanGeometry,
)
from sim.engine import Component, World
from sim.mapf import MapfProblem, MapfResult

SCRUB_STEPS = 10
LEGEND_BOTTOM = 0.68  # above the scene's own legend (its ten rows), in aspect2d units


class MapfPlayback(Component):
    """The plan's agents and their timeline, as the app shows them.

    Args:
        world: The world the agents' component joins (its update plays the timeline).
        root: The 3-D scene's root.
        corner: The window's bottom-left corner, for the legend.
        problem: The instance.
        result: The solver's plan.
        hud_visible: Whether the HUD shows (the legend follows it).
        captured: Whether a menu or a field holds a key now (then the timeline ignores it).
    """

    def __init__(
        self,
        *,
        world: World,
        root: NodePath,
        corner: NodePath,
        problem: MapfProblem,
        result: MapfResult,
        hud_visible: Callable[[], bool],
        captured: Callable[[str], bool],
    ) -> None:
        super().__init__()
        self.problem, self.result = problem, result
        # As `sim.scene.layout` lays a map out: centred on the origin, one unit a cell.
        geometry = PlanGeometry(
            problem.height, problem.width, (-problem.width / 2, -problem.height / 2)
        )
        self.agents = world.spawn("mapf-agents").add_component(
            MapfAgents(root, result.paths, problem.goals, geometry)
        )
        rows = tuple(LegendRow(STATE_LABELS[state], color) for state, color in STATE_COLORS.items())
        self.legend = world.spawn("mapf-legend").add_component(
            Legend(
                corner,
                [LegendSection("MAPF agents", rows)],
                visible=hud_visible,
                bottom=LEGEND_BOTTOM,
            )
        )
        self._captured = captured
        self._keys = DirectObject()

    def awake(self) -> None:
        """Bind the timeline keys."""
        actions: dict[str, Callable[[], None]] = {
            "toggle_plan_play": self.agents.toggle_play,
            "step_plan_back": self.agents.step_back,
            "step_plan_forward": self.agents.step_forward,
            "scrub_plan_back": lambda: self.agents.scrub(-SCRUB_STEPS),
            "scrub_plan_forward": lambda: self.agents.scrub(SCRUB_STEPS),
        }
        for row in controls(Mode.ALWAYS, bound_by=Binder.PLAYBACK):
            action = self._gated(row.key, actions[row.action])
            self._keys.accept(row.key, action)
            if row.repeats:
                self._keys.accept(f"{row.key}-repeat", action)

    def status_lines(self) -> list[str]:
        """The HUD's lines about the plan: the step, the totals, the states."""
        agents, result = self.agents, self.result
        counts = agents.state_counts()
        states = ", ".join(f"{count} {label}" for label, count in counts.items())
        return [
            f"MAPF {result.solver}: step {agents.step} / {agents.makespan}"
            f"{'' if agents.playing else ' (paused)'}   "
            f"sum of costs {result.soc}   makespan {result.makespan}",
            f"{agents.agents} agents: {states}",
        ]

    def entry(self) -> MapfPlaybackEntry:
        """The report's section: where the timeline stands and what the plan is."""
        agents, result = self.agents, self.result
        counts = agents.state_counts()
        width = self.problem.width
        return {
            "step": agents.step,
            "time": round(agents.time, 6),
            "playing": agents.playing,
            "steps": agents.makespan,
            "agents": agents.agents,
            "solver": result.solver,
            "soc": result.soc,
            "makespan": result.makespan,
            "states": {
                "moving": counts["moving"],
                "waiting": counts["waiting"],
                "at_goal": counts["at goal"],
            },
            # Column first, as the plan files and the Moving AI files give cells.
            "cells": [[cell % width, cell // width] for cell in agents.cells().tolist()],
        }

    def on_destroy(self) -> None:
        """Stop listening for the timeline keys."""
        self._keys.ignore_all()

    def _gated(self, key: str, action: Callable[[], None]) -> Callable[[], None]:
        def press() -> None:
            if not self._captured(key):
                action()

        return press
