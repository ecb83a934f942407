"""The prose names the library as it is: every dotted path ``awale.x.y`` and every file ``lib/awale/...`` that the
README, the appendices (docs/*.rst and docs/*.ipynb), the chapters (notebooks/*.ipynb) and the READMEs of data/
mention exists, so that moving a module cannot leave its old name behind in the text."""

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst")), *sorted((ROOT / "docs").glob("*.ipynb")),
             *sorted((ROOT / "notebooks").glob("*.ipynb")), *sorted((ROOT / "data").rglob("README.md"))]

# A dotted path not inside a word, a URL or a file name (``https://awale.ml``, ``awale-games.sqlite``).
DOTTED = re.compile(r"(?<![\w/.-])awale(?:\.[A-Za-z_]\w*)+")
FILE = re.compile(r"(?<![\w/.-])lib/awale/[\w./*-]*[\w*]")
# The reference thesis's web site, written without its scheme: a domain, not a module.
NOT_MODULES = {"awale.ml"}


def _texts(path: Path):
    if path.suffix == ".ipynb":
        return ["".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    return [path.read_text(encoding="utf-8")]


def _mentions(pattern: re.Pattern) -> list:
    return sorted({(path.relative_to(ROOT).as_posix(), match.group(0)) for path in DOCUMENTS
                   for text in _texts(path) for match in pattern.finditer(text)})


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module of the library, or an attribute (a dataclass's field, an annotated name)
    reached from the longest module that imports."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if hasattr(found, name):
                found = getattr(found, name)
            else:
                fields = getattr(found, "__dataclass_fields__", {})
                return name in fields or name in getattr(found, "__annotations__", {})
        return True
    return False


@pytest.mark.parametrize("where, dotted", [m for m in _mentions(DOTTED) if m[1] not in NOT_MODULES])
def test_every_dotted_path_resolves(where, dotted):
    assert resolves(dotted), f"{where} names {dotted}, which the library does not have"


@pytest.mark.parametrize("where, path", _mentions(FILE))
def test_every_file_of_the_library_exists(where, path):
    assert any(ROOT.glob(path)), f"{where} names {path}, which is not in the repository"


def test_the_checks_see_old_names():
    """The patterns find paths in prose and the check refuses the flat layout's modules."""
    assert _mentions(DOTTED) and _mentions(FILE)
    assert [m.group(0) for m in DOTTED.finditer("see `awale.match.play`, https://awale.ml/x and awale-games.sqlite")] \
        == ["awale.match.play"]
    assert not resolves("awale.match.play") and not resolves("awale.endgame.build")
    assert resolves("awale.play.match.play") and resolves("awale.experiments.catalog.Experiment.openings")
    assert resolves("awale.experiments.design.Experiment.name")  # a field without a default
