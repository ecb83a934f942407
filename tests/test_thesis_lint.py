"""The thesis reads like one: a short abstract, short cells, a bounded conclusion, no run history in the chapters.

DESIGN.md ("How the thesis is written") sets the rules these tests keep:

* the abstract, in ``docs/index.rst`` from its Abstract rubric to the next rubric or section, has at most
  300 words;
* no markdown cell of a chapter has more than 700 words;
* the conclusion (the chapter whose first heading is ``# Conclusion``, whatever its file name) has at most
  2,500 words of markdown;
* no chapter's prose (markdown and raw cells) uses the run-history vocabulary of
  ``tests/data/run-history-words.txt``: processors, pilots, raised caps, refit rounds, what a review found;
  no code cell prints the state of a campaign ("still being played");
* an evening's read: the chapters' prose (markdown cells, less fenced code and display math) has at most
  25,000 words (runs of letters and digits), no chapter over 4,000; its sentences, as a readability counter
  splits the rendered text (a full stop before a capital letter, or a paragraph's or list item's end), average
  at most 25 words, and at most ten run over 50;
* every entry of ``refs.bib`` is cited somewhere, and every technique the champion's spec names (its
  parameters) is cited in the chapter that introduces it.

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
THESIS_WORDS = 25_000
CHAPTER_WORDS = 4_000
MEAN_SENTENCE = 25
LONG_SENTENCE = 50
LONG_SENTENCES = 10
BIB = ROOT / "refs.bib"


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


# --------------------------------------------------------------------------- an evening's read


def prose(source: str) -> str:
    """A markdown cell's prose: its text less fenced code and display math."""
    text = re.sub(r"```.*?```", "", source, flags=re.S)
    return re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)


def sentences(source: str):
    """The lengths in words of a markdown cell's sentences, as a counter run on the notebook's markdown counts them:
    table rows, headings and HTML comments left out, everything else as written (citation tags and link targets
    included).  A sentence ends at a full stop, question or exclamation mark followed by a capital letter, so
    "e.g. the" or "p. 12" end none.  A paragraph break ends one only before a capital letter too: a bullet, a
    bold run-in, a link, a code name, a number or a lower-case Greek letter opening a paragraph or a sentence
    continues the sentence before it, so that a bulleted list counts as one sentence with the one before it."""
    text = re.sub(r"<!--.*?-->", "", prose(source), flags=re.S)
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("|", "#")))
    text = re.sub(r"\n\s*\n", " .\n", text)
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text):
        count = prose_words(sentence)
        if count:
            yield count


def prose_words(text: str) -> int:
    """Words of the evening's budget, the stricter count: runs of letters and digits, so that "0.05", "W-D-L" or
    "+16 [1, 31]" count as their parts, as a word counter of the rendered text counts them."""
    return len(re.findall(r"\w+", text))


def chapter_words(path: Path) -> int:
    return sum(prose_words(prose(source)) for _, _, kind, source in prose_cells(path) if kind == "markdown")


def test_the_chapters_are_read_in_an_evening():
    counts = {path.name: chapter_words(path) for path in CHAPTERS}
    total = sum(counts.values())
    over = {name: count for name, count in counts.items() if count > CHAPTER_WORDS}
    assert not over, f"chapters over {CHAPTER_WORDS} words of prose: {over}; move engineering to an appendix"
    assert total <= THESIS_WORDS, (
        f"the chapters have {total} words of prose, more than {THESIS_WORDS}: {counts}"
    )


def test_the_sentences_are_short():
    lengths = {path.name: [n for _, _, kind, source in prose_cells(path) if kind == "markdown"
                           for n in sentences(source)] for path in CHAPTERS}
    every = [n for chapter in lengths.values() for n in chapter]
    mean = sum(every) / len(every)
    long = {name: sum(1 for n in chapter if n > LONG_SENTENCE) for name, chapter in lengths.items()}
    assert mean <= MEAN_SENTENCE, f"the chapters' sentences average {mean:.1f} words, more than {MEAN_SENTENCE}"
    assert sum(long.values()) <= LONG_SENTENCES, (
        f"{sum(long.values())} sentences over {LONG_SENTENCE} words, more than {LONG_SENTENCES}: "
        f"{ {name: n for name, n in long.items() if n} }"
    )


def test_the_sentence_counter_on_a_known_text():
    text = ("# A heading is no sentence\n\nOne two three. Four five? Six\n\n| a | b |\n|---|---|\n"
            "Seven <cite data-cite=\"x\">(Author, 2001)</cite> cites.\n\n```\ncode. here.\n```\n$$x. y.$$")
    assert list(sentences(text)) == [3, 2, 1, 9]
    listed = ("Items follow.\n\n* **One.** Two, e.g. three. `four` five.\n* [Six](x.ipynb) *seven*.\n\n"
              "1. Eight. 9 ten.\n\nEleven.")
    assert list(sentences(listed)) == [14, 3, 1]
    assert words(prose(text)) == 23


