"""The composition root: a ShowBase, a World and its components, built from a SceneSpec."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from direct.task.Task import Task
from panda3d.core import (
    ButtonThrower,
    ClockObject,
    GraphicsOutput,
    ModifierButtons,
    MouseWatcher,
    NodePath,
    Point3,
)

from sim.app import hud_text, trace
from sim.app.actions import key_actions
from sim.app.close_request import quit_on_close_request
from sim.app.controls import add_help_overlay, bind_controls, hud_help, panel_help, table_keys
from sim.app.generator_menu import GeneratorMenu
from sim.app.legend_setup import BOTTOM as LEGEND_BOTTOM
from sim.app.legend_setup import add_legend
from sim.app.mapf_playback import MapfPlayback
from sim.app.messages import Messages
from sim.app.modes import Modes
from sim.app.outputs import RunOutputs
from sim.app.process import run_signals, tell
from sim.app.race_control import RaceControl
from sim.app.report import Report
from sim.app.report_builder import ReportParts, build_report
from sim.app.scene_parts import (
    add_agents,
    add_crowd_field,
    add_grid_manager,
    add_terrain,
    note_obstacles_off_the_grid,
    replan_interval,
)
from sim.app.script_gate import ScriptGate
from sim.components.crowd_render import CrowdRenderer, frames_of
from sim.components.crowd_sim import CROWD_SIM, CrowdSim
from sim.components.ground_view import add_ground_view, grid_bounds
from sim.components.hud import Hud
from sim.components.motion import SceneMotion
from sim.components.start_end_path import StartEndPath
from sim.editor.editor import SceneEditor
from sim.editor.inspector import TYPED_CHARS, Inspector, has_rotator
from sim.editor.inspector_panel import InspectorPanel
from sim.editor.paint import PaintTool
from sim.editor.wall_batch import add_wall_batch
from sim.editor.workspace import TOOLBAR_PX, Anchors, Workspace
from sim.engine import FrameLoop, GameObject, Gizmos, World
from sim.engine.camera import CameraPose, OrbitCamera, OrbitCameraInput
from sim.engine.labels import BillboardLabels
from sim.engine.lighting import LookFallback, apply_look, drop_look
from sim.engine.loop import WINDOW_STEP_S, Phase
from sim.engine.pointer import PointerTrail, modifier_buttons
from sim.engine.projection import node_middle
from sim.engine.showbase import DisplaySettings, open_showbase
from sim.errors import shown
from sim.scene.builder import build_scene
from sim.scene.script_trust import UNTRUSTED, ScriptTrust
from sim.scene.spec import SceneSpec
from sim.search_view.panel import SearchPanel
from sim.search_view.view import LABEL_COLOR, LABEL_LINE_HEIGHT, SearchView
from sim.ui.viewport import screen_of_point as viewport_point
from sim.ui.window_panels import WindowPanels

BACKGROUND_COLOR = (0.16, 0.18, 0.22, 1.0)
CAMERA_FOV_DEG = 50.0
REPORT_EVERY_S = 1.0
# The search view's playback and panel run on frame time (Phase.UI), so Space, which pauses
# simulated time, leaves them working.
SEARCH_TASK = "search-view"
EXIT_INTERRUPTED = 130  # Ctrl+C: 128 + SIGINT, as shells report it


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
        scripts: Whether the scene's scripts run from the start (`sim.scene.script_trust`).
    """

    scene: SceneSpec
    display: DisplaySettings
    frames: int | None = None
    screenshot: Path | None = None
    report: Path | None = None
    save_as: Path | None = None
    trace: Path | None = None
    trace_every: int = 1
    scripts: ScriptTrust = UNTRUSTED


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
        # First: the scripts' load warnings are told before anything else is built.
        self.messages = Messages()
        # The scene's scripts are imported and built first (if allowed): one that does not load
        # is a one-line SceneError before any window opens.
        self.script_gate = ScriptGate(options.scene, options.scripts, notify=self.notify)
        self.base = open_showbase(options.display)
        # The outputs' own: a script's error joins them; `sim run` exits 1 for failed outputs.
        self.outputs = RunOutputs(window=self.base.win, report=self.report)
        self.errors = self.outputs.errors
        self.base.set_background_color(*BACKGROUND_COLOR)
        self.base.camLens.set_min_fov(CAMERA_FOV_DEG)
        # The scene shows in the viewport only; the panels dock beside it (`sim.ui.layout`).
        self.panels = WindowPanels(self.base, legend_bottom=LEGEND_BOTTOM)
        self.layout = self.panels.layout
        self.clock = ClockObject.get_global_clock()
        self.world = World(self.base.render)
        self.gizmos = Gizmos(self.base.render)
        headless = options.display.headless
        # The window steps as headless runs do, so what happens never depends on the renderer.
        fixed_dt = 1.0 / options.display.fixed_fps if headless else WINDOW_STEP_S
        self.loop = FrameLoop(self.world, self.clock, gizmos=self.gizmos, fixed_dt=fixed_dt)
        self.loop.attach(self.base.task_mgr)
        scene = options.scene
        # Before the GridManager: in one frame the world moves, then the grid follows it.
        self.motion = self.world.spawn("scene-motion").add_component(
            SceneMotion(dragged=lambda: self.editor.held)
        )
        # Also before the GridManager: what a script moves is in the grid in the same frame.
        self.scripts = self.script_gate.spawn_runner(
            self.world, errors=self.errors, dragged=lambda: self.editor.held
        )
        self.grid = add_grid_manager(self.world, scene)
        note_obstacles_off_the_grid(scene, self.grid)
        self.path = self.world.spawn("start-end-path").add_component(
            StartEndPath(
                self.grid, replan_interval_s=replan_interval(scene), dragging=self.dragging
            )
        )
        self.crowd = add_crowd_field(self.world, self.grid, scene)
        # Its markers draw the agents it drives, whose own models it hides.
        self.crowd_sim = self.world.spawn(CROWD_SIM).add_component(
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
        self.script_gate.attach(self.objects, banner_parent=self.layout.viewport_top)
        self.layout.fit_viewport_top()
        self.agents = add_agents(
            scene,
            self.objects,
            grid=self.grid,
            crowd=self.crowd,
            crowd_sim=self.crowd_sim,
            dragging=self.dragging,
        )
        self.legend = add_terrain(
            self.world, scene, self.objects, legend_parent=self.panels.legend_corner
        )
        crowd_sim = self.crowd_sim
        renderer = CrowdRenderer(
            frames_of(crowd_sim, joint=crowd_sim.jam_members, visible=crowd_sim.marker_visible),
            camera=self.base.cam,
            window=self.base.win,
        )
        self.crowd_render = self.world.spawn("crowd-render").add_component(renderer)
        add_ground_view(
            self.world, self.grid, camera=self.base.cam, window_height=self.layout.viewport_height
        )
        self.hud = self.world.spawn("hud").add_component(
            Hud(
                top_left=self.panels.left.add(lambda: self.hud.height),
                width=self.layout.left.width,
                help_text=hud_help(),
                status=self.status_lines,
            )
        )
        self.layout.left.on_resize(lambda width, _: self.hud.fit(width))
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
                window_height=self.layout.viewport_height,
                dragging=self.dragging,
            )
        )
        inspector_slot = self.panels.right.add(lambda: self.inspector_panel.height)
        self.search_panel = SearchPanel(
            self.search_view,
            self.panels.right.add(lambda: self.search_panel.height, right_aligned=True),
            clock=self.clock.get_frame_time,
            key_help=panel_help(),
            dragging=self.dragging,
            width=self.layout.right.width,
        )
        self.loop.add_task(Phase.UI, self._tick_search_view, SEARCH_TASK)
        self.panels.attach(self.loop)  # after the gizmo flush, where the HUD rewrites its text
        self.colour_legend = add_legend(
            self.world,
            self.panels.legend_corner,
            terrain_legend=self.legend,
            view=self.search_view,
            path=self.path,
            hud=self.hud,
            crowd_render=self.crowd_render,
        )
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
        self.paint = PaintTool(
            world=self.world,
            loader=self.base.loader,
            grid=self.grid,
            editor=self.editor,
            objects=self.objects,
            scene=scene,
            moves_itself=lambda obj: self.motion.placement(obj) is not None,
            notify=self.notify,
        )
        add_wall_batch(self.world, self.grid, paint=self.paint, drag=self.editor.drag)
        pose = scene.camera
        home = CameraPose(pose.target, pose.distance, pose.heading, pose.pitch)
        self.camera = OrbitCamera(self.base.camera, home)
        self.camera_input: OrbitCameraInput | None = None
        self.frames = 0
        self.failed_outputs = self.outputs.failed_outputs
        self.trace = trace.open_trace(
            options.trace,
            every=options.trace_every,
            failed=self.outputs.failed,
            scene=str(scene.path),
            dt=self.loop.fixed_dt,
            grid=self.grid,
            agents=self.agents,
            movers=self.motion.movers,
        )
        self.mapf_playback: MapfPlayback | None = None  # a MAPF plan's, set by `sim run`
        self._next_report_s = 0.0
        self._bind_keys(inspector_slot)
        self._report_parts = ReportParts(
            scene_path=str(scene.path),
            look_asked=options.display.look,
            world=self.world,
            camera=self.camera,
            grid=self.grid,
            path=self.path,
            objects=self.objects,
            agents=self.agents,
            hud=self.hud,
            messages=self.messages,
            search_view=self.search_view,
            search_panel=self.search_panel,
            race=self.race.report,
            editor=self.editor,
            window_size=self.window_size,
            fps=self.clock.get_average_frame_rate,
            screen_of=self.screen_of,
            screen_of_point=self.screen_of_point,
            scripts=self.script_gate.entry,
            mapf_playback=lambda: self.mapf_playback,
            workspace=self.workspace,
        )
        quit_on_close_request(self.base)
        if self.base.mouseWatcherNode is not None:
            # The stubs type buttonThrowers as the nodes; ShowBase holds their NodePaths.
            thrower = self.base.buttonThrowers[0].node()  # type: ignore[attr-defined]
            self.bind_mouse(self.base.mouseWatcherNode, thrower, self.base.win)

    def _bind_keys(self, inspector_slot: NodePath) -> None:
        """Build the modal parts and their mode owner; bind the controls table's keys."""
        self.generator_menu = self.world.spawn("generator-menu").add_component(
            GeneratorMenu(
                parent=self.base.aspect2d,
                world=self.world,
                grid=self.grid,
                editor=self.editor,
                notify=self.notify,
            )
        )
        self.race = RaceControl(
            base=self.base,
            world=self.world,
            loop=self.loop,
            grid=self.grid,
            search_view=self.search_view,
            path=self.path,
            hud=self.hud,
            terrain_legend=self.legend,
            dragging=self.dragging,
            first_frame=self.first_frame,
            render_paused=self.render_paused,
        )
        left, right = self.layout.left, self.layout.right
        self.race.panel.dock((left.bottom_left, left.width), (right.bottom_left, right.width))
        scene = self.options.scene
        self.inspector_panel = InspectorPanel(inspector_slot, width=self.layout.right.width)
        self.inspector = self.world.spawn("inspector").add_component(
            Inspector(
                editor=self.editor,
                grid=self.grid,
                root=self.world.root,
                panel=self.inspector_panel,
                notify=self.notify,
                turns_itself=lambda name: has_rotator(scene, name),
                motion=self.motion,
                details=hud_text.agent_details,
            )
        )
        self.workspace = Workspace(
            editor=self.editor,
            inspector=self.inspector,
            camera=self.camera,
            lens_camera=self.base.cam,
            grid=self.grid,
            motion=self.motion,
            scene=scene,
            world=self.world,
            loop=self.loop,
            # The hierarchy under the HUD in the left dock; the toolbar over the viewport.
            anchors=Anchors(
                self.panels.left.add(lambda: self.workspace.hierarchy_height),
                self.layout.reserve_toolbar(TOOLBAR_PX).top_left,
            ),
            clock=self.clock.get_frame_time,
            reset=self.reset_agents,
            hierarchy_width=self.layout.left.width,
        )
        self.modes = Modes(
            view=self.search_view,
            race=self.race.view,
            menu=self.generator_menu,
            inspector=self.inspector,
            notify=self.notify,
            typing_keys=set(TYPED_CHARS) - table_keys(),
            table_owned=table_keys(),
        )
        self.help_overlay = add_help_overlay(
            self.base, self.modes, lambda: self.mapf_playback is not None, self.script_gate
        )
        own = {
            "toggle_grid": self.toggle_grid,
            "toggle_path": self.toggle_path,
            "toggle_hud": self.toggle_hud,
            "toggle_pause": self.toggle_pause,
            "reset_agents": self.reset_agents,
            "toggle_connectivity": self.toggle_connectivity,
            "allow_scripts": self.script_gate.allow,
            **self.workspace.actions(),
            "toggle_paint": self.paint.key_i,
            "toggle_top_down": lambda: self.camera.toggle_top_down(grid_bounds(self.grid)),
            "toggle_help": self.help_overlay.toggle,
        }
        actions = key_actions(
            own,
            modes=self.modes,
            editor=self.editor,
            camera=self.camera,
            quit_app=self.base.userExit,
            grid=self.grid,
            view=self.search_view,
            panel=self.search_panel,
            lanes=self.race.view,
            crowd_render=self.crowd_render,
            inspector=self.inspector,
            agents=self.agents,
        )
        keys = self.modes.search_keys  # the help overlay takes Esc first, then the modes
        bind_controls(self.base, actions, search_open=keys, captured=self.help_overlay.captured)

    def _tick_search_view(self, task: Task) -> int:
        if self.look_fallback is not None:
            slow = self.look_fallback.tick(self.clock.get_real_time())
            if slow is not None:
                self.look = drop_look(self.base.render)
                self.notify(
                    f"look: plain at {slow:.0f} fps (shadows off); sim run --look full keeps them"
                )
        self.modes.follow()
        self.search_view.tick(self.clock.get_dt())
        self.search_panel.refresh()
        shown = self.messages.showing(now_s=self.world.time_s)
        self.panels.tick(shown or hud_text.status_bar_line(self.path, self.agents, self.crowd_sim))
        # While the view is open it draws the search's own path: the planner's would give it away.
        self.path.suppressed = self.search_view.opened
        return int(task.cont)

    def bind_mouse(
        self, watcher: MouseWatcher, thrower: ButtonThrower, window: GraphicsOutput | None = None
    ) -> None:
        """Drive the camera and the editor from `watcher` (`window`'s, or a VirtualMouse's)."""
        # Events carry the modifiers held at them ("control-s"): no chord is lost in one frame.
        watcher.set_modifier_buttons(ModifierButtons())
        thrower.set_modifier_buttons(modifier_buttons())
        pointer = PointerTrail(watcher, events=self.base, loop=self.loop, window=window)
        # Both read the pointer in Phase.INPUT, the camera first, so a pick sees this frame's view.
        self.camera_input = OrbitCameraInput(
            self.camera, events=self.base, pointer=pointer, loop=self.loop
        )
        self.editor.bind(events=self.base, pointer=pointer, loop=self.loop)
        self.paint.bind(events=self.base, pointer=pointer, loop=self.loop)
        self.camera_input.right_button_taken = lambda: self.paint.active

    def notify(self, message: str) -> None:
        """Show `message` on the HUD for a few seconds and print it for whoever watches stdout."""
        self.messages.add(message, now_s=self.world.time_s)
        tell(f"sim: {shown(message)}")

    def toggle_grid(self) -> None:
        """Show or hide the grid lines."""
        self.grid.show_grid = not self.grid.show_grid

    def toggle_path(self) -> None:
        """Show or hide the Start -> End path and the agents' routes."""
        self.path.show_path = not self.path.show_path
        for agent in self.agents:
            agent.show_path = self.path.show_path

    def toggle_hud(self) -> None:
        """Show or hide the panels and the HUD; hidden, the viewport takes the whole window."""
        self.layout.visible = not self.layout.visible
        self.hud.visible = self.layout.visible
        self.workspace.set_visible(self.layout.visible)
        if self.legend is not None:
            self.legend.visible = self.hud.visible

    def toggle_pause(self) -> None:
        """Stop or resume simulated time (the camera keeps working)."""
        self.loop.paused = not self.loop.paused

    def reset_agents(self) -> None:
        """Put every agent back on Start."""
        for agent in self.agents:
            agent.reset_to_start()

    def toggle_connectivity(self) -> None:
        """Switch planning between 8- and 4-connected moves (replans as `cycle_heuristic`)."""
        self.grid.set_planning(diagonal=not self.grid.diagonal)

    def dragging(self) -> bool:
        """Whether a cube or a handle is being dragged now (the editor's fact, for the gates)."""
        return self.editor.dragging

    def status_lines(self) -> list[str]:
        """What the HUD shows now."""
        return hud_text.status_lines(
            fps=self.clock.get_average_frame_rate(),
            paused=self.loop.paused,
            scene_name=self.options.scene.name,
            grid=self.grid,
            path=self.path,
            agents=self.agents,
            crowd_sim=self.crowd_sim,
            message=self.messages.showing(now_s=self.world.time_s),
            mapf=self.mapf_playback,
        )

    def step(self) -> None:
        """Run one frame: input, world update, gizmos, render; rewrite the report when due."""
        self.base.task_mgr.step()
        self.frames += 1
        if self.trace is not None:
            self.trace.record(self.frames, self.world.time_s, self.agents)
        if self.options.report is not None and self.world.time_s >= self._next_report_s:
            self._next_report_s = self.world.time_s + REPORT_EVERY_S
            self.write_report(self.options.report)

    def first_frame(self) -> None:
        """Run the first frame if none has run (it puts the obstacles in the grid)."""
        if self.frames == 0:
            self.step()

    def render_paused(self) -> None:
        """Render one frame with simulated time stopped (the views draw; nothing moves)."""
        was_paused = self.loop.paused
        self.loop.paused = True
        try:
            self.base.task_mgr.step()
        finally:
            self.loop.paused = was_paused

    def run(self) -> int:
        """Run until the frame budget is spent or the user quits; return the exit status.

        Esc, closing the window or the end of the frame budget return 0, Ctrl+C 130, SIGTERM
        143 (at the end of the frame, as Esc, or at once inside a script; `RunSignals`). Each
        way the screenshot and the final report are written first; outputs that could not be
        written are in `failed_outputs`.
        """
        frames, status = self.options.frames, 0
        options = self.options
        write = functools.partial(
            self.outputs.write_final,
            screenshot=options.screenshot,
            report=options.report,
            trace=self.trace,
        )
        with run_signals(write, lambda: self.scripts.in_hook, self.base.task_mgr) as signals:
            try:
                while not self.base.quit_requested and (frames is None or self.frames < frames):
                    # A signal now, or one the scripts' runner took in a frame before the run.
                    if signals.received is not None or self.scripts.interrupted:
                        break
                    self.step()
            except KeyboardInterrupt:  # the user's (a script's own never leaves its runner)
                status = EXIT_INTERRUPTED
            signals.write_outputs()
        return signals.status() or status

    def screen_of(self, game_object: GameObject) -> tuple[int, int] | None:
        """Where the middle of `game_object` shows in the window (origin top-left), if visible."""
        return self.screen_of_point(node_middle(game_object.node))

    def screen_of_point(self, point: Point3) -> tuple[int, int] | None:
        """Where world `point` shows in the window (origin top-left), if in the viewport."""
        # The camera's lens now: the top-down view swaps in an orthographic one.
        camera = self.base.cam
        return viewport_point(
            point, camera=camera, lens=camera.node().get_lens(), layout=self.layout
        )

    def window_size(self) -> tuple[int, int]:
        """The window's or buffer's size in pixels."""
        return (self.base.win.get_x_size(), self.base.win.get_y_size())

    def report(self) -> Report:
        """The report as it stands now (`sim.app.report`; docs/command-line.md)."""
        self.crowd_sim.sync_nodes()  # the crowd writes its agents' nodes only when read
        return build_report(
            self._report_parts, frames=self.frames, look=self.look, errors=self.errors
        )

    def write_report(self, path: Path) -> None:
        """Rewrite the report at `path` (`RunOutputs.write_report`: a failure is recorded)."""
        self.outputs.write_report(path)

    def save_screenshot(self, path: Path) -> bool:
        """Save the last frame at `path` (`RunOutputs.save_screenshot`); whether it was."""
        return self.outputs.save_screenshot(path)

    def destroy(self) -> None:
        """Tear everything down so another SimApp can open in the same process."""
        self.loop.detach()
        self.modes.destroy()
        self.help_overlay.destroy()
        self.search_panel.destroy()
        self.race.destroy()
        if self.camera_input is not None:
            self.camera_input.detach()
        self.editor.detach()
        self.workspace.destroy()
        self.paint.detach()
        self.base.ignore_all()
        for game_object in self.world.objects:
            self.world.destroy(game_object)
        self.world.flush_destroyed()
        self.gizmos.destroy()
        self.panels.destroy()
        self.base.destroy()
