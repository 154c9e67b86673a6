"""The front door and the manual: README.md short and runnable, every link inside the repository.

README.md is what a newcomer reads first: at most 150 lines, the set-up-and-run and
set-up-and-test commands at the top, and a Python example that runs. It, CONTRIBUTING.md,
CHANGELOG.md, the docs site's pages and mkdocs.yml point nowhere outside the repository, and
each of their relative links names a file in it.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT

README = REPO_ROOT / "README.md"
MKDOCS = REPO_ROOT / "mkdocs.yml"
DOCS = REPO_ROOT / "docs"
PAGES = sorted(
    [
        README,
        REPO_ROOT / "CONTRIBUTING.md",
        REPO_ROOT / "CHANGELOG.md",
        *DOCS.rglob("*.md"),
    ]
)
TEXTS = [*PAGES, MKDOCS]

SET_UP_AND_RUN = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/sim run"
SET_UP_AND_TEST = "bash .ci/run"

# What points outside the repository, or at an issue tracker's numbers.
OUTSIDE = {
    "a parent folder": re.compile(r"\.\./"),
    "the shared folder": re.compile(r"shared/"),
    "an issue number": re.compile(r"(?<![\w&/])#\d+\b"),
    "an issue by number": re.compile(r"\bissues?\s+\d+", re.IGNORECASE),
}
# Markdown links and images: [text](target) and ![alt](target), the target up to a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)")


def relative(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def test_readme_is_a_front_door_of_at_most_150_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150


@pytest.mark.parametrize("command", [SET_UP_AND_RUN, SET_UP_AND_TEST], ids=["run", "test"])
def test_readme_starts_with_the_command(command: str) -> None:
    top = README.read_text(encoding="utf-8").splitlines()[:20]
    assert command in top


@pytest.mark.parametrize("path", TEXTS, ids=relative)
@pytest.mark.parametrize("what", OUTSIDE, ids=lambda what: what.replace(" ", "-"))
def test_nothing_points_outside_the_repository(path: Path, what: str) -> None:
    found = [
        f"{relative(path)}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if OUTSIDE[what].search(line)
    ]
    assert found == [], f"{what}:\n" + "\n".join(found)


def links_of(path: Path) -> list[str]:
    """The relative links of a Markdown file, without their #anchors."""
    text = path.read_text(encoding="utf-8")
    targets = [target.split("#", 1)[0] for target in LINK.findall(text)]
    return [target for target in targets if target and ":" not in target]


@pytest.mark.parametrize("path", PAGES, ids=relative)
def test_every_relative_link_names_a_file_in_the_repository(path: Path) -> None:
    broken = [
        target
        for target in links_of(path)
        if not (path.parent / target).resolve().is_relative_to(REPO_ROOT)
        or not (path.parent / target).exists()
    ]
    assert broken == []


def test_the_link_reader_finds_links_and_images() -> None:
    assert links_of(README)[:2] == ["docs/images/window.png", "docs/images/search-view.png"]


def nav_pages() -> list[str]:
    """Every page mkdocs.yml's nav names (``- Title: page.md``), relative to docs/."""
    nav = MKDOCS.read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    return re.findall(r"^\s*- [^:\n]+: (\S+\.md)\s*$", nav, flags=re.MULTILINE)


def test_mkdocs_nav_names_the_pages_of_the_manual() -> None:
    pages = nav_pages()
    assert {"index.md", "getting-started.md", "controls.md", "glossary.md"} <= set(pages)
    assert [page for page in pages if not (DOCS / page).is_file()] == []


def test_every_page_of_the_manual_is_in_the_nav() -> None:
    on_disk = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert on_disk == set(nav_pages())


def test_the_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    [example] = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(example.splitlines()) <= 10
    exec(compile(example, "README.md", "exec"), {})
    found, cost = capsys.readouterr().out.splitlines()[0].split()
    assert (found, cost) == ("True", "10.071")


def griffe_doctests():  # the docs site's griffe extension, imported from its file
    pytest.importorskip("griffe")  # the docs extra
    spec = importlib.util.spec_from_file_location("griffe_doctests", DOCS / "griffe_doctests.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("docstring", "shown"),
    [
        (
            "Sum.\n\n>>> 1 + 1\n2",
            "Sum.\n\n```pycon\n>>> 1 + 1\n2\n```",
        ),
        (
            "Args:\n    x: a list.\n\n    >>> [x]\n    [1]\n\nMore.",
            "Args:\n    x: a list.\n\n    ```pycon\n    >>> [x]\n    [1]\n    ```\n\nMore.",
        ),
        (
            "Already fenced:\n\n```python\n>>> 1\n1\n```",
            "Already fenced:\n\n```python\n>>> 1\n1\n```",
        ),
    ],
    ids=["bare", "indented", "fenced"],
)
def test_the_docs_show_bare_doctests_as_code(docstring: str, shown: str) -> None:
    assert griffe_doctests().fence_doctests(docstring) == shown


CODE_AND_DATA = sorted(
    path
    for folder in ("sim", "tests", "scenes", "experiments", "benchmarks")
    for path in (REPO_ROOT / folder).rglob("*")
    if path.suffix in {".py", ".pyi", ".c", ".h", ".toml", ".md"}
)


def test_the_code_speaks_of_itself_not_of_issues_by_number() -> None:
    by_number = OUTSIDE["an issue by number"]
    found = [
        f"{relative(path)}:{number}: {line.strip()}"
        for path in CODE_AND_DATA
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if by_number.search(line)
    ]
    assert found == []
