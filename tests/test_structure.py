"""The shape of the code: the library's folders are its tiers and no import goes up a tier, compiled kernels take
named structures, no module reaches into another's private names (the library's, and the benchmarks' and tools'
into the library's), and test modules share helpers through ``tests/conftest.py``, never by importing one another
(docs/authoring.rst, README "The engine" and "Layout of the library")."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "lib" / "awale"
TESTS = ROOT / "tests"
MAX_PARAMETERS = 10


def _modules():
    return sorted(LIBRARY.rglob("*.py"))


def _is_kernel(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name) and target.id == "jit":
            return True
    return False


def test_no_compiled_function_takes_more_than_ten_parameters():
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and _is_kernel(node):
                count = len(node.args.args) + len(node.args.kwonlyargs)
                if count > MAX_PARAMETERS:
                    long.append(f"{path.relative_to(LIBRARY)}:{node.lineno} {node.name} ({count})")
    assert not long, "kernels with more than 10 parameters: " + ", ".join(long)


def test_no_module_imports_another_modules_private_names():
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(LIBRARY)}:{node.lineno} {alias.name}")
    assert not found, "private names imported from another module: " + ", ".join(found)


def test_the_kernels_index_no_workspace_by_number():
    for path in _modules():
        assert not re.search(r"\bws\[", path.read_text()), path


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_imports(path: Path) -> list:
    """The library's private names (or names from its private modules) that a script outside the library imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "awale":
            private_module = any(_is_private(part) for part in node.module.split("."))
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {node.module}.{alias.name}" for alias in node.names
                      if private_module or _is_private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}" for alias in node.names
                      if alias.name.split(".")[0] == "awale" and any(map(_is_private, alias.name.split(".")))]
    return found


def test_benchmarks_and_tools_use_the_public_library():
    scripts = sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "tools").glob("*.py"))
    found = [hit for path in scripts for hit in _private_imports(path)]
    assert not found, "private names of the library imported: " + ", ".join(found)


