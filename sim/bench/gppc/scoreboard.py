"""`sim bench --gppc`: a scoreboard in the Grid-Based Path Planning Competition's terms.

For each map set of the Moving AI maps ($MOVINGAI_DIR) and each planner, the fields of the
GPPC tables: queries solved and solved optimally (the published length, within what its
printed digits allow), the sum of query times, the sum of preprocessing time, the storage the
preprocessing keeps, the peak memory, the mean path length and the mean suboptimality.

Ours are `find_path`'s ``auto`` (jump point search, with landmark fields or a jump table where
its queries show they pay: built inside those queries, and reported as preprocessing, with what
they keep as storage), plain ``jps`` and ``astar``, ``auto-frozen`` and ``jps-frozen`` (the same
two on the map frozen, `sim.navigation.freeze`: a read-only array backed by bytes, which the
compiled search answers without checking it against in-place edits; the GPPC rules load a map
once and never edit it), and the offline ``jps+`` (jump tables and
landmark fields built per map before its queries, `sim.navigation.searches.offline`; its build
is preprocessing, its bytes storage, and the repair after a cube's step is timed too,
`sim.bench.gppc.repair`), each run in a process of its own (`sim.bench.gppc.worker`) so the
peak memory is that planner's.
With ``--peers warthog`` and ``WARTHOG`` naming warthog's ``warthog-timed``
(or the folder holding it, as its build script makes it), warthog's online JPS2, offline JPS2+
and A* answer the same queries, each query timed by warthog's own timer; a run's setup time (the
map read and, for JPS2+, the jump tables) is the process's wall time less its queries'. Each
map runs in rounds, one pass of every planner a round, side by side in time
(`sim.bench.gppc.rounds`); every query keeps its fastest round, and the machine's load at each
round's start and end is reported. Ratios compare per-map mean query times.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sim.bench.gppc import rounds as side_by_side
from sim.bench.gppc.rounds import RoundLoad
from sim.bench.gppc.runs import OUR_ALGORITHMS as OUR_ALGORITHMS
from sim.bench.gppc.runs import PASSES as PASSES
from sim.bench.gppc.runs import WARTHOG_ALGORITHMS as WARTHOG_ALGORITHMS
from sim.bench.gppc.runs import MapFigures as MapFigures
from sim.bench.gppc.runs import run_ours as run_ours
from sim.bench.gppc.runs import run_warthog as run_warthog
from sim.bench.gppc.runs import warthog_binary as warthog_binary

MAP_SETS = (
    ("rooms", ("8room", "32room")),
    ("mazes", ("maze512",)),
    ("random", ("random512",)),
    ("street", ("Berlin", "Paris")),
)
GAMES = "games"
"""The set of every other map: the game maps of Dragon Age, Baldur's Gate and StarCraft."""


def map_set(name: str) -> str:
    """The set a map belongs to, by its name.

    >>> map_set("maze512-1-0"), map_set("Paris_0_512"), map_set("den312d")
    ('mazes', 'street', 'games')
    """
    for set_name, prefixes in MAP_SETS:
        if name.startswith(prefixes):
            return set_name
    return GAMES


@dataclass(frozen=True, slots=True)
class SetRow:
    """One planner on one map set, in the GPPC table's fields."""

    set: str
    planner: str
    algorithm: str
    maps: int
    queries: int
    solved: int
    optimally_solved: int
    query_s: float
    preprocessing_s: float
    storage_bytes: int | None
    max_ram_bytes: int | None
    mean_path_length: float
    mean_suboptimality: float


