"""Build the optional compiled search kernel; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sim.navigation.searches._kernel",
            ["sim/navigation/searches/_kernel.c"],
            depends=["sim/navigation/searches/_grid_search.h"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.crowd._avoidance",
            ["sim/crowd/_avoidance.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.searches._incremental",
            ["sim/navigation/searches/_incremental.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.regions._regions",
            ["sim/navigation/regions/_regions.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.regions._apart",
            ["sim/navigation/regions/_apart.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation.searches._jps",
            ["sim/navigation/searches/_jps.c"],
            depends=["sim/navigation/searches/_grid_search.h"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
    ]
)
