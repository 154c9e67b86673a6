"""Benchmarks of what the window shows: a whole app in a real window, timed frame by frame."""
