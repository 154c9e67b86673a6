"""Editing the live scene with the mouse: pick, drag, add, remove, save."""
