"""What tests share, so no test module imports another.

paths (repository folders, artifacts, the Moving AI maps), reports (reading them as readers do),
pixels (reading a window back, the offscreen PRC), virtual_mouse (input without a window),
inspector (typing into the editor's inspector), window (the real app under Xvfb), scenes (the
small scenes' shared text, saving an edited scene), grids / oracles / problems (the navigation
tests' grids, independent checks and random problems), links (random grids with links, and
edits between plans), and fixtures, which tests/conftest.py registers for every test.
"""
