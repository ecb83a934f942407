"""The README: a quick start at the top, at most 200 lines, and every figure it gives read from the data it comes from.

Each figure the README states (a time, a size, a count) is matched by one of the claims below, which recompute it
from the committed file it rests on: data/first-run.csv (the first run's times), data/endgame/build-cost.csv (the
endgame databases' build), data/experiments.sqlite (the store's games), notebooks/ (the chapters).  A figure that
no claim accounts for fails the test, so a new figure comes with its source.
"""

import csv
import re
import sqlite3
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINES = README.splitlines()

# A figure with a unit; what a claim must account for.
FIGURE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(minutes?|s|MB|GB|games|tests|positions|seeds)\b")
NUMBER_WORDS = {"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
# "Layout of the library" is the library's own map (rewritten with its folders); its one figure, how long
# `--help` takes, is a measurement of the command line's start, not of committed data.
EXEMPT_SECTIONS = ("### Layout of the library",)


def _first_run() -> dict[str, float]:
    with open(ROOT / "data" / "first-run.csv", newline="", encoding="utf-8") as handle:
        return {row["command"]: float(row["seconds"]) for row in csv.DictReader(handle)}


def _build_cost(seeds: int) -> dict[str, float]:
    with open(ROOT / "data" / "endgame" / "build-cost.csv", newline="", encoding="utf-8") as handle:
        (row,) = [row for row in csv.DictReader(handle) if int(row["seeds"]) == seeds]
    return {key: float(value) for key, value in row.items() if value and key != "run"}


def _stored_games() -> int:
    store = sqlite3.connect(f"file:{ROOT / 'data' / 'experiments.sqlite'}?mode=ro", uri=True)
    try:
        return store.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        store.close()


def _minutes(seconds: float) -> int:
    """Minutes as the README rounds them: to the nearest whole minute, a half up."""
    return int(seconds / 60 + 0.5)


def _megabytes(mib: float) -> float:
    return mib * 1024 * 1024 / 1e6


def _integer(text: str) -> int:
    return int(text.replace(",", ""))


# Each claim: a pattern whose groups are figures of the README, and the values those figures must have.
CLAIMS = [
    (r"sets up \.venv \(about (\d+) minutes\)", lambda: [_minutes(_first_run()["make .venv/.installed"])]),
    (r"runs the tests: about (\d+) minutes on two cores", lambda: [_minutes(_first_run()["make test"])]),
    (r"every chapter run: about (\d+) minutes", lambda: [_minutes(_first_run()["make html"])]),
    (
        r"first time, that took about (\d+) minutes on a busy two-core machine",
        lambda: [_minutes(_first_run()["make compile"])],
    ),
    (
        r"[Tt]he 15-seed database takes (\d+) s\s+and (\d+) MB",
        lambda: [round(_build_cost(15)["build_seconds"]), round(_megabytes(_build_cost(15)["file_mib"]))],
    ),
    (
        r"[Tt]he 25-seed one takes about (\d+) minutes on two cores\s+and ([\d.]+) GB",
        lambda: [_minutes(_build_cost(25)["build_seconds"]), round(_megabytes(_build_cost(25)["file_mib"]) / 1000, 2)],
    ),
    (r"data/experiments\.sqlite` \(([\d,]+) games\)", lambda: [_stored_games()]),
]


def _outside_exempt_sections(text: str) -> str:
    kept, skipping = [], False
    for line in text.splitlines():
        if line.startswith("#"):
            skipping = line.startswith(EXEMPT_SECTIONS)
        if not skipping:
            kept.append(line)
    return "\n".join(kept)


def test_readme_is_short_and_starts_with_a_quick_start():
    assert len(LINES) <= 150, f"README.md has {len(LINES)} lines; at most 150 (the references are appendices)"
    quick_start = "\n".join(LINES[:15])
    for needed in ("make test", "make html", "awale play", "**Read**", "**Play**"):
        assert needed in quick_start, f"the README's first 15 lines do not say {needed!r}"
    second_heading = next(number for number, line in enumerate(LINES[1:], start=2) if line.startswith("#"))
    assert second_heading <= 16, f"the quick start runs to line {second_heading - 1}: at most 15 lines"


@pytest.mark.parametrize("pattern, expected", CLAIMS, ids=[pattern for pattern, _ in CLAIMS])
def test_each_figure_agrees_with_its_data(pattern, expected):
    found = re.search(pattern, README)
    assert found, f"the README no longer says /{pattern}/: update the claim with the sentence"
    given = [float(value.replace(",", "")) for value in found.groups()]
    assert given == [float(value) for value in expected()], f"README: {found.group(0)!r}; the data say {expected()}"


def test_every_figure_is_accounted_for():
    text = _outside_exempt_sections(README)
    covered = set()
    for pattern, _ in CLAIMS:
        for found in re.finditer(pattern, text):
            covered.update(range(found.start(), found.end()))
    unchecked = [found.group(0) for found in FIGURE.finditer(text) if found.start(1) not in covered]
    assert not unchecked, f"figures of the README that no claim of tests/test_readme.py checks: {unchecked}"


def test_the_count_of_chapters():
    found = re.search(r"\*\*The thesis\.\*\* (\w+) chapters, one notebook each", README)
    assert found, "the README no longer counts the chapters: update the test with the sentence"
    assert NUMBER_WORDS[found.group(1).lower()] == len(list((ROOT / "notebooks").glob("*.ipynb")))


def test_the_linked_appendices_exist_and_are_in_the_book():
    index = (ROOT / "docs" / "index.rst").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[\w-]+\.ipynb)\)", README)
    assert len(links) >= 3, "the README links the appendices of the agents, the command line and the library"
    for link in links:
        assert (ROOT / link).is_file(), f"README links {link}, which does not exist"
        assert f"   {Path(link).stem}\n" in index, f"{link} is not in the toctree of docs/index.rst"


