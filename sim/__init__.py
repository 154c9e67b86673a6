"""gridpath-sim: a Panda3D Unity-analog sandbox for grid pathfinding."""

__version__ = "0.1.0"
