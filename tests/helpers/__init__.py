"""What tests share: paths, pixels, a virtual mouse, the real-window harness, report reading.

The fixtures live in `tests.helpers.fixtures`; tests/conftest.py registers them for every test.
"""
