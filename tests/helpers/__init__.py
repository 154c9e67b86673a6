"""What tests share, so no test module imports another.

paths (repository folders, artifacts, the Moving AI maps), reports (reading them as readers do),
pixels (reading a window back), virtual_mouse (input without a window), window (the real app
under Xvfb), grids / oracles / problems (the navigation tests' grids, independent checks and
random problems), and fixtures, which tests/conftest.py registers for every test.
"""