def test_the_figure_pattern_sees_figures():
    """The scan is not vacuous: it finds the figures the claims check."""
    assert len(FIGURE.findall(_outside_exempt_sections(README))) >= 6


def test_the_readme_has_short_lines_and_sentences():
    prose = [line for line in _prose_lines()]
    assert all(len(line) <= 120 for line in LINES), [line[:60] for line in LINES if len(line) > 120]
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(prose)) if s.strip()]
    words = [len(sentence.split()) for sentence in sentences]
    assert sum(words) / len(words) <= 20, f"sentences average {sum(words) / len(words):.1f} words; at most 20"
    assert max(words) <= 45, max(sentences, key=lambda s: len(s.split()))


def _prose_lines():
    fenced = False
    for line in LINES:
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced and line.strip() and not line.startswith(("#", "|")):
            yield line


def test_the_library_tiers_are_in_the_library_reference():
    assert "| tier |" not in README
    reference = (ROOT / "docs" / "reference-library.ipynb").read_text(encoding="utf-8")
    assert "| tier | what it holds |" in reference and "`awale.search`" in reference


def _makefile_minutes(pattern: str) -> int:
    found = re.search(pattern, (ROOT / "Makefile").read_text(encoding="utf-8"))
    assert found, f"the Makefile no longer says /{pattern}/: update the test with the sentence"
    return int(found.group(1))


def test_the_makefiles_times_agree_with_their_data():
    assert _makefile_minutes(r"takes about (\d+) minutes, mostly downloading") == _minutes(
        _first_run()["make .venv/.installed"])
    assert not re.search(r"\(\d+ s\)", (ROOT / "Makefile").read_text(encoding="utf-8")), "a time in the Makefile"


def test_the_help_texts_times_agree_with_their_data():
    """`play`'s note on the endgame databases (lib/awale/cli/play.py) states the build's measured cost."""
    text = (ROOT / "lib" / "awale" / "cli" / "play.py").read_text(encoding="utf-8")
    found = re.search(r"once: (\d+) minutes on 2 cores, ([\d.]+) GB\), or endgame='15' \((\d+) s\)", text)
    assert found, "lib/awale/cli/play.py no longer states the databases' cost: update the test"
    assert [int(found.group(1)), float(found.group(2)), int(found.group(3))] == [
        _minutes(_build_cost(25)["build_seconds"]), round(_megabytes(_build_cost(25)["file_mib"]) / 1000, 2),
        round(_build_cost(15)["build_seconds"])]


def test_make_lab_opens_jupyterlab_as_pinned():
    pins = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^jupyterlab==\d", pins, re.MULTILINE), "JupyterLab is not pinned in requirements.txt"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^lab: .*\n\t\$\(BIN\)/jupyter lab", makefile, re.MULTILINE)
    assert "make lab" in "\n".join(LINES[:15])
