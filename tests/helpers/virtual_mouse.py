"""A VirtualMouse in Panda3D's data graph: real mouse1/mouse3 events, no window needed."""

from __future__ import annotations

from panda3d.core import (
    ButtonHandle,
    ButtonRegistry,
    ButtonThrower,
    MouseButton,
    MouseWatcher,
    VirtualMouse,
)

from sim.app.composition import SimApp

LEFT = MouseButton.one()


class Mouse:
    """Drive `app` the way a person's mouse and keyboard would, one frame per action."""

    def __init__(self, app: SimApp) -> None:
        self.app = app
        width, height = app.window_size()
        self.virtual = VirtualMouse("test-mouse")
        self.virtual.set_window_size(width, height)
        mouse_np = app.base.dataRoot.attach_new_node(self.virtual)
        watcher = MouseWatcher("test-watcher")
        watcher_np = mouse_np.attach_new_node(watcher)
        thrower = ButtonThrower("test-buttons")
        watcher_np.attach_new_node(thrower)
        self.virtual.set_mouse_on(True)
        app.bind_mouse(watcher, thrower)

    def move(self, pixel: tuple[float, float]) -> None:
        self.virtual.set_mouse_pos(int(pixel[0]), int(pixel[1]))
        self.app.step()

    def drag(self, start, end, *, button=LEFT, steps: int = 8) -> None:
        self.move(start)
        self.virtual.press_button(button)
        self.app.step()
        for i in range(1, steps + 1):
            t = i / steps
            self.move((start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t))
        self.virtual.release_button(button)
        self.app.step()

    def click(self, pixel, *, button=LEFT, holding=None) -> None:
        self.move(pixel)
        if holding is not None:
            self.virtual.press_button(holding)
            self.app.step()
        self.virtual.press_button(button)
        self.app.step()
        self.virtual.release_button(button)
        self.app.step()
        if holding is not None:
            self.virtual.release_button(holding)
            self.app.step()

    def key(self, name: str, *, holding=None) -> None:
        if holding is not None:
            self.virtual.press_button(holding)
            self.app.step()
        # Panda3D's own button names ("arrow_right", "enter", "home", "space"...).
        button = ButtonRegistry.ptr().find_button(name)
        assert button != ButtonHandle.none(), f"no button called {name!r}"
        self.virtual.press_button(button)
        self.app.step()
        self.virtual.release_button(button)
        self.app.step()
        if holding is not None:
            self.virtual.release_button(holding)
            self.app.step()
