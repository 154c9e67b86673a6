"""The architecture's rules, read from the source itself: who may import whom, no cycles, sizes.

Every module under sim/ is parsed (not imported), and every import it makes counts, at the top,
inside a function or under `if TYPE_CHECKING:`: a typing-only import never runs, but it is still
a dependency a reader follows, and a circle through one is a circle in the design. The rules are
docs/architecture.md's ("Who imports whom"): a change that breaks one fails here with the offending
import named. Only the check that Panda3D is absent at run time reads what really runs (a fresh
interpreter's `sys.modules`).
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT

SIM = REPO_ROOT / "sim"
MAX_MODULE_LINES = 600
MAX_LOOSE_MODULES = 6
MAX_PACKAGE_MODULES = 20
PANDA3D_ROOTS = ("panda3d", "direct")


@dataclass(frozen=True)
class Import:
    """One import statement's target, as the module that does it sees it."""

    importer: str
    target: str  # a module of ours (sim....) or the top name of a third-party one
    names: tuple[str, ...]  # `from target import names`; empty for `import target`
    line: int
    typing_only: bool = False  # under `if TYPE_CHECKING:`

    def __str__(self) -> str:
        what = f"from {self.target} import {', '.join(self.names)}" if self.names else self.target
        return f"{self.importer}:{self.line}: {what}"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def sources() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SIM.rglob("*.py"))}


