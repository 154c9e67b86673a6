"""The composition root: a ShowBase, a World and its components, built from a SceneSpec."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from direct.task.Task import Task
from panda3d.core import (
    ButtonThrower,
    ClockObject,
    GraphicsWindow,
    ModifierButtons,
    MouseWatcher,
    PNMImage,
    Point3,
    StringStream,
)

from sim.app import hud_text, trace
from sim.app.actions import key_actions
from sim.app.controls import bind_controls, hud_help, panel_help, table_keys
from sim.app.generator_menu import GeneratorMenu
from sim.app.legend_setup import add_legend
from sim.app.process import sigterm_stops_the_loop, tell
from sim.app.race_control import RaceControl
from sim.app.report import Report
from sim.app.report_builder import build_report
from sim.app.trace import TraceWriter
from sim.components.agent_controller import ROUTES_DRAWN, AgentController
from sim.components.crowd import CrowdField
from sim.components.crowd_render import CrowdRenderer, frames_of
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import HEURISTICS, GridManager
from sim.components.hud import Hud
from sim.components.motion import SceneMotion
from sim.components.start_end_path import StartEndPath
from sim.components.terrain import TerrainPatch
from sim.components.terrain_legend import TerrainLegend
from sim.config import AgentConfig, Tag
from sim.editor.editor import SceneEditor
from sim.editor.inspector import Inspector
from sim.engine import FrameLoop, GameObject, Gizmos, World
from sim.engine.camera import CameraPose, OrbitCamera, OrbitCameraInput
from sim.engine.labels import BillboardLabels
from sim.engine.lighting import LookFallback, apply_look, drop_look
from sim.engine.loop import Phase
from sim.engine.projection import world_to_pixel
from sim.engine.showbase import DisplaySettings, open_showbase
from sim.files import write_bytes_atomic, write_json_atomic
from sim.scene.builder import build_scene
from sim.scene.grid import obstacle_box
from sim.scene.spec import SceneSpec
from sim.scripting.loader import load_scripts
from sim.scripting.runner import ScriptRunner
from sim.search_view.panel import SearchPanel
from sim.search_view.view import LABEL_COLOR, LABEL_LINE_HEIGHT, SearchView

BACKGROUND_COLOR = (0.16, 0.18, 0.22, 1.0)
CAMERA_FOV_DEG = 50.0
REPORT_EVERY_S = 1.0
MESSAGE_S = 4.0  # how long an edit or save message stays on the HUD
# The search view's playback and panel run on frame time (Phase.UI), so Space, which pauses
# simulated time, leaves them working.
SEARCH_TASK = "search-view"
CLOSE_REQUEST_EVENT = "window-close-request"
EXIT_INTERRUPTED = 130  # Ctrl+C: 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # SIGTERM: 128 + SIGTERM


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What `sim run` was asked to do.

    Attributes:
        scene: The loaded scene.
        display: Window or offscreen buffer settings.
        frames: Stop after this many frames; None runs until the user quits.
        screenshot: Save a PNG of the last frame here.
        report: Keep a JSON report here, rewritten every simulated second and at exit.
        save_as: Ctrl+S saves the edited scene here instead of over its own file.
        trace: Write the agents' trace here (`sim.app.trace`), one line per traced frame.
        trace_every: Trace every this many frames.
    """

    scene: SceneSpec
    display: DisplaySettings
    frames: int | None = None
    screenshot: Path | None = None
    report: Path | None = None
    save_as: Path | None = None
    trace: Path | None = None
    trace_every: int = 1


