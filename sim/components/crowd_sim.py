"""CrowdSim: the scene's `Crowd` as a component: targets found in the world, nodes written.

One per scene, updated right after the `CrowdField` and before the scene's objects. The crowd
itself (`sim.crowd.crowd.Crowd`, no Panda3D) owns every agent's state; an `AgentController`
given this component joins its crowd at awake and from then on reads and writes its row there.
What needs the scene is done here: each target key is looked up as an object (by tag or name,
again only once the one found was destroyed), the agents the crowd takes over or hands back have
their models stashed or put back and are told (`Steered.take_back`), those it does not move are
in the world's updates again (`Steered.needs_update`), and driven agents' nodes are
written only when something reads them (`sync_nodes`), every `node_sync_every` frames, or every
frame for an agent others chase or the one `watched` (the editor's selection). A model the
markers draw instead is stashed, not hidden: the cull still walks a hidden node (2 to 7 ms a frame
at 5,000 agents) and the picking ray still meets it. A driven agent crossing a link
(`Crowd.link_poses`) is shown by its own model, lifted as it arcs or climbs and hidden while a
teleport hides it; the batched markers leave it out then (`marker_visible`), and a self-steered
agent's ground marker too while its teleport hides its model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray
from panda3d.core import NodePath

from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.config import Tag
from sim.crowd.crowd import Crowd
from sim.crowd.goals import END_KEY
from sim.crowd.settings import StepSettings
from sim.crowd.state import AgentState
from sim.engine import Component, GameObject

CROWD_SIM = "crowd-sim"
"""The name of the scene's game object that holds its `CrowdSim`."""


class Steered(Protocol):
    """An agent's owner as the component sees it: its object, told when it steers again."""

    needs_update: bool
    """Whether the world calls its update (a driven agent stops it, see `update`)."""

    @property
    def game_object(self) -> GameObject:
        """The agent's object."""

    def take_back(self) -> None:
        """Steer itself again from where the crowd left it."""


