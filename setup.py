"""Build the optional compiled search kernel; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

# The headers the C files include by relative path (so gcc alone, as .ci/sanitize runs it, finds
# them too); listed so that a change to one rebuilds the extensions that include it.
COMMON = "sim/navigation/_common.h"
SEARCH_COMMON = "sim/navigation/searches/_search_common.h"
FLAT_PATH = "sim/navigation/searches/_flat_path.h"
GRID_SEARCH = "sim/navigation/searches/_grid_search.h"
CROWD_BUFFERS = "sim/crowd/_buffers.h"
CROWD_HASH = "sim/crowd/_hash.h"

setup(
    ext_modules=[
        Extension(
            "sim.navigation.searches._kernel",
            ["sim/navigation/searches/_kernel.c"],
            depends=[
                COMMON,
                SEARCH_COMMON,
                FLAT_PATH,
                GRID_SEARCH,
                "sim/navigation/searches/_plain_call.h",
            ],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.searches._linked",
            ["sim/navigation/searches/_linked.c"],
            depends=[COMMON, SEARCH_COMMON, FLAT_PATH, GRID_SEARCH],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.crowd._avoidance",
            ["sim/crowd/_avoidance.c"],
            depends=[COMMON, CROWD_HASH],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.crowd._parting",
            ["sim/crowd/_parting.c"],
            depends=[COMMON, CROWD_BUFFERS, CROWD_HASH],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.crowd._disc_walls",
            ["sim/crowd/_disc_walls.c"],
            depends=[COMMON, CROWD_BUFFERS],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.searches._incremental",
            ["sim/navigation/searches/_incremental.c"],
            depends=[COMMON, SEARCH_COMMON, FLAT_PATH],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.regions._regions",
            ["sim/navigation/regions/_regions.c"],
            depends=[COMMON],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.regions._apart",
            ["sim/navigation/regions/_apart.c"],
            depends=[COMMON],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.searches._jps",
            ["sim/navigation/searches/_jps.c"],
            depends=[
                COMMON,
                SEARCH_COMMON,
                FLAT_PATH,
                GRID_SEARCH,
                "sim/navigation/searches/_jps_blocks.h",
                "sim/navigation/searches/_plain_call.h",
            ],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.searches._jump_table",
            ["sim/navigation/searches/_jump_table.c"],
            depends=[COMMON, "sim/navigation/searches/_flat_path.h"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.envs._env_kernel",
            ["sim/envs/_env_kernel.c"],
            depends=[COMMON],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.mapf._mapf",
            ["sim/mapf/_mapf.c"],
            depends=["sim/mapf/_lacam.h"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
    ]
)
