"""The shape of the library's code: compiled kernels take named structures, and no module reaches into another's
private names (docs/authoring.rst, README "The engine")."""

import ast
import re
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent.parent / "lib" / "awale"
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
