"""Build the optional compiled search kernel; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sim.navigation._kernel",
            ["sim/navigation/_kernel.c"],
            depends=["sim/navigation/_grid_search.h"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation._avoidance",
            ["sim/navigation/_avoidance.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation._incremental",
            ["sim/navigation/_incremental.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation._regions",
            ["sim/navigation/_regions.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation._apart",
            ["sim/navigation/_apart.c"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
        Extension(
            "sim.navigation._jps",
            ["sim/navigation/_jps.c"],
            depends=["sim/navigation/_grid_search.h"],
            optional=True,
            extra_compile_args=["-O3"],
        ),
    ]
)
