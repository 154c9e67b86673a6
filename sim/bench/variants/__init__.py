"""Seeded variants of the crowd torture cases, the way a user would vary them, run headless.

`make_variant(case, index)` draws variant `index` of `case` (`cases.PARAMS`: corridor length
and width, agents each way, where the alcove is, doorway size, pillar shape, a late agent's goal
inside the crowd ...) and a `draft.Mix` (two sizes, two speeds, mixed `avoidance_priority`s, an
extra wall), deterministically from ``(case, index)``; `run.bench_variants` runs them with the
suite's measurement (`sim.bench.crowd_suite.run_scene`). ``sim bench --crowd-suite --variants N``
prints them beside the nine cases.
"""

from __future__ import annotations

from sim.bench.variants.run import (
    Variant,
    VariantReport,
    VariantRun,
    bench_variants,
    make_variant,
    run_variant,
)

__all__ = [
    "Variant",
    "VariantReport",
    "VariantRun",
    "bench_variants",
    "make_variant",
    "run_variant",
]
