"""spread_scenarios: exactly N scenarios, evenly over a .scen file's buckets, without a seed."""

from __future__ import annotations

import pytest

from sim.navigation import Scenario, parse_scenarios, read_scenarios
from sim.navigation.maps.movingai import spread_scenarios
from tests.helpers.paths import movingai_dir


def scenarios_in_buckets(*sizes: int, shuffled: bool = False) -> list[Scenario]:
    """`sizes[b]` scenarios in bucket b; the goal's x numbers them in file order."""
    buckets = [bucket for bucket, size in enumerate(sizes) for _ in range(size)]
    if shuffled:  # files list buckets in order, but nothing in the format says they must
        buckets = buckets[1::2] + buckets[0::2]
    total = len(buckets)
    lines = (f"{b}\tm.map\t{total}\t1\t0\t0\t{x}\t0\t{x}\n" for x, b in enumerate(buckets))
    return parse_scenarios("version 1\n" + "".join(lines))


@pytest.mark.parametrize("count", [1, 2, 3, 7, 10, 19, 20], ids=lambda c: f"count-{c}")
def test_exact_count_without_duplicates(count: int) -> None:
    chosen = spread_scenarios(scenarios_in_buckets(5, 1, 8, 6), count)
    assert len(chosen) == count
    assert len({s.line for s in chosen}) == count


@pytest.mark.parametrize("count", [2, 3, 5, 11], ids=lambda c: f"count-{c}")
def test_covers_first_and_last_bucket(count: int) -> None:
    chosen = spread_scenarios(scenarios_in_buckets(4, 30, 2, 30, 3), count)
    assert chosen[0].bucket == 0
    assert chosen[-1].bucket == 4


def test_more_than_the_file_gives_all_in_bucket_order() -> None:
    scenarios = scenarios_in_buckets(3, 2, 4, shuffled=True)
    chosen = spread_scenarios(scenarios, 100)
    assert sorted(s.line for s in chosen) == [s.line for s in scenarios]
    assert [s.bucket for s in chosen] == sorted(s.bucket for s in scenarios)


def test_buckets_share_in_proportion_not_k_per_bucket() -> None:
    # 10 scenarios in bucket 0, 90 in bucket 1: 10 picks give about 1 and 9, not 5 and 5.
    chosen = spread_scenarios(scenarios_in_buckets(10, 90), 10)
    assert sum(s.bucket == 0 for s in chosen) in {1, 2}


def test_sorted_by_bucket_then_file_order() -> None:
    chosen = spread_scenarios(scenarios_in_buckets(6, 6, 6, shuffled=True), 9)
    keys = [(s.bucket, s.line) for s in chosen]
    assert keys == sorted(keys)


def test_deterministic() -> None:
    scenarios = scenarios_in_buckets(7, 13, 5)
    assert spread_scenarios(scenarios, 6) == spread_scenarios(list(scenarios), 6)


def test_zero_and_empty() -> None:
    assert spread_scenarios(scenarios_in_buckets(3), 0) == []
    assert spread_scenarios([], 5) == []


def test_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="count must be >= 0, got -1"):
        spread_scenarios(scenarios_in_buckets(3), -1)


def test_shared_file_every_bucket_in_proportion() -> None:
    path = movingai_dir() / "arena.map.scen"
    if not path.is_file():
        pytest.skip(f"Moving AI benchmark {path.name} not found in {movingai_dir()}")
    scenarios = read_scenarios(path)
    buckets = sorted({s.bucket for s in scenarios})
    chosen = spread_scenarios(scenarios, 2 * len(buckets))
    assert len(chosen) == 2 * len(buckets)
    assert {s.bucket for s in chosen} == set(buckets)