@functools.cache
def compiled() -> frozenset[str]:
    """Compiled modules of ours, known by their type stubs (the C kernel)."""
    return frozenset(module_name(path) for path in SIM.rglob("*.pyi"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import in `tree`, at any depth, each with whether it is under `if TYPE_CHECKING:`."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append((node, typing_only))
        for part in ast.iter_child_nodes(node):
            visit(part, typing_only)

    visit(tree, False)
    return found


@functools.cache
def imports_of(module: str) -> tuple[Import, ...]:
    path = sources()[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    result: list[Import] = []
    for node, typing_only in _statements(tree):
        if isinstance(node, ast.Import):
            result += [
                Import(module, alias.name, (), node.lineno, typing_only) for alias in node.names
            ]
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        if base == "__future__":
            continue
        names = tuple(alias.name for alias in node.names)
        submodules = [
            name
            for name in names
            if f"{base}.{name}" in sources() or f"{base}.{name}" in compiled()
        ]
        # `from sim.app import hud_text` imports the module sim.app.hud_text.
        result += [
            Import(module, f"{base}.{name}", (), node.lineno, typing_only) for name in submodules
        ]
        others = tuple(name for name in names if name not in submodules)
        if others:
            result.append(Import(module, base, others, node.lineno, typing_only))
    return tuple(result)


def ours(target: str) -> bool:
    return target == "sim" or target.startswith("sim.")


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def modules_in(package: str) -> list[str]:
    return [module for module in sources() if in_package(module, package)]


def violations(package: str, allowed: tuple[str, ...]) -> list[str]:
    """Imports of ours made by `package`'s modules that land outside `allowed` packages."""
    return [
        str(found)
        for module in modules_in(package)
        for found in imports_of(module)
        if ours(found.target) and not any(in_package(found.target, a) for a in allowed)
    ]


def test_every_module_parses_and_is_seen() -> None:
    assert "sim.navigation.searches.best_first" in sources()
    assert "sim.engine.world" in sources()
    assert any(found.target == "sim.engine" for found in imports_of("sim.app.composition"))


def test_navigation_imports_only_itself() -> None:
    assert violations("sim.navigation", ("sim.navigation",)) == []


# Scenes are data: only the builder, which makes a live scene of one, touches Panda3D.
HEADLESS = ("sim.navigation", "sim.crowd", "sim.scene", "sim.errors", "sim.config")
SCENE_BUILDER = "sim.scene.builder"


@pytest.mark.parametrize("package", HEADLESS)
def test_headless_parts_never_import_panda3d(package: str) -> None:
    found = [
        str(found)
        for module in modules_in(package)
        if module != SCENE_BUILDER
        for found in imports_of(module)
        if found.target.split(".")[0] in PANDA3D_ROOTS
    ]
    assert found == []


def test_engine_imports_only_itself_config_and_errors() -> None:
    assert violations("sim.engine", ("sim.engine", "sim.config", "sim.errors")) == []


def test_scripting_imports_only_the_engine_and_scene_data() -> None:
    # The user's API stands on the engine and reads scene specs; it knows no app or planner.
    allowed = (
        "sim.scripting",
        "sim.engine",
        "sim.config",
        "sim.errors",
        "sim.scene.spec",
        "sim.scene.values",  # the scene file's ranges, which the setters apply too
    )
    assert violations("sim.scripting", allowed) == []


def test_components_never_import_the_layers_above() -> None:
    forbidden = ("sim.app", "sim.commands", "sim.bench", "sim.editor", "sim.scripting")
    found = [
        str(found)
        for module in modules_in("sim.components")
        for found in imports_of(module)
        if any(in_package(found.target, package) for package in forbidden)
    ]
    assert found == []


def imports_from(package: str, forbidden: tuple[str, ...]) -> list[str]:
    """Imports by `package`'s modules of any module in the `forbidden` packages."""
    return [
        str(found)
        for module in modules_in(package)
        for found in imports_of(module)
        if any(in_package(found.target, other) for other in forbidden)
    ]


@pytest.mark.parametrize("package", ["sim.bench", "sim.lab"])
def test_measurement_never_imports_the_commands_or_the_app(package: str) -> None:
    # Libraries below their commands: what they share with them lives lower (sim.files).
    assert imports_from(package, ("sim.commands", "sim.app")) == []


ENV_VIEW = "sim.envs.view"


def test_the_learning_environments_stand_on_the_core_and_draw_only_in_their_view() -> None:
    # Environments are the planners' and the scene files' users, never the app's; only their
    # 3D view (loaded when an environment renders) touches Panda3D and the engine.
    allowed = (
        "sim.envs",
        "sim.navigation",
        "sim.mapf",
        "sim.scene",
        "sim.config",
        "sim.errors",
    )
    assert violations("sim.envs", (*allowed, "sim.engine")) == []
    drawing = [
        str(found)
        for module in modules_in("sim.envs")
        if module != ENV_VIEW
        for found in imports_of(module)
        if found.target.split(".")[0] in PANDA3D_ROOTS or in_package(found.target, "sim.engine")
    ]
    assert drawing == []


def test_the_window_furniture_imports_only_the_engine_config_and_errors() -> None:
    # Panels and toolbars are handed what they show; they know no planner, crowd or app.
    assert violations("sim.ui", ("sim.ui", "sim.engine", "sim.config", "sim.errors")) == []


@pytest.mark.parametrize("package", ["sim.editor", "sim.search_view"])
def test_what_the_user_sees_and_edits_never_imports_the_app(package: str) -> None:
    assert imports_from(package, ("sim.app",)) == []


COMPOSITION = "sim.app.composition"
# The commands that build the app (and the bench's window children, commands too).
APP_BUILDERS = frozenset(
    {
        COMPOSITION,
        "sim.commands.run",
        "sim.commands.soak",
        "sim.commands.crowd_window",
        "sim.commands.map_window",
    }
)


def test_only_the_commands_that_build_the_app_import_it() -> None:
    found = [
        str(found)
        for module in sources()
        if module not in APP_BUILDERS
        for found in imports_of(module)
        if found.target == COMPOSITION and "SimApp" in found.names
    ]
    assert found == []


def app_parameters(tree: ast.AST) -> list[tuple[str, int]]:
    """Each parameter of each function in `tree` annotated with `SimApp`, and its line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                *filter(None, [arguments.vararg, arguments.kwarg]),
            ]
            found += [
                (argument.arg, node.lineno)
                for argument in every
                if argument.annotation is not None and "SimApp" in ast.unparse(argument.annotation)
            ]
    return found


def test_app_parameters_finds_an_app_parameter() -> None:
    tree = ast.parse("def f(x: int, *, app: SimApp | None) -> None: ...")
    assert app_parameters(tree) == [("app", 1)]


def test_nothing_but_the_composition_takes_the_app() -> None:
    # Each part is handed what it uses (the world, the grid, a message sink), not the app.
    found = [
        f"{module}:{line}: {name}"
        for module, path in sources().items()
        if module != COMPOSITION
        for name, line in app_parameters(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_no_module_imports_another_modules_private_names() -> None:
    found = []
    for module in sources():
        for each in imports_of(module):
            if not ours(each.target):
                continue
            private = [name for name in each.names if name.startswith("_")]
            last = each.target.rpartition(".")[2]
            if last.startswith("_") and not in_package(module, each.target.rpartition(".")[0]):
                private.append(each.target)  # a private module, from outside its package
            if private:
                found.append(f"{each} ({', '.join(private)})")
    assert found == []


def import_graph(*, typing_only: bool = True) -> dict[str, set[str]]:
    """Who imports whom among our modules; with `typing_only=False`, only imports that run."""
    graph: dict[str, set[str]] = {module: set() for module in sources()}
    for module in sources():
        for found in imports_of(module):
            if found.typing_only and not typing_only:
                continue
            if found.target in graph and found.target != module:
                graph[module].add(found.target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_counting_imports_inside_functions() -> None:
    graph = import_graph(typing_only=False)
    # A package's __init__ that re-exports its modules is not a cycle with them: Python runs it
    # first, and its modules import each other, never the package, by the rule below.
    assert cycles(graph) == []


# Unity's object model: a GameObject holds Components, each Component knows its GameObject and
# World, the World holds GameObjects. They name each other's types; nothing else may circle.
OBJECT_MODEL = frozenset({"sim.engine.component", "sim.engine.game_object", "sim.engine.world"})
ACROSS_PACKAGES = "across packages"


def package_of(module: str) -> str:
    """The folder of sim/ a module lives in, at the first level ("sim" for the loose modules)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or module in PACKAGES else "sim"


PACKAGES = sorted(f"sim.{path.parent.name}" for path in SIM.glob("*/__init__.py"))


def typing_cycles() -> dict[str, list[list[str]]]:
    """The cycles through any import, typing-only ones too, by the package that holds them."""
    graph = import_graph()
    for module in OBJECT_MODEL:
        graph[module] -= OBJECT_MODEL
    found: dict[str, list[list[str]]] = {}
    for cycle in cycles(graph):
        homes = {package_of(module) for module in cycle}
        found.setdefault(homes.pop() if len(homes) == 1 else ACROSS_PACKAGES, []).append(cycle)
    return found


@pytest.mark.parametrize(
    "package",
    [*PACKAGES, "sim", ACROSS_PACKAGES],
)
def test_no_import_cycles_even_through_typing_only_imports(package: str) -> None:
    assert typing_cycles().get(package, []) == []


def test_typing_cycles_are_told_by_package() -> None:
    assert package_of("sim.app.modes") == "sim.app"
    assert package_of("sim.navigation.searches.jps") == "sim.navigation"
    assert package_of("sim.files") == "sim"
    assert package_of("sim.engine") == "sim.engine"


def test_modules_import_siblings_by_module_not_through_their_package() -> None:
    # Importing one's own package's __init__ from inside it is what would hide a cycle above.
    found = [
        str(found)
        for module in sources()
        for found in imports_of(module)
        if sources()[module].name != "__init__.py"
        and found.target == module.rpartition(".")[0]
        and found.target != "sim"
    ]
    assert found == []


@pytest.mark.parametrize("module", sorted(sources()))
def test_no_module_is_longer_than_600_lines(module: str) -> None:
    lines = sources()[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"{module} has {lines} lines"


def package_folders() -> list[Path]:
    """Every package folder under sim/ (sim/ itself included)."""
    return sorted(path.parent for path in SIM.rglob("__init__.py"))


@pytest.mark.parametrize(
    "package",
    [module_name(folder / "__init__.py") for folder in package_folders()],
)
def test_no_folder_holds_more_than_20_modules(package: str) -> None:
    # Past about 20 modules a folder wants families (as navigation got searches/, replay/ ...).
    folder = REPO_ROOT.joinpath(*package.split("."))
    modules = sorted(path.name for path in folder.glob("*.py") if path.name != "__init__.py")
    assert len(modules) <= MAX_PACKAGE_MODULES, f"{package} holds {len(modules)}: {modules}"


def test_at_most_six_modules_loose_at_the_top_of_sim() -> None:
    loose = sorted(path.name for path in SIM.glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose


def modules_after_import(statement: str) -> list[str]:
    """Run `statement` in a fresh interpreter; return the names in its sys.modules."""
    probe = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    names: list[str] = json.loads(completed.stdout)
    return names


def test_sim_compare_runs_without_panda3d() -> None:
    # The whole command, not only its import: rasterizing a scene must not need Panda3D either.
    statement = (
        "import contextlib, io\n"
        "from sim.commands.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['compare', 'scenes/default.toml', '--repeat', '1']) == 0"
    )
    modules = modules_after_import(statement)
    assert "sim.commands.compare" in modules
    assert [name for name in modules if name.startswith(PANDA3D_ROOTS)] == []


@pytest.mark.parametrize(
    "module",
    ["sim.navigation", "sim.commands.plan", "sim.commands.compare", "sim.scene.grid"],
    ids=["navigation", "plan-command", "compare-command", "scene-grid"],
)
def test_imports_without_panda3d(module: str) -> None:
    modules = modules_after_import(f"import {module}")
    assert module in modules
    assert [name for name in modules if name.startswith(PANDA3D_ROOTS)] == []


def all_imports_of(module: str) -> set[str]:
    """Every module or package of ours (or third-party top name) `module` imports, typing-only
    imports under `if TYPE_CHECKING:` included."""
    path = sources()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_the_crowd_needs_no_panda3d_engine_components_or_app_and_components_form_no_cycle() -> None:
    # The crowd owns every agent's state without the scene: not even a typing-only import.
    banned = (*PANDA3D_ROOTS, "sim.engine", "sim.components", "sim.app")
    crowd = {
        f"{module}: {target}"
        for module in modules_in("sim.crowd")
        for target in all_imports_of(module)
        if any(in_package(target, name) for name in banned)
    }
    assert sorted(crowd) == []
    components = modules_in("sim.components")
    graph = {
        module: {target for target in all_imports_of(module) if target in components}
        for module in components
    }
    assert cycles(graph) == []


# The shading of why-no-path is drawn by two owners (the StartEndPath component and the search
# view's no-path view), so it stays beside the component that draws it in the scene.
COMPONENT_HELPERS = {
    "sim.components.link_route",
    "sim.components.no_path",
    "sim.components.plan_text",
    "sim.components.quarry",
}


def defines_a_component(module: str) -> bool:
    """Whether `module` defines a class whose bases name Component (read, not imported)."""
    tree = ast.parse(sources()[module].read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.ClassDef)
        and any(
            (isinstance(base, ast.Name) and base.id == "Component")
            or (isinstance(base, ast.Attribute) and base.attr == "Component")
            for base in node.bases
        )
        for node in ast.walk(tree)
    )


def test_components_hold_only_components() -> None:
    found = [
        module
        for module in modules_in("sim.components")
        if sources()[module].name != "__init__.py"
        and module not in COMPONENT_HELPERS
        and not defines_a_component(module)
    ]
    assert found == []