class CrowdSim(Component):
    """The scene's crowd (`crowd`), stepped each frame with the scene's targets and nodes.

    Args:
        grid: The scene's grid.
        crowd: The shared distance fields.
        settings: Avoidance and arrival tunables (`StepSettings`).
        node_sync_every: Write driven agents' nodes every this many frames (0: only when
            `sync_nodes` is called, and for agents others chase).
        hide_driven: Stash driven agents' own models (a batched renderer draws them).
    """

    def __init__(
        self,
        grid: GridManager,
        crowd: CrowdField,
        *,
        settings: StepSettings | None = None,
        node_sync_every: int = 0,
        hide_driven: bool = False,
    ) -> None:
        super().__init__()
        self.crowd = Crowd(grid, crowd, settings=settings)
        self.node_sync_every = node_sync_every
        self.hide_driven = hide_driven
        self._found: dict[int, GameObject] = {}
        self._located: dict[int, GameObject | None] = {}
        self._frame = 0
        self._nodes_synced = -1
        self._index_of_object: dict[int, int] | None = None
        self._grid = grid
        # Driven agents over a link now, by index: their nodes' height on the ground.
        self._aloft: dict[int, float] = {}
        self.watched: GameObject | None = None
        """An agent whose node is written every frame while driven (the editor's selection)."""

    @property
    def settings(self) -> StepSettings:
        """The crowd's tunables."""
        return self.crowd.settings

    @property
    def planning_ms(self) -> float:
        """Wall-clock milliseconds spent computing aims so far.

        The fields count in the `CrowdField`'s own `planning_ms`.
        """
        return self.crowd.planning_ms

    def __len__(self) -> int:
        """How many agents have rows."""
        return len(self.crowd)

    # ---- What the renderer reads (read-only views, row i = agent i) ---------------------

    @property
    def positions(self) -> NDArray[np.float64]:
        """(n, 2) world x, y of every agent."""
        return self.crowd.positions

    @property
    def headings_deg(self) -> NDArray[np.float64]:
        """(n,) headings in degrees (Panda3D's: 0 faces +Y, counter-clockwise)."""
        return self.crowd.headings_deg

    @property
    def radii(self) -> NDArray[np.float64]:
        """(n,) disc radii, world units."""
        return self.crowd.radii

    @property
    def colors(self) -> NDArray[np.float64]:
        """(n, 4) RGBA of each agent's node."""
        return self.crowd.colors

    @property
    def velocities(self) -> NDArray[np.float64]:
        """(n, 2) the velocity each moved at last, world units per second."""
        return self.crowd.velocities

    @property
    def driven(self) -> NDArray[np.bool_]:
        """(n,) which agents the crowd moves (their own models hidden when `hide_driven`)."""
        return self.crowd.driven

    def jam_members(self) -> NDArray[np.bool_]:
        """(n,) which agents a jam's joint plan moves now (`sim.crowd.jams`)."""
        return self.crowd.jam_members

    def state_counts(self) -> Counter[AgentState]:
        """How many agents are in each state (one array count, not a read per agent)."""
        return self.crowd.state_counts()

    @property
    def agents(self) -> Sequence[Steered]:
        """The agents, in row order."""
        return tuple(self._steered(owner) for owner in self.crowd.owners)

    # ---- The frame ----------------------------------------------------------------------

    def update(self, dt: float) -> None:
        """Step the crowd; show, hide and tell the agents handed over; write due nodes."""
        self._frame += 1
        self._located.clear()
        crowd = self.crowd
        for index in crowd.update(dt, self._locate):
            agent = self._steered(crowd.owner(index))
            if crowd.is_driven(index):
                if self.hide_driven:
                    _stash(agent.game_object.node)
            else:
                _unstash(agent.game_object.node)
                agent.take_back()
        self._wake_steering(crowd)
        if len(crowd) and crowd.driven.any():
            self._sync_due_nodes()
        if self._grid.links or self._aloft:
            self._pose_crossers()
        # Agents in a jam's joint plan (self-steered ones too): few, and their owners wait.
        joint = np.flatnonzero(crowd.jam_members) if len(crowd) else ()
        if len(joint):
            indices = crowd.indices
            for row in joint:
                self._write_node(indices[row])

    def _wake_steering(self, crowd: Crowd) -> None:
        """Have the world update every agent the crowd does not move, before its turn.

        A driven agent takes itself out of the world's updates (thousands of calls that would
        return at once); whatever hands it back (a crowd breaking up, a joint plan over, a
        setting) puts it in again here, in the frame it steers again.
        """
        if not len(crowd):
            return
        moved = crowd.moved
        if moved.all():
            return
        owners = crowd.owners
        for row in np.flatnonzero(~moved):
            self._steered(owners[row]).needs_update = True

    def _locate(self, key: int) -> Point | None:
        """Where target `key` stands now (its object found once, again once destroyed)."""
        target = self._target(key)
        self._located[key] = target
        return None if target is None else target.xy

    def _target(self, key: int) -> GameObject | None:
        found = self._found.get(key)
        if found is not None and found.alive:
            return found
        world = self.world
        if world is None:
            return None
        name = self.crowd.target_name(key)
        if name is not None:
            found = world.find(name)
        else:
            found = world.find_with_tag(Tag.END if key == END_KEY else Tag.START)
        if found is None or not found.alive:
            self._found.pop(key, None)
            return None
        self._found[key] = found
        return found

    # ---- Links --------------------------------------------------------------------------

    def marker_visible(self) -> NDArray[np.bool_] | None:
        """(n,) which agents get a batched marker; None for all (a scene without links).

        Not a driven agent crossing a link (its own model shows it), nor a self-steered one
        whose teleport hides its model (a Python look per self-steered agent: links scenes).
        """
        crowd = self.crowd
        if not self._grid.links or not len(crowd):
            return None
        visible = ~crowd.link_poses.crossing
        owners = crowd.owners
        for row in np.flatnonzero(~crowd.driven):
            visible[row] = not self._steered(owners[row]).game_object.node.is_hidden()
        return visible

    def _pose_crossers(self) -> None:
        """Show driven agents crossing a link as their own models; put those landed back."""
        crowd = self.crowd
        poses = crowd.link_poses
        indices = crowd.indices
        crossing = {indices[row]: row for row in np.flatnonzero(poses.crossing)}
        for index in [index for index in self._aloft if index not in crossing]:
            ground = self._aloft.pop(index)
            if index not in crowd:
                continue
            node = self._steered(crowd.owner(index)).game_object.node
            node.set_z(ground)
            self._write_node(index)
            if self.hide_driven and crowd.is_driven(index):
                _stash(node)
        for index, row in crossing.items():
            node = self._steered(crowd.owner(index)).game_object.node
            ground = self._aloft.setdefault(index, float(node.get_z()))
            self._write_node(index)
            node.set_z(ground + float(poses.lift[row]))
            _unstash(node)
            if poses.shown[row]:
                node.show()
            else:
                node.hide()

    # ---- Nodes --------------------------------------------------------------------------

    def sync_nodes(self) -> None:
        """Write every driven agent's place and heading to its node (before reading nodes)."""
        if self._nodes_synced == self._frame:
            return
        self._nodes_synced = self._frame
        crowd = self.crowd
        indices = crowd.indices
        for row in np.flatnonzero(crowd.driven):
            self._write_node(indices[row])

    def outcome_of(self, index: int) -> PlanOutcome | None:
        """Driven agent `index`'s plan down its target's field (before one: its last own)."""
        plan = self.crowd.field_plan(index)
        if plan is None:
            kept: PlanOutcome | None = self.crowd.get(index, "outcome")
            return kept
        if plan.route is None:
            return PlanOutcome(False, "End cannot be reached: walled in")
        return PlanOutcome(True, "", plan.route, plan.waypoints, cost=plan.cost, length=plan.length)

    def write_node(self, index: int) -> None:
        """Write agent `index`'s place and heading to its node now."""
        self._write_node(index)

    def _sync_due_nodes(self) -> None:
        every = self.node_sync_every
        if every > 0 and self._frame % every == 0:
            self.sync_nodes()
            return
        # Agents others chase: their nodes are where the chasers read them every frame.
        crowd = self.crowd
        for target in (*self._located.values(), self.watched):
            index = None if target is None else self._index_of().get(id(target))
            if index is not None and crowd.is_driven(index):
                self._write_node(index)

    def _index_of(self) -> dict[int, int]:
        """Each agent's index by its game object's id (made again when agents join or leave)."""
        crowd = self.crowd
        if self._index_of_object is None or len(self._index_of_object) != len(crowd):
            self._index_of_object = {
                id(self._steered(owner).game_object): index
                for index, owner in zip(crowd.indices, crowd.owners, strict=True)
            }
        return self._index_of_object

    def _write_node(self, index: int) -> None:
        crowd = self.crowd
        node = self._steered(crowd.owner(index)).game_object.node
        x, y = crowd.position(index)
        node.set_x(x)
        node.set_y(y)
        node.set_h(crowd.heading_deg(index))

    @staticmethod
    def _steered(owner: object) -> Steered:
        """An owner of this crowd's rows: every one is an agent joined through it."""
        return cast("Steered", owner)


def _stash(node: NodePath) -> None:
    """Take `node` out of the scene graph the cull and the rays walk, keeping its place."""
    if not node.is_stashed() and node.has_parent():
        node.stash()


def _unstash(node: NodePath) -> None:
    """Put a stashed `node` back, shown."""
    if node.is_stashed():
        node.unstash()
    node.show()
