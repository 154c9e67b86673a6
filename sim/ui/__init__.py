"""The window's furniture: docked panels, the toolbar, the status bar and the help overlay.

Widgets drawn with Panda3D's 2D scene graph that know nothing of navigation, the crowd or the
app: each is handed a parent node and the callbacks it needs, so the composition decides what
they show and where they sit.
"""
