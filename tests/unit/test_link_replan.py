"""A dragged link end replans at once the agents it matters to, and only those (no window)."""

from __future__ import annotations

from dataclasses import dataclass, field

from panda3d.core import Point3

from sim.components.grid_manager import GridManager, PlanOutcome
from sim.crowd.state import ReplanCause
from sim.editor.history import EditHistory
from sim.editor.link_ends import LinkEnds
from sim.scene.file import load_scene
from sim.scene.links import nav_links
from tests.helpers.paths import REPO_ROOT

LINKS_SCENE = REPO_ROOT / "scenes" / "links.toml"


class _Ground:
    """A picker whose ground point is the mouse position itself (world x, y)."""

    def ground_point(self, mouse: tuple[float, float], *, z: float = 0.0) -> Point3:
        return Point3(mouse[0], mouse[1], z)


@dataclass
class _Agent:
    """What `agents_to_replan` reads of an agent: its plan; and the replans it was asked for."""

    outcome: PlanOutcome | None
    driven: bool = False
    replans: list[ReplanCause] = field(default_factory=list)

    def replan_now(self, cause: ReplanCause = ReplanCause.INTERVAL) -> None:
        self.replans.append(cause)


def _plan(cells: list[tuple[int, int]], cost: float) -> PlanOutcome:
    return PlanOutcome(True, "", tuple(cells), (), cost=cost)


def _world() -> tuple[LinkEnds, EditHistory, dict[str, _Agent]]:
    scene = load_scene(LINKS_SCENE)
    spec = scene.grid
    grid = GridManager(
        origin=spec.origin,
        num_of_rows=spec.rows,
        num_of_columns=spec.columns,
        grid_cell_size=spec.cell_size,
    )
    grid._walkable[:, 12] = False  # the wall, as the scene's obstacle rasterizes
    grid.links = nav_links(scene.links, spec.origin, spec.cell_size)
    agents = {
        # Up the ladder (link 0: cells (11, 10) to (11, 13)), as it was.
        "climber": _Agent(_plan([(11, 9), (11, 10), (11, 13), (11, 14)], 9.0)),
        # Three cells in the south-west corner: no ladder anywhere can beat 2 cells.
        "local": _Agent(_plan([(2, 2), (2, 3), (2, 4)], 2.0)),
        # Round the far side by the teleport, 30 long: a ladder two cells away may be shorter.
        "walker": _Agent(_plan([(12, 8), (1, 1), (12, 22), (12, 16)], 30.0)),
        "stuck": _Agent(PlanOutcome(False, "unreachable")),
        "crowd": _Agent(_plan([(2, 2), (2, 3)], 1.0), driven=True),
    }
    history = EditHistory()
    ends = LinkEnds(_Ground(), grid, history, scene.links, print, list(agents.values()))  # type: ignore[arg-type]
    return ends, history, agents


def _replanned(agents: dict[str, _Agent]) -> set[str]:
    return {name for name, agent in agents.items() if agent.replans}


def test_a_dropped_link_end_replans_at_once_the_agents_it_matters_to():
    ends, history, agents = _world()
    assert ends.press((-1.3, 4.6))  # the ladder's west foot
    ends.move((-2.6, 4.5))
    assert _replanned(agents) == set(), "not while dragging: on the drop"
    ends.release((-3.4, 5.4))
    assert _replanned(agents) == {"climber", "walker", "stuck", "crowd"}
    assert all(
        agent.replans == [ReplanCause.INTERVAL] for agent in agents.values() if agent.replans
    )
    history.undo()  # the ladder back: the same agents again
    assert agents["climber"].replans == [ReplanCause.INTERVAL] * 2
    assert agents["local"].replans == []


def test_a_refused_drop_replans_nobody():
    ends, history, agents = _world()
    assert ends.press((1.5, -3.5))  # the drop's landing
    ends.release((0.2, -3.5))  # inside the wall: it goes back
    assert history.undo_depth == 0
    assert _replanned(agents) == set()
