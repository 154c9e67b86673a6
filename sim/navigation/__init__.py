"""The pathfinding core: numpy and the standard library only, no Panda3D.

Arrays are ``[row, col]``; a cell given as a pair is ``(row, col)``; the search core names a
cell by its flat index ``row * width + col``. `find_path` is the entry point; `GridMap` places
a grid in the world; `rasterize_boxes` turns obstacle footprints into a blocked mask;
`movingai` reads the Moving AI benchmark files. `ExpansionLog` and `SearchReplay` record a
search and step through it both ways; `compare_searches` runs every variant on one grid.
`SearchKind` lists the searches on offer, each once, with its label and promise.

>>> import numpy as np
>>> find_path(np.ones((3, 3), dtype=bool), (0, 0), (2, 2)).cells
((0, 0), (1, 1), (2, 2))
"""

from sim.navigation.catalogue import SearchKind
from sim.navigation.compare import ComparisonRow, compare_searches, format_table
from sim.navigation.grid import Cell, Endpoints, GridMap
from sim.navigation.heuristics import (
    Heuristic,
    chebyshev,
    euclidean,
    is_admissible,
    manhattan,
    octile,
    zero,
)
from sim.navigation.line_of_sight import (
    cells_on_segment,
    path_length,
    segment_is_clear,
    smooth_path,
)
from sim.navigation.moves import MoveGraph
from sim.navigation.movingai import (
    MapFormatError,
    MovingAIMap,
    Scenario,
    parse_map,
    parse_scenarios,
    read_map,
    read_scenarios,
)
from sim.navigation.pathfinder import find_path
from sim.navigation.query import Algorithm, PathResult, Query, Reason
from sim.navigation.raster import (
    Box,
    Footprint,
    box_footprint,
    rasterize_box_into,
    rasterize_boxes,
    transform_box,
)
from sim.navigation.search import Search, start_search
from sim.navigation.search_log import CellStatus, ExpansionLog, ReplayState, SearchReplay

__all__ = [
    "Algorithm",
    "Box",
    "Cell",
    "CellStatus",
    "ComparisonRow",
    "Endpoints",
    "ExpansionLog",
    "Footprint",
    "GridMap",
    "Heuristic",
    "MapFormatError",
    "MoveGraph",
    "MovingAIMap",
    "PathResult",
    "Query",
    "Reason",
    "ReplayState",
    "Scenario",
    "Search",
    "SearchKind",
    "SearchReplay",
    "box_footprint",
    "cells_on_segment",
    "chebyshev",
    "compare_searches",
    "euclidean",
    "find_path",
    "format_table",
    "is_admissible",
    "manhattan",
    "octile",
    "parse_map",
    "parse_scenarios",
    "path_length",
    "rasterize_box_into",
    "rasterize_boxes",
    "read_map",
    "read_scenarios",
    "segment_is_clear",
    "smooth_path",
    "start_search",
    "transform_box",
    "zero",
]
