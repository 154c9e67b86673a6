"""Walkable arrays as the searches take them: `frozen` makes one that can never change."""
