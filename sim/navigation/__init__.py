"""The pathfinding core: numpy and the standard library only, no Panda3D.

Arrays are ``[row, col]``; a cell given as a pair is ``(row, col)``; the search core names a
cell by its flat index ``row * width + col``. `find_path` is the entry point (`find_paths`
answers many start/goal pairs on one array in one call, as a list or as one `PathBatch` of
numpy arrays); `GridMap` places
a grid in the world; `rasterize_boxes` turns obstacle footprints into a blocked mask and
`rasterize_terrain` (or `TerrainLayer`, patch by patch) terrain patches into cell costs from
0.25 to 100; `clearance` gives one map that `usable_mask` turns into the cells an agent of any
radius may use, and `segment_is_clear` / `smooth_path` take that radius for its swept disc;
`movingai` reads the Moving AI benchmark files and `movingai_files` writes them;
`generate_layout` draws mazes, rooms and random maps, `random_scenarios` connected pairs on
them. `ExpansionLog` and `SearchReplay` record a search and step through it both ways;
`compare_searches` runs every variant on one grid.
`DiagonalRule` names the four diagonal rules `find_path` takes; `SearchSettings` holds its
options as one value, for `find_path_with`.
`SearchKind` lists the searches on offer, each once, with its label and promise.
`JumpPointSearch` is the Python reference of jump point search, which `find_path` runs by
default where it applies (``algorithm="auto"``). `BidirectionalSearch` (A* from both ends,
``algorithm="bidirectional"``) and `ThetaStar` (any-angle paths, ``algorithm="theta"``) can be
stepped like `Search`.
`NavLink` joins two cells that need not be neighbours (a jump, a ladder, a teleport, a one-way
drop); `find_path(..., links=)` walks them, `check_links` checks them and `link_hops` tells
which step of a path takes which.
`freeze` makes a walkable array that can never change (read-only, backed by ``bytes``), which
the compiled searches answer without checking it against their packed copies (`is_frozen`).
`IncrementalSearch` keeps one agent's search and repairs it when cells change (D* Lite).
`label_regions` numbers the connected regions of a mask and `RegionMap` keeps them current as
it changes (`find_path` uses them to answer a goal out of reach at once, `region_cache`).

>>> import numpy as np
>>> find_path(np.ones((3, 3), dtype=bool), (0, 0), (2, 2)).cells
((0, 0), (1, 1), (2, 2))
"""

from sim.navigation.arrays.frozen import freeze, is_frozen
from sim.navigation.batch import PathBatch, find_paths
from sim.navigation.catalogue import SearchKind
from sim.navigation.clearance import clearance, disc_segment_is_clear, usable_mask
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import MAX_COST, MIN_COST, Cell, Endpoints, GridMap, heuristic_scale
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
from sim.navigation.links import LINK_KINDS, NavLink, check_links, link_hops
from sim.navigation.maps.generators import (
    LAYOUT_KINDS,
    LAYOUT_PARAMETERS,
    generate_layout,
    random_scenarios,
)
from sim.navigation.maps.movingai import (
    MapFormatError,
    MovingAIMap,
    Scenario,
    parse_map,
    parse_scenarios,
    read_map,
    read_scenarios,
)
from sim.navigation.maps.movingai_files import write_map, write_scenarios
from sim.navigation.moves import MoveGraph
from sim.navigation.pathfinder import find_path, find_path_with
from sim.navigation.query import (
    Algorithm,
    Implementation,
    PathResult,
    Query,
    Reason,
    SearchSettings,
)
from sim.navigation.raster import (
    Box,
    Footprint,
    box_footprint,
    rasterize_box_into,
    rasterize_boxes,
    transform_box,
)
from sim.navigation.regions.labels import RegionMap, label_regions
from sim.navigation.replay.compare import ComparisonRow, compare_searches, format_table
from sim.navigation.replay.log import CellStatus, ExpansionLog, ReplayState, SearchReplay
from sim.navigation.searches.best_first import Search, start_search
from sim.navigation.searches.bidirectional import BidirectionalSearch
from sim.navigation.searches.incremental import IncrementalSearch
from sim.navigation.searches.jps import JumpPointSearch
from sim.navigation.searches.theta import ThetaStar
from sim.navigation.terrain import (
    TerrainLayer,
    TerrainSummary,
    check_terrain_cost,
    rasterize_terrain,
    terrain_summary,
)

__all__ = [
    "LAYOUT_KINDS",
    "LAYOUT_PARAMETERS",
    "LINK_KINDS",
    "MAX_COST",
    "MIN_COST",
    "Algorithm",
    "BidirectionalSearch",
    "Box",
    "Cell",
    "CellStatus",
    "ComparisonRow",
    "DiagonalRule",
    "Endpoints",
    "ExpansionLog",
    "Footprint",
    "GridMap",
    "Heuristic",
    "Implementation",
    "IncrementalSearch",
    "JumpPointSearch",
    "MapFormatError",
    "MoveGraph",
    "MovingAIMap",
    "NavLink",
    "PathBatch",
    "PathResult",
    "Query",
    "Reason",
    "RegionMap",
    "ReplayState",
    "Scenario",
    "Search",
    "SearchKind",
    "SearchReplay",
    "SearchSettings",
    "TerrainLayer",
    "TerrainSummary",
    "ThetaStar",
    "box_footprint",
    "cells_on_segment",
    "chebyshev",
    "check_links",
    "check_terrain_cost",
    "clearance",
    "compare_searches",
    "disc_segment_is_clear",
    "euclidean",
    "find_path",
    "find_path_with",
    "find_paths",
    "format_table",
    "freeze",
    "generate_layout",
    "heuristic_scale",
    "is_admissible",
    "is_frozen",
    "label_regions",
    "link_hops",
    "manhattan",
    "octile",
    "parse_map",
    "parse_scenarios",
    "path_length",
    "random_scenarios",
    "rasterize_box_into",
    "rasterize_boxes",
    "rasterize_terrain",
    "read_map",
    "read_scenarios",
    "segment_is_clear",
    "smooth_path",
    "start_search",
    "terrain_summary",
    "transform_box",
    "usable_mask",
    "write_map",
    "write_scenarios",
    "zero",
]
