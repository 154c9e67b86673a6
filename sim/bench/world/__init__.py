"""Benches of a world in motion: carving under moving obstacles, and replanning bursts."""
