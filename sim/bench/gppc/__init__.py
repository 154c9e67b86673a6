"""`sim bench --gppc`: the grid-pathfinding competition's scoreboard, ours beside warthog."""