class SimApp:
    """One running scene: builds everything in the constructor, `run()` drives the frames.

    Update order each frame (the World's insertion order): the scene's motion first (movers,
    rotators, doors), then the GridManager, so obstacle changes are in the grid before anything
    plans; then the Start -> End path, the crowd's shared fields and the crowd (`CrowdSim`, which
    moves the agents of every target enough agents chase); then the scene's objects with their
    agents; the HUD last.
    """

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        # The scene's scripts are imported and built first: one that does not load is a
        # one-line SceneError before any window opens.
        scripts = load_scripts(options.scene)
        self.base = open_showbase(options.display)
        self.base.set_background_color(*BACKGROUND_COLOR)
        self.base.camLens.set_min_fov(CAMERA_FOV_DEG)
        self.clock = ClockObject.get_global_clock()
        self.world = World(self.base.render)
        self.gizmos = Gizmos(self.base.render)
        headless = options.display.headless
        fixed_dt = 1.0 / options.display.fixed_fps if headless else None
        self.loop = FrameLoop(self.world, self.clock, gizmos=self.gizmos, fixed_dt=fixed_dt)
        self.loop.attach(self.base.task_mgr)
        scene = options.scene
        # Before the GridManager: in one frame the world moves, then the grid follows it.
        self.motion = self.world.spawn("scene-motion").add_component(
            SceneMotion(dragged=lambda: self.editor.drag.dragged)
        )
        # Also before the GridManager: what a script moves is in the grid in the same frame.
        self.scripts = self.world.spawn("scene-scripts").add_component(
            ScriptRunner(on_error=self.script_failed, dragged=lambda: self.editor.drag.dragged)
        )
        self.grid = self._add_grid_manager()
        self._note_obstacles_off_the_grid()
        self.path = self.world.spawn("start-end-path").add_component(
            StartEndPath(
                self.grid, replan_interval_s=self._replan_interval(), dragging=self.dragging
            )
        )
        self.crowd = self.world.spawn("crowd-field").add_component(
            CrowdField(self.grid, replan_interval_s=self._replan_interval())
        )
        # Its markers draw the agents it drives, whose own models it hides.
        self.crowd_sim = self.world.spawn("crowd-sim").add_component(
            CrowdSim(self.grid, self.crowd, hide_driven=True)
        )
        self.objects = build_scene(self.world, self.base.loader, scene)
        ground = self.base.render.find("ground")
        look = options.display.look
        self.look = apply_look(self.base.win, self.base.render, cover=ground, look=look)
        wants_fallback = look == "auto" and (self.look.shadows or self.look.multisamples > 0)
        self.look_fallback = LookFallback() if wants_fallback else None
        for spec, game_object in zip(scene.objects, self.objects, strict=True):
            self.motion.add(game_object, mover=spec.mover, rotator=spec.rotator, door=spec.door)
        self.scripts.attach(scripts, self.objects)
        self.agents = self._add_agents()
        self.legend = self._add_terrain()
        renderer = CrowdRenderer(
            frames_of(self.crowd_sim), camera=self.base.cam, window=self.base.win
        )
        self.crowd_render = self.world.spawn("crowd-render").add_component(renderer)
        self.hud = self.world.spawn("hud").add_component(
            Hud(
                top_left=self.base.a2dTopLeft,
                bottom_left=self.base.a2dBottomLeft,
                help_text=hud_help(),
                status=self.status_lines,
            )
        )
        labels = BillboardLabels(
            self.base.render,
            color=LABEL_COLOR,
            height=LABEL_LINE_HEIGHT * scene.grid.cell_size,
        )
        self.search_view = self.world.spawn("search-view").add_component(
            SearchView(
                self.grid,
                labels=labels,
                camera=self.base.cam,
                window_height=lambda: self.window_size()[1],
                dragging=self.dragging,
            )
        )
        self.search_panel = SearchPanel(
            self.search_view,
            self.base.a2dTopRight,
            clock=self.clock.get_frame_time,
            key_help=panel_help(),
            dragging=self.dragging,
        )
        self.loop.add_task(Phase.UI, self._tick_search_view, SEARCH_TASK)
        self.colour_legend = add_legend(self)
        self.editor = SceneEditor(
            world=self.world,
            loader=self.base.loader,
            camera=self.base.cam,
            grid=self.grid,
            objects=self.objects,
            scene=scene,
            save_as=options.save_as,
            notify=self.notify,
            motion=self.motion,
            agents=self.agents,
            moved_by_script=self.scripts.moved,
        )
        pose = scene.camera
        home = CameraPose(pose.target, pose.distance, pose.heading, pose.pitch)
        self.camera = OrbitCamera(self.base.camera, home)
        self.camera_input: OrbitCameraInput | None = None
        self.frames = 0
        self.errors: list[str] = []
        # Each output that failed to be written, with the first reason: `sim run` exits 1 for them.
        self.failed_outputs: dict[Path, str] = {}
        self.reports_written = 0
        self.trace = self._open_trace()
        self._message: tuple[str, float] | None = None
        self._next_report_s = 0.0
        self._bind_keys()
        self._quit_on_close_request()
        if self.base.mouseWatcherNode is not None:
            # The stubs type buttonThrowers as the nodes; ShowBase holds their NodePaths.
            thrower = self.base.buttonThrowers[0].node()  # type: ignore[attr-defined]
            self.bind_mouse(self.base.mouseWatcherNode, thrower)

    def _add_grid_manager(self) -> GridManager:
        grid = self.options.scene.grid
        manager = GridManager(
            origin=grid.origin,
            num_of_rows=grid.rows,
            num_of_columns=grid.columns,
            grid_cell_size=grid.cell_size,
            diagonal=grid.rule,
        )
        return self.world.spawn("grid-manager").add_component(manager)

    def _note_obstacles_off_the_grid(self) -> None:
        """Print once, at startup, each obstacle the grid clips (part or all of it is ignored)."""
        for spec in self.options.scene.objects_with_tag(Tag.OBSTACLE):
            note = self.grid.outside_note(spec.name, obstacle_box(spec))
            if note is not None:
                tell(f"sim: note: {note}")

    def _replan_interval(self) -> float:
        agents = self.options.scene.objects_with_tag(Tag.AGENT)
        return agents[0].agent.replan_interval_s if agents and agents[0].agent else 1.0

    def _add_agents(self) -> list[AgentController]:
        controllers: list[AgentController] = []
        for spec, game_object in zip(self.options.scene.objects, self.objects, strict=True):
            if spec.tag == Tag.AGENT:
                config = spec.agent or AgentConfig()
                controller = AgentController(
                    self.grid,
                    config,
                    crowd=self.crowd,
                    dragging=self.dragging,
                    draw_route=len(controllers) < ROUTES_DRAWN,
                    compare_fresh=not controllers,  # the HUD's agent: the others need no A*
                    crowd_sim=self.crowd_sim,
                )
                controllers.append(game_object.add_component(controller))
        return controllers

    def _add_terrain(self) -> TerrainLegend | None:
        """Give each Terrain object its cost; a scene with terrain gets the HUD's cost legend."""
        patches = [
            game_object.add_component(TerrainPatch(spec.terrain_cost))
            for spec, game_object in zip(self.options.scene.objects, self.objects, strict=True)
            if spec.terrain_cost is not None
        ]
        if not patches:
            return None
        legend = TerrainLegend(self.base.a2dBottomLeft)
        return self.world.spawn("terrain-legend").add_component(legend)

    def _bind_keys(self) -> None:
        """Bind the keys of the controls table (`sim.app.controls`) to what they do."""
        self.generator_menu = GeneratorMenu.attach(self)
        self.race = RaceControl.attach(self)
        view, race, menu = self.search_view, self.race, self.generator_menu
        self.inspector = Inspector.attach(self, table_keys=table_keys())
        inspector = self.inspector
        bind_controls(
            self.base,
            key_actions(self),
            search_open=lambda: view.opened or race.opened,  # the race takes the view's keys
            captured=lambda key: menu.captured(key) or inspector.captured(key),
        )

    def _quit_on_close_request(self) -> None:
        """Closing the window quits as Esc does, with the window still open for the screenshot.

        Without a close request event Panda3D closes the window itself before the loop ends, so
        there would be no last frame to save.
        """
        window = self.base.win
        if isinstance(window, GraphicsWindow):
            window.set_close_request_event(CLOSE_REQUEST_EVENT)
            self.base.accept(CLOSE_REQUEST_EVENT, self.base.userExit)

    def toggle_parent_arrows(self) -> None:
        """Show or hide the search view's arrows from each cell to its parent."""
        self.search_view.show_parents = not self.search_view.show_parents

    def toggle_search_numbers(self) -> None:
        """Show or hide the search view's g and f numbers."""
        self.search_view.show_numbers = not self.search_view.show_numbers

    def _tick_search_view(self, task: Task) -> int:
        if self.look_fallback is not None:
            slow = self.look_fallback.tick(self.clock.get_real_time())
            if slow is not None:
                self.look = drop_look(self.base.render)
                self.notify(
                    f"look: plain at {slow:.0f} fps (shadows and anti-aliasing off);"
                    " sim run --look full keeps them"
                )
        self.search_view.tick(self.clock.get_dt())
        self.search_panel.refresh()
        # While the view is open it draws the search's own path: the planner's would give it away.
        self.path.suppressed = self.search_view.opened
        return int(task.cont)

    def bind_mouse(self, watcher: MouseWatcher, thrower: ButtonThrower) -> None:
        """Drive the camera and the editor from `watcher` (a window's, or a VirtualMouse's)."""
        # Without modifier buttons Panda3D sends plain "mouse1"/"mouse3" whatever is held, so
        # shift and control are read at press time instead of binding every combination.
        watcher.set_modifier_buttons(ModifierButtons())
        thrower.set_modifier_buttons(ModifierButtons())
        # Both read the pointer in Phase.INPUT, the camera first, so a pick sees this frame's view.
        self.camera_input = OrbitCameraInput(
            self.camera, events=self.base, watcher=watcher, loop=self.loop
        )
        self.editor.bind(events=self.base, watcher=watcher, loop=self.loop)

    def notify(self, message: str) -> None:
        """Show `message` on the HUD for a few seconds and print it for whoever watches stdout."""
        self._message = (message, self.world.time_s + MESSAGE_S)
        tell(f"sim: {message}")

    def script_failed(self, message: str) -> None:
        """A scene script raised and was switched off: the HUD and the report's errors say so."""
        self.errors.append(message)
        self.notify(message)

    def toggle_grid(self) -> None:
        """Show or hide the grid lines."""
        self.grid.show_grid = not self.grid.show_grid

    def toggle_blocks(self) -> None:
        """Show or hide the shading of blocked cells."""
        self.grid.show_obstacle_blocks = not self.grid.show_obstacle_blocks

    def toggle_path(self) -> None:
        """Show or hide the Start -> End path and the agents' routes."""
        self.path.show_path = not self.path.show_path
        for agent in self.agents:
            agent.show_path = self.path.show_path

    def toggle_hud(self) -> None:
        """Show or hide the HUD text."""
        self.hud.visible = not self.hud.visible
        if self.legend is not None:
            self.legend.visible = self.hud.visible

    def toggle_pause(self) -> None:
        """Stop or resume simulated time (the camera keeps working)."""
        self.loop.paused = not self.loop.paused

    def reset_agents(self) -> None:
        """Put every agent back on Start."""
        for agent in self.agents:
            agent.reset_to_start()

    def toggle_agent_mode(self) -> None:
        """Switch every agent between chase and patrol."""
        for agent in self.agents:
            agent.toggle_mode()

    def cycle_heuristic(self) -> None:
        """Plan with the next heuristic (octile, euclidean, chebyshev, manhattan, zero).

        The grid's new `version` makes the path and the agents replan on the next world step.
        """
        following = (HEURISTICS.index(self.grid.heuristic) + 1) % len(HEURISTICS)
        self.grid.set_planning(heuristic=HEURISTICS[following])

    def cycle_terrain_cost(self) -> None:
        """Step the cost of the terrain patch under the cursor; the agents replan at once.

        Agents follow the grid's walls and their goal by themselves, but not its costs: a
        patch moving by itself would make them replan every frame. A change the user makes
        asks them outright (`SceneEditor.settle`, which an undo of it calls too).
        """
        self.editor.cycle_terrain_cost()

    def toggle_connectivity(self) -> None:
        """Switch planning between 8- and 4-connected moves (replans as `cycle_heuristic`)."""
        self.grid.set_planning(diagonal=not self.grid.diagonal)

    def dragging(self) -> bool:
        """Whether a cube is being dragged now (the drag controller's fact, for the gates)."""
        return self.editor.drag.in_progress

    def status_lines(self) -> list[str]:
        """What the HUD shows now."""
        message = None
        if self._message is not None and self.world.time_s <= self._message[1]:
            message = self._message[0]
        return hud_text.status_lines(self, message)

    def step(self) -> None:
        """Run one frame: input, world update, gizmos, render; rewrite the report when due."""
        self.base.task_mgr.step()
        self.frames += 1
        if self.trace is not None:
            self.trace.record(self.frames, self.world.time_s, self.agents)
        if self.options.report is not None and self.world.time_s >= self._next_report_s:
            self._next_report_s = self.world.time_s + REPORT_EVERY_S
            self.write_report(self.options.report)

    def run(self) -> int:
        """Run until the frame budget is spent or the user quits; return the exit status.

        Esc, closing the window or the end of the frame budget return 0, Ctrl+C 130, SIGTERM
        143 (it stops the loop at the end of the frame, as Esc does). Each way the screenshot
        and the final report are written first; outputs that could not be written are in
        `failed_outputs`.
        """
        frames = self.options.frames
        status = 0
        with sigterm_stops_the_loop() as terminated:
            try:
                while not self.base.quit_requested and (frames is None or self.frames < frames):
                    if terminated():
                        status = EXIT_TERMINATED
                        break
                    self.step()
            except KeyboardInterrupt:
                status = EXIT_INTERRUPTED
            self._write_outputs()
        return status

    def _write_outputs(self) -> None:
        """Write the screenshot (of the last frame) and the final report, as asked."""
        shot = self.options.screenshot
        if shot is not None:
            if self.base.win is not None and self.base.win.is_valid():
                self.save_screenshot(shot)
            else:
                self._output_failed(shot, "the window closed before its last frame was saved")
        if self.options.report is not None:
            self.write_report(self.options.report)
        if self.trace is not None:
            self.trace.close()

    def _open_trace(self) -> TraceWriter | None:
        """Open `--trace` and write its header (`sim.app.trace`); a failure is recorded."""
        path = self.options.trace
        if path is None:
            return None
        movers = self.motion.movers
        writer = TraceWriter(
            path,
            every=self.options.trace_every,
            on_failure=lambda reason: self._output_failed(path, reason, kind="trace"),
            movers=movers,
        )
        dt = self.loop.fixed_dt
        scene = str(self.options.scene.path)
        writer.write_header(trace.header(scene, dt, self.grid, self.agents, movers))
        return writer

    def screen_of(self, game_object: GameObject) -> tuple[int, int] | None:
        """Where the middle of `game_object` shows in the window (origin top-left), if visible."""
        node, render = game_object.node, self.base.render
        # Bounds relative to another node leave composed transforms in Panda3D's state cache,
        # which ShowBase then sweeps every frame: for 20,000 objects, 8 s a frame after the
        # first report. A child of render needs no other node: its parent's frame is render's.
        bounds = (
            node.get_tight_bounds()
            if node.get_parent() == render
            else node.get_tight_bounds(render)
        )
        if bounds is None:
            point = Point3(*game_object.world_pos)
        else:
            low, high = bounds
            point = Point3((low + high) / 2)
        return self.screen_of_point(point)

    def screen_of_point(self, point: Point3) -> tuple[int, int] | None:
        """Where world `point` shows in the window (origin top-left), if visible."""
        return world_to_pixel(
            point, camera=self.base.cam, lens=self.base.camLens, size=self.window_size()
        )

    def window_size(self) -> tuple[int, int]:
        """The window's or buffer's size in pixels."""
        return (self.base.win.get_x_size(), self.base.win.get_y_size())

    def report(self) -> Report:
        """The report as it stands now (see README, "Command line", and `sim.app.report`)."""
        self.crowd_sim.sync_nodes()  # the crowd writes its agents' nodes only when read
        return build_report(self)

    def write_report(self, path: Path) -> None:
        """Rewrite the report at `path` atomically; a failed write is recorded, not raised.

        A failure leaves the file as it was, is listed in the report's `errors` (once per
        reason) and in `failed_outputs`; each success counts in `reports_written`.
        """
        try:
            write_json_atomic(path, self.report())
        except OSError as error:
            self._output_failed(path, error.strerror or str(error), kind="report")
        else:
            self.reports_written += 1

    def save_screenshot(self, path: Path) -> bool:
        """Save the last rendered frame at `path`, in the format its extension names.

        The image is encoded in memory and written atomically (`write_bytes_atomic`), so a
        failure (a full disk, an extension Panda3D cannot write) leaves any file at `path` as it
        was and puts no Panda3D error on the terminal; it is recorded as `write_report` records
        one.

        Returns:
            Whether the image was written.
        """
        image = PNMImage()
        stream = StringStream()
        # Panda3D picks the image format from the name's extension.
        if not (self.base.win.get_screenshot(image) and image.write(stream, path.name)):
            self._output_failed(path, f"Panda3D could not make a {path.suffix} image of the frame")
            return False
        try:
            write_bytes_atomic(path, bytes(stream.get_data()))
        except OSError as error:
            self._output_failed(path, error.strerror or str(error))
            return False
        return True

    def _output_failed(self, path: Path, reason: str, *, kind: str = "screenshot") -> None:
        self.failed_outputs.setdefault(path, reason)
        message = f"{kind} {path}: {reason}"
        if message not in self.errors:
            self.errors.append(message)

    def destroy(self) -> None:
        """Tear everything down so another SimApp can open in the same process."""
        self.loop.detach()
        self.search_panel.destroy()
        self.race.destroy()
        if self.camera_input is not None:
            self.camera_input.detach()
        self.editor.detach()
        self.base.ignore_all()
        for game_object in self.world.objects:
            self.world.destroy(game_object)
        self.world.flush_destroyed()
        self.gizmos.destroy()
        self.base.destroy()