def test_no_test_module_imports_another():
    """Shared helpers live in conftest.py; a test module importing another would run its tests twice."""
    modules = {path.stem for path in TESTS.glob("test_*.py")}
    found = []
    for path in sorted(TESTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{path.name}:{node.lineno} {name}" for name in names if name and name.split(".")[0] in modules]
    assert not found, "test modules imported by other modules (move the helpers to conftest.py): " + ", ".join(found)


#: The library's tiers, lowest first: a module may import its own tier and the tiers below, never one above.
#: ``offline`` (what builds and checks the shipped knowledge) reads the experiments' store, so it sits above them;
#: the package's ``__init__`` (the top-level names, loaded on first use, and ``DEFAULT_AGENT``) may be imported from
#: anywhere.
TIERS = {"core": 0, "knowledge": 1, "search": 2, "agents": 3, "play": 4, "experiments": 5, "offline": 6,
         "cli": 7, "__main__": 8}


def _tier(module: str) -> str:
    """The tier of a dotted module name under ``awale`` (``''`` for the package's ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imported(path: Path, library: Path = LIBRARY, runtime: bool = False) -> set:
    """The library's modules that ``path`` imports, anywhere in it (function-local imports too), by dotted name;
    ``from . import name`` counts as an import of the module ``name`` when there is one, else of the package.
    With ``runtime``, the imports of ``if TYPE_CHECKING:`` blocks (for annotations alone) are left out."""
    parts = list(path.relative_to(library.parent).with_suffix("").parts)
    package = parts[:-1]
    found = set()
    tree = ast.parse(path.read_text())
    typing_only = {id(inner) for node in ast.walk(tree) if runtime and isinstance(node, ast.If)
                   and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                   for statement in node.body for inner in ast.walk(statement)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [target]
            if not node.module or not node.level:
                folder = library.parent.joinpath(*target.split("."))
                names = [f"{target}.{alias.name}" if (folder / f"{alias.name}.py").exists()
                         or (folder / alias.name).is_dir() else target for alias in node.names]
            found |= {name for name in names if name.split(".")[0] == "awale"}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "awale"}
    return found


def test_the_folders_are_the_tiers():
    folders = {path.name for path in LIBRARY.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders <= set(TIERS), f"folders that are not tiers: {sorted(folders - set(TIERS))}"
    flat = {path.stem for path in LIBRARY.glob("*.py")} - {"__init__"}
    assert flat <= set(TIERS), f"modules outside the tiers' folders: {sorted(flat - set(TIERS))}"


def test_no_import_goes_up_a_tier():
    upward = []
    for path in _modules():
        name = path.relative_to(LIBRARY).as_posix()
        tier = _tier(".".join(["awale"] + list(path.relative_to(LIBRARY).with_suffix("").parts)))
        if tier == "__init__":
            continue
        for module in sorted(_imported(path)):
            other = _tier(module)
            if other in ("", "__init__") or other == tier:
                continue
            assert other in TIERS, f"{name} imports {module}, outside the tiers"
            if TIERS[other] > TIERS[tier]:
                upward.append(f"{name} -> {module}")
    assert not upward, "imports that go up a tier: " + ", ".join(upward)


def test_the_tier_test_sees_an_upward_import(tmp_path):
    """The check above can fail: a function-local import of an agent from the core tier is seen as one."""
    core = tmp_path / "awale" / "core"
    (tmp_path / "awale" / "agents").mkdir(parents=True)
    core.mkdir()
    (core / "rules.py").write_text(
        "from . import game\nfrom .. import DEFAULT\n\ndef f():\n    from ..agents import parse\n")
    (core / "game.py").write_text("")
    assert _imported(core / "rules.py", tmp_path / "awale") == {"awale.core.game", "awale", "awale.agents"}


def _runtime_graph() -> dict:
    """Module -> the library's modules it imports when it runs (function-local imports too; ``if TYPE_CHECKING:``
    blocks left out), by dotted name, each import resolved to the module that holds the name."""
    modules = {".".join(["awale"] + list(path.relative_to(LIBRARY).with_suffix("").parts)).removesuffix(".__init__"):
               path for path in _modules()}

    def module_of(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    return {name: {module_of(m) for m in _imported(path, runtime=True)} - {name} for name, path in modules.items()}


def test_no_import_circle():
    graph = _runtime_graph()
    circles, seen = [], set()
    for start in graph:  # a circle through ``start``: a path from one of its imports back to it
        stack, visited = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for other in graph.get(node, ()):
                if other == start and frozenset(path) not in seen:
                    seen.add(frozenset(path))
                    circles.append(" -> ".join(path + [start]))
                elif other not in visited:
                    visited.add(other)
                    stack.append((other, path + [other]))
    assert not circles, "import circles: " + "; ".join(circles)


#: The modules longer than :data:`MAX_LINES`, each with why: only one algorithm that needs the room, no other
#: exception (a module that grows past it is split along its seams, as the experiments' statistics, runner,
#: catalogue and sequential test were).
LONG_MODULES = {
    "search/alphabeta.py": "one algorithm: αβ with its table, quiescence, PVS, reductions, killers, IID and MTD(f)",
    "search/loop.py": "one algorithm: the MCTS loop, its solver bounds and its shared-tree updates",
    "knowledge/endgame_build.py": "one algorithm: retrograde analysis of a layer, whole or in a cluster's shares",
}
MAX_LINES = 800


def test_no_module_is_longer_than_800_lines_unless_named():
    long = {path.relative_to(LIBRARY).as_posix() for path in _modules()
            if len(path.read_text().splitlines()) > MAX_LINES}
    assert long <= set(LONG_MODULES), f"modules over {MAX_LINES} lines: {sorted(long - set(LONG_MODULES))}"
    assert set(LONG_MODULES) <= long, f"named as long but no longer: {sorted(set(LONG_MODULES) - long)}"
    assert all(why.startswith("one algorithm: ") for why in LONG_MODULES.values()), "an exception that is not one"


def test_no_function_takes_more_than_ten_parameters():
    """Long argument lists become values (``TestPlan``, ``RunOptions``, ``Enhancements``); ``self`` and ``cls``
    count, and no function is excepted."""
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                count = len(node.args.posonlyargs + node.args.args + node.args.kwonlyargs)
                if count > MAX_PARAMETERS:
                    long.append(f"{path.relative_to(LIBRARY)}:{node.lineno} {node.name} ({count})")
    assert not long, "functions with more than 10 parameters: " + ", ".join(long)