CAMPAIGN = re.compile(r"still (being )?played|not ended yet|still running|so far in this run", re.IGNORECASE)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_cell_prints_the_state_of_a_campaign(path):
    notebook = nbformat.read(path, as_version=4)
    found = [f"cell {index} (id {cell.get('id', '?')})" for index, cell in enumerate(notebook.cells)
             if cell.cell_type == "code" and CAMPAIGN.search(cell.source)]
    assert not found, f"{path.name}: code that reports a campaign in progress: {found}"


# --------------------------------------------------------------------------- the literature


def bib_keys():
    return re.findall(r"^@\w+\{([^,\s]+),", BIB.read_text(encoding="utf-8"), flags=re.MULTILINE)


def cited(paths):
    """The bibliography keys cited in ``paths``: data-cite attributes of notebooks, :cite: roles of rst."""
    keys = set()
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for found in re.findall(r'data-cite(?:-t|-p)?=\\?"([^"\\]+)\\?"', text):
            keys.update(key.strip() for key in found.split(","))
        for found in re.findall(r":cite:[a-z]*:`([^`]+)`", text):
            keys.update(key.strip() for key in found.split(","))
    return keys


SOURCES = sorted([*CHAPTERS, *(ROOT / "docs").glob("*.ipynb"), *(ROOT / "docs").glob("*.rst")])


def test_every_bibliography_entry_is_cited_and_every_citation_exists():
    keys = bib_keys()
    assert len(keys) == len(set(keys)), "refs.bib repeats a key"
    used = cited(SOURCES)
    assert not set(keys) - used, f"refs.bib entries cited nowhere: {sorted(set(keys) - used)}"
    assert not used - set(keys), f"citations of keys refs.bib lacks: {sorted(used - set(keys))}"


def bib_years():
    """Each entry's year as refs.bib gives it."""
    years = {}
    for key, body in re.findall(r"^@\w+\{([^,\s]+),(.*?)^\}", BIB.read_text(encoding="utf-8"), flags=re.M | re.S):
        found = re.search(r"^\s*year\s*=\s*[{\"]?(\d{4})", body, flags=re.M)
        if found:
            years[key] = found.group(1)
    return years


def test_a_citations_visible_year_is_its_entrys():
    """A citation's text in a notebook (what the site shows) names the year the bibliography gives, as the PDF's
    citation does: "(Coulom, 2006)" for an entry of 2007 is a defect a reader sees."""
    years = bib_years()
    wrong = []
    for path in (path for path in SOURCES if path.suffix == ".ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            for keys, text in re.findall(r'<cite data-cite="([^"]+)">(.*?)</cite>', cell.source, flags=re.S):
                shown = set(re.findall(r"\b(1[89]\d\d|20\d\d)[a-z]?\b", text))
                for key in (key.strip() for key in keys.split(",")):
                    if shown and key in years and years[key] not in shown:
                        wrong.append(f"{path.name}: {' '.join(text.split())} cites {key} of {years[key]}")
    assert not wrong, "\n".join(wrong)


# The champion's parameters that name a technique, the works any of which cites it, and the chapter that
# introduces it.
TECHNIQUES = {
    "pvs": ({"marsland1982pvs", "reinefeld1983negascout"}, "09-champion.ipynb"),
    "reductions": ({"romstad2006lmr"}, "09-champion.ipynb"),
    "killers": ({"akl1977killer"}, "09-champion.ipynb"),
    "iid": ({"marsland1986review"}, "09-champion.ipynb"),
    "mtdf": ({"plaat1996bestfirst"}, "09-champion.ipynb"),
    "threads": ({"ostensen2016lazysmp"}, "09-champion.ipynb"),
    "table": ({"zobrist1970hashing"}, "09-champion.ipynb"),
    "manage": ({"cpw-time-management"}, "09-champion.ipynb"),
    "book": ({"lincke2001strategies"}, "09-champion.ipynb"),
    "weights": ({"cpw-texel-tuning"}, "09-champion.ipynb"),
    "quiescence": ({"shannon1950programming"}, "09-champion.ipynb"),
    "endgame": ({"romein2003solving", "allis1991databases"}, "06-endgames.ipynb"),
}


def test_every_technique_of_the_champion_is_cited_where_it_is_introduced():
    from awale.agents import parse

    champion = parse("champion()")
    missing = [name for name in TECHNIQUES if not hasattr(champion, name)]
    assert not missing, f"TECHNIQUES names parameters the champion lacks: {missing}"
    by_chapter = {path.name: cited([path]) for path in CHAPTERS}
    uncited = [f"{name} in {chapter} (any of {sorted(keys)})" for name, (keys, chapter) in TECHNIQUES.items()
               if not keys & by_chapter.get(chapter, set())]
    assert not uncited, "techniques of the champion not cited where introduced: " + "; ".join(uncited)
