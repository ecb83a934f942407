"""The thesis reads like one: a short abstract, short cells, a bounded conclusion, no run history in the chapters.

DESIGN.md ("How the thesis is written") sets the rules these tests keep:

* the abstract, in ``docs/index.rst`` from its Abstract rubric to the next rubric or section, has at most
  300 words;
* no markdown cell of a chapter has more than 700 words;
* the conclusion (the chapter whose first heading is ``# Conclusion``, whatever its file name) has at most
  2,500 words of markdown;
* no chapter's prose (markdown and raw cells) uses the run-history vocabulary of
  ``tests/data/run-history-words.txt``: processors, pilots, raised caps, refit rounds, what a review found.

Each failure names the chapter, the cell (its id and index) and the word or the count, so that the fix is
obvious.  The tests are parametrised by chapter, so that each chapter passes or fails on its own.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
INDEX = ROOT / "docs" / "index.rst"
WORDS_FILE = Path(__file__).resolve().parent / "data" / "run-history-words.txt"

ABSTRACT_WORDS = 300
CELL_WORDS = 700
CONCLUSION_WORDS = 2500


def words(text: str) -> int:
    """Words as a reader counts them: runs of non-space characters."""
    return len(text.split())


def prose_cells(path: Path):
    """(index, id, type, source) of every markdown and raw cell of a chapter."""
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type in ("markdown", "raw"):
            yield index, cell.get("id", "?"), cell.cell_type, cell.source


def first_heading(path: Path) -> str:
    """The first markdown heading of a chapter ("" if none)."""
    for _, _, kind, source in prose_cells(path):
        if kind == "markdown":
            for line in source.splitlines():
                if line.startswith("#"):
                    return line.strip()
    return ""


def abstract(index_rst: str) -> str:
    """The abstract's text: the lines after the Abstract rubric, up to the next rubric, toctree or section.

    Only the body paragraphs count, which sit at the left margin; directives (``.. raw:: latex`` and its
    indented block, comments) are not words of the abstract.
    """
    lines = index_rst.splitlines()
    starts = [i for i, line in enumerate(lines) if re.match(r"\s*\.\. rubric:: Abstract\s*$", line)]
    if not starts:
        raise AssertionError(f"{INDEX.relative_to(ROOT)}: no '.. rubric:: Abstract'")
    body = []
    for i in range(starts[0] + 1, len(lines)):
        line = lines[i]
        if re.match(r"\s*\.\. (rubric|toctree)::", line) or (
            re.fullmatch(r"([=\-~^*#\"'])\1{2,}", line.strip()) and i > starts[0] + 1
        ):
            break
        if line and not line[0].isspace() and not line.startswith(".."):
            body.append(line)
    return "\n".join(body)


def run_history_words():
    """The committed list: one phrase a line, '#' starts a comment."""
    phrases = []
    for line in WORDS_FILE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            phrases.append(line)
    return phrases


def test_the_lint_has_chapters_and_words():
    assert CHAPTERS, "no chapter found in notebooks/"
    assert len(run_history_words()) >= 10, f"{WORDS_FILE.name} lost its phrases"


def test_the_abstract_is_short():
    text = abstract(INDEX.read_text(encoding="utf-8"))
    assert words(text) > 0, "the abstract is empty: the rubric was found but no paragraph after it"
    assert words(text) <= ABSTRACT_WORDS, (
        f"the abstract in {INDEX.relative_to(ROOT)} has {words(text)} words, more than {ABSTRACT_WORDS}: "
        "keep the question, the method and the findings; the rest goes after it"
    )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_markdown_cell_is_too_long(path):
    long = [
        f"cell {index} (id {cid}): {words(source)} words"
        for index, cid, kind, source in prose_cells(path)
        if kind == "markdown" and words(source) > CELL_WORDS
    ]
    assert not long, f"{path.name}: markdown cells over {CELL_WORDS} words: " + "; ".join(long)


def test_the_conclusion_is_bounded():
    conclusions = [path for path in CHAPTERS if first_heading(path) == "# Conclusion"]
    assert len(conclusions) == 1, (
        f"exactly one chapter should open with '# Conclusion', found {[p.name for p in conclusions]}"
    )
    path = conclusions[0]
    total = sum(words(source) for _, _, kind, source in prose_cells(path) if kind == "markdown")
    assert total <= CONCLUSION_WORDS, (
        f"{path.name}, the conclusion, has {total} words of markdown, more than {CONCLUSION_WORDS}"
    )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_run_history_in_the_prose(path):
    patterns = [(phrase, re.compile(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", re.IGNORECASE))
                for phrase in run_history_words()]
    found = []
    for index, cid, kind, source in prose_cells(path):
        for phrase, pattern in patterns:
            match = pattern.search(source)
            if match:
                start = max(0, match.start() - 40)
                context = " ".join(source[start:match.end() + 40].split())
                found.append(f"cell {index} (id {cid}, {kind}): '{phrase}' in \"...{context}...\"")
    assert not found, (
        f"{path.name}: run history in the prose (it belongs in data/README.md or the appendix "
        "'Provenance of the results'):\n" + "\n".join(found)
    )