def set_rows(figures: Sequence[MapFigures]) -> list[SetRow]:
    """Sum each (set, planner, algorithm)'s maps into a row, sets in a fixed order."""
    groups: dict[tuple[str, str, str], list[MapFigures]] = {}
    for figure in figures:
        groups.setdefault((map_set(figure.map), figure.planner, figure.algorithm), []).append(
            figure
        )
    order = [name for name, _ in MAP_SETS] + [GAMES]
    rows = []
    for (set_name, planner, algorithm), members in sorted(
        groups.items(), key=lambda item: (order.index(item[0][0]), item[0][1], item[0][2])
    ):
        solved = sum(m.solved for m in members)
        rows.append(
            SetRow(
                set_name,
                planner,
                algorithm,
                len(members),
                sum(m.queries for m in members),
                solved,
                sum(m.optimally_solved for m in members),
                sum(m.query_s for m in members),
                sum(m.setup_s for m in members),
                # Ours report what they keep (jps+'s tables, auto's fields and tables);
                # warthog's tables are not reported.
                sum(m.storage_bytes or 0 for m in members) if planner == "ours" else None,
                max((m.max_ram_bytes for m in members if m.max_ram_bytes), default=None),
                sum(m.path_length_sum for m in members) / max(solved, 1),
                sum(m.suboptimality_sum for m in members) / max(solved, 1),
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class GppcReport:
    """Every planner's per-map figures, their set rows, and what was said about warthog."""

    maps: tuple[MapFigures, ...]
    notes: tuple[str, ...]
    warthog: str | None
    loads: tuple[RoundLoad, ...] = ()  # the machine's load at each round's start and end
    rounds: int = PASSES

    @property
    def sets(self) -> list[SetRow]:
        """The GPPC table's rows."""
        return set_rows(self.maps)

    def to_json(self) -> dict[str, Any]:
        """``{"sets", "maps", "warthog" (binary or null), "rounds", "load"}``.

        ``load`` has one object per map and round: ``map``, ``round`` (from 1), and the load
        averages over 1, 5 and 15 minutes at its ``start`` and ``end``.
        """
        return {
            "sets": [asdict(row) for row in self.sets],
            "maps": [{**asdict(m), "mean_query_us": m.mean_query_us} for m in self.maps],
            "warthog": self.warthog,
            "rounds": self.rounds,
            "load": side_by_side.loads_json(self.loads),
        }

    def mean_us(self, planner: str, algorithm: str) -> dict[str, float]:
        """Each map's mean query time in microseconds for one planner."""
        return {
            m.map: m.mean_query_us
            for m in self.maps
            if m.planner == planner and m.algorithm == algorithm
        }

    def lines(self) -> list[str]:
        """The set table, the per-map times against warthog's JPS2, and the targets."""
        out = [*self.notes, side_by_side.load_line(self.loads), ""]
        out += [
            "| set | planner | maps | queries | solved | optimal | query s | preprocessing s "
            "| storage MB | max RAM MB | mean length | mean suboptimality |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in self.sets:
            out.append(
                f"| {row.set} | {row.planner} {row.algorithm} | {row.maps} | {row.queries} "
                f"| {row.solved} | {row.optimally_solved} | {row.query_s:.3f} "
                f"| {row.preprocessing_s:.3f} | {_megabytes(row.storage_bytes)} "
                f"| {_megabytes(row.max_ram_bytes)} | {row.mean_path_length:.2f} "
                f"| {row.mean_suboptimality:.2e} |"
            )
        out += ["", *self._map_lines(), "", *self.target_lines(), *self.cpu_lines()]
        out += self.offline_lines()
        return out

    def mean_with_cells_us(self, algorithm: str) -> dict[str, float]:
        """Our per-map mean microseconds a query with its cells read, where measured."""
        return {
            m.map: 1e6 * m.query_with_cells_s / max(m.queries, 1)
            for m in self.maps
            if m.planner == "ours" and m.algorithm == algorithm and m.query_with_cells_s
        }

    def _map_lines(self) -> list[str]:
        auto, jps = self.mean_us("ours", "auto"), self.mean_us("ours", "jps")
        auto_read, jps_read = self.mean_with_cells_us("auto"), self.mean_with_cells_us("jps")
        offline = self.mean_us("ours", "jps+")
        jps2, jps2_plus = self.mean_us("warthog", "jps2"), self.mean_us("warthog", "jps2+")
        cells = {m.map: m.cells for m in self.maps if m.planner == "ours"}
        auto_frozen, jps_frozen = (
            self.mean_us("ours", "auto-frozen"),
            self.mean_us("ours", "jps-frozen"),
        )
        lines = [
            "| map | cells | ours auto us | ours jps us | ours jps+ us | warthog jps2 us "
            "| warthog jps2+ us | auto / jps2 | jps / jps2 | jps+ / jps2+ "
            "| auto us, cells read | jps us, cells read | auto read / jps2 | jps read / jps2 "
            "| ours auto, frozen us | ours jps, frozen us | auto, frozen / jps2 "
            "| jps, frozen / jps2 |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name in sorted(auto, key=lambda n: (cells.get(n, 0), n)):
            theirs = jps2.get(name)
            plus = jps2_plus.get(name)
            lines.append(
                f"| {name} | {cells.get(name, 0)} | {auto[name]:.1f} "
                f"| {jps.get(name, math.nan):.1f} | {_us(offline.get(name))} "
                f"| {_us(theirs)} | {_us(plus)} | {_ratio(auto[name], theirs)} "
                f"| {_ratio(jps.get(name), theirs)} | {_ratio(offline.get(name), plus)} "
                f"| {_us(auto_read.get(name))} | {_us(jps_read.get(name))} "
                f"| {_ratio(auto_read.get(name), theirs)} | {_ratio(jps_read.get(name), theirs)} "
                f"| {_us(auto_frozen.get(name))} | {_us(jps_frozen.get(name))} "
                f"| {_ratio(auto_frozen.get(name), theirs)} "
                f"| {_ratio(jps_frozen.get(name), theirs)} |"
            )
        return lines

    def offline_lines(self) -> list[str]:
        """Ours jps+ on the 512x512 maps against the offline targets, met or missed."""
        maps = [
            m
            for m in self.maps
            if m.planner == "ours" and m.algorithm == "jps+" and m.cells == 512 * 512
        ]
        if not maps:
            return ["- offline targets: not measured (no 512x512 map run with jps+)"]
        mean_ms = 1e3 * sum(m.query_s for m in maps) / max(sum(m.queries for m in maps), 1)
        slowest = max(maps, key=lambda m: m.mean_query_us)
        build = max(maps, key=lambda m: m.setup_s)
        storage = max(m.storage_bytes or 0 for m in maps)
        repairs = [m.repair_ms_max for m in maps if m.repair_ms_max is not None]
        worst_repair = max(repairs, default=math.nan)
        return [
            f"- ours jps+ mean query <= 0.2 ms over the {len(maps)} 512x512 maps: "
            f"{mean_ms:.3f} ms ({_met(mean_ms <= 0.2)}; slowest map {slowest.map} "
            f"{slowest.mean_query_us / 1e3:.3f} ms)",
            f"- offline index build <= 2 s per 512x512 map: at most {build.setup_s * 1e3:.0f} ms "
            f"({build.map}), {_met(build.setup_s <= 2.0)}",
            f"- offline index storage <= 16 MB per 512x512 map: {storage / 2**20:.2f} MB, "
            f"{_met(storage <= 16 * 2**20)}",
            f"- repair after a cube's step <= 50 ms: at most {worst_repair:.2f} ms over "
            f"{len(repairs)} maps, {_met(worst_repair <= 50.0)}",
        ]

    def target_lines(self) -> list[str]:
        """The online targets against warthog's JPS2, met or missed (or not measured).

        Each once for the map as read and once more frozen (``-frozen``), where that ran.
        """
        jps2 = self.mean_us("warthog", "jps2")
        if not jps2:
            return ["- targets against warthog: not measured (no warthog run)"]
        lines = self._targets(jps2, "", self.mean_us)
        jps_read = self.mean_with_cells_us("jps")
        read = [jps_read[n] / jps2[n] for n in jps_read if n in jps2]
        if read:
            geo_read = _geomean(read)
            lines.append(
                f"- the same with every path's cells read: {geo_read:.2f}x, "
                f"{'met' if geo_read <= 1.0 else 'missed'}"
            )
        return lines + self._targets(jps2, "-frozen", self.mean_us)

    def cpu_lines(self) -> list[str]:
        """The online targets again on each query's CPU time, where both sides measured it.

        A query's thread CPU time leaves out its waits for a core, which on a loaded machine
        stretch a long query's wall time (and its fastest of a few) more than a short one's.
        """
        jps2 = self.mean_cpu_us("warthog", "jps2")
        if not jps2:
            return []
        return self._targets(jps2, "", self.mean_cpu_us, cpu=True) + self._targets(
            jps2, "-frozen", self.mean_cpu_us, cpu=True
        )

    def mean_cpu_us(self, planner: str, algorithm: str) -> dict[str, float]:
        """Each map's mean thread CPU microseconds a query, where measured."""
        return {
            m.map: 1e6 * m.query_cpu_s / max(m.queries, 1)
            for m in self.maps
            if m.planner == planner and m.algorithm == algorithm and m.query_cpu_s
        }

    def _targets(
        self,
        jps2: dict[str, float],
        suffix: str,
        mean: Callable[[str, str], dict[str, float]],
        *,
        cpu: bool = False,
    ) -> list[str]:
        """The three online targets for ours ``auto`` and ``jps`` with `suffix` (none if unrun).

        `mean` gives a planner's per-map mean query time (wall time, or CPU time if `cpu`).
        """
        auto, jps = mean("ours", "auto" + suffix), mean("ours", "jps" + suffix)
        if (suffix or cpu) and not auto and not jps:
            return []
        frozen = (", frozen" if suffix else "") + (", CPU time" if cpu else "")
        cells = {m.map: m.cells for m in self.maps if m.planner == "ours"}
        large = [n for n in auto if cells.get(n, 0) >= 256 * 256 and n in jps2]
        ratios = {n: auto[n] / jps2[n] for n in large}
        worst = max(ratios, key=ratios.__getitem__) if ratios else None
        geo_large = _geomean(list(ratios.values()))
        plain = [jps[n] / jps2[n] for n in jps if n in jps2]
        geo_plain = _geomean(plain)
        lines = []
        if worst is not None:
            lines.append(
                f"- ours (auto{frozen}) <= 1.0x warthog JPS2 on every map of 256x256 or more: "
                f"worst {worst} {ratios[worst]:.2f}x, "
                f"{'met' if ratios[worst] <= 1.0 else 'missed'}"
            )
            lines.append(
                f"- ours (auto{frozen}) <= 0.8x warthog JPS2 over those maps (geomean): "
                f"{geo_large:.2f}x, {'met' if geo_large <= 0.8 else 'missed'}"
            )
        lines.append(
            f"- our plain JPS{frozen} <= 1.0x warthog JPS2 like for like (geomean over "
            f"{len(plain)} maps): {geo_plain:.2f}x, {'met' if geo_plain <= 1.0 else 'missed'}"
        )
        return lines


def _met(met: bool) -> str:
    return "met" if met else "missed"


def _megabytes(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:.1f}"


def _us(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def _ratio(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None or theirs <= 0:
        return "n/a"
    return f"{ours / theirs:.2f}x"


def _geomean(values: Sequence[float]) -> float:
    good = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in good) / len(good)) if good else math.nan


def steps(maps: int, *, warthog: bool, rounds: int = PASSES) -> int:
    """How many steps `run` reports to its `on_done` over `maps` maps (one a pass)."""
    return side_by_side.steps(maps, warthog=warthog, rounds=rounds)


def run(
    maps: Sequence[Path],
    *,
    warthog: Path | None,
    warthog_asked: bool,
    sample: int | None,
    seed: int,
    rounds: int = PASSES,
    on_done: Callable[[int, str], object] | None = None,
) -> GppcReport:
    """Every planner of ours (and warthog's when given) on `maps`, in rounds; the report.

    Each map runs `rounds` rounds of one pass per planner, side by side in time
    (`sim.bench.gppc.rounds`).
    """
    notes = []
    if warthog is None:
        why = "WARTHOG is not set" if warthog_asked else "not asked for (--peers warthog)"
        notes.append(f"warthog not run: {why}; ours alone")
    figures: list[MapFigures] = []
    loads: list[RoundLoad] = []
    for set_name in [name for name, _ in MAP_SETS] + [GAMES]:
        members = [m for m in maps if map_set(m.name.removesuffix(".map")) == set_name]
        if not members:
            continue
        found, read = side_by_side.run_set(
            members, warthog=warthog, sample=sample, seed=seed, rounds=rounds, on_done=on_done
        )
        figures += found
        loads += read
    return GppcReport(
        tuple(figures),
        tuple(notes),
        None if warthog is None else str(warthog),
        tuple(loads),
        rounds,
    )
