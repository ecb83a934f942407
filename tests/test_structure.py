"""The shape of the code: compiled kernels take named structures, no module reaches into another's private names
(the library's, and the benchmarks' and tools' into the library's), and test modules share helpers through
``tests/conftest.py``, never by importing one another (docs/authoring.rst, README "The engine")."""

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
