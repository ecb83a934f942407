"""The thesis's build: conf.py and our Sphinx extensions (docs/_ext), on a small chapter written for the test.

The chapter uses every authoring convention of docs/authoring.rst: citations in Markdown, inline
reStructuredText, a numbered algorithm, a numbered equation, a board and a plot captioned as figures, a hidden
cell.  A copy of the build configuration (conf.py, refs.bib, docs/) builds it to HTML and to LaTeX with every
warning an error, as `make html` and `make pdf` do; the PDF itself (TeX) and the browser check are left to
`make pdf` and `make check-site`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

ROOT = Path(__file__).resolve().parents[1]
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


def _rst(source: str) -> nbformat.NotebookNode:
    return new_raw_cell(source, metadata={"raw_mimetype": "text/restructuredtext"})


def _chapter() -> nbformat.NotebookNode:
    notebook = new_notebook(metadata=KERNEL)
    notebook.cells = [
        new_markdown_cell(
            "# Flat Monte Carlo\n\n"
            'A move is judged by playouts <cite data-cite="browne2012survey">(Browne et al., 2012)</cite>, as in '
            '<cite data-cite-t="kocsis2006bandit">Kocsis and Szepesvári</cite>. The mean $\\bar X_n$ of $n$ '
            "playouts converges:\n\n$$\\bar X_n = \\frac{1}{n} \\sum_{i=1}^n X_i.$$"
        ),
        new_markdown_cell(
            "## The search\n\nThe search is ``:numref:`alg-flat` ``{=rst}, its bound ``:eq:`ucb1` ``{=rst}, "
            "its board ``:numref:`fig-start` ``{=rst} and its plot ``:numref:`fig-plot` ``{=rst}."
        ),
        _rst(
            ".. algorithm:: Flat Monte Carlo: choose a move by random playouts\n"
            "   :name: alg-flat\n"
            "   :linenos:\n\n"
            "   function FLAT-MONTE-CARLO(state, n)\n"
            "       for each legal move a of state do\n"
            "           w[a] ← 0                              ▷ wins after a\n"
            "           repeat n times\n"
            "               w[a] ← w[a] + PLAYOUT(PLAY(state, a))\n"
            "       return the move a maximising w[a]\n"
        ),
        _rst(".. math::\n   :label: ucb1\n\n   \\bar X_a + c \\sqrt{\\frac{\\ln n}{n_a}}\n"),
        new_code_cell("import awale\nimport matplotlib.pyplot as plt\n\nawale.Game()"),
        _rst(
            ".. output-figure::\n   :name: fig-start\n\n"
            "   The initial position, :math:`48` seeds :cite:p:`romein2003solving`."
        ),
        new_code_cell(
            "print('the squares')\nfigure, axes = plt.subplots(figsize=(4, 2))\naxes.plot([1, 2, 3], [1, 4, 9]);",
            metadata={"tags": ["excerpt"]},
        ),
        _rst(".. output-figure::\n   :name: fig-plot\n\n   The squares.\n\n   A legend under the caption."),
        new_code_cell("hidden_from_the_reader = 42", metadata={"nbsphinx": "hidden"}),
    ]
    return notebook


def _project(folder: Path, notebook: nbformat.NotebookNode) -> Path:
    """A copy of the build configuration with one chapter; MathJax's file only needs to exist here."""
    for name in ("conf.py", "refs.bib", "pyproject.toml"):
        shutil.copy(ROOT / name, folder / name)
    # The appendices that read the results and link the chapters stay out: this project has one chapter.
    shutil.copytree(ROOT / "docs", folder / "docs", ignore=shutil.ignore_patterns("__pycache__", "appendix-*.ipynb"))
    index = folder / "docs" / "index.rst"
    index.write_text("".join(line for line in index.read_text(encoding="utf-8").splitlines(keepends=True)
                             if not line.strip().startswith("appendix-")), encoding="utf-8")
    (folder / "notebooks").mkdir()
    nbformat.write(notebook, folder / "notebooks" / "01-flat.ipynb")
    mathjax = folder / "build" / "mathjax" / "static" / "mathjax" / "tex-chtml.js"
    mathjax.parent.mkdir(parents=True)
    mathjax.write_text("/* stands in for MathJax */\n")
    return folder


def _sphinx(project: Path, builder: str, *options: str, out: str = "", env: dict | None = None):
    command = [sys.executable, "-m", "sphinx", "-b", builder, "-W", "--keep-going", "-q", *options,
               "-d", str(project / "_build" / "doctrees"), str(project), str(project / "_build" / (out or builder))]
    environment = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=environment | (env or {}))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    folder = _project(tmp_path_factory.mktemp("thesis"), _chapter())
    result = _sphinx(folder, "html")
    assert result.returncode == 0, result.stdout + result.stderr
    log = folder / "_build" / "chapter-cells.csv"  # docs/_ext/kernel_watch.py's; a later build starts it anew
    if log.exists():
        shutil.copy(log, folder / "cells-of-the-html-build.csv")
    return folder


def test_the_build_logs_each_cell_of_each_chapter(project):
    import csv

    rows = list(csv.DictReader((project / "cells-of-the-html-build.csv").open(encoding="utf-8")))
    cells = [row for row in rows if row["chapter"] == "notebooks/01-flat"]
    assert len(cells) == 3 and all(float(row["seconds"]) >= 0 for row in cells)  # its three code cells, hidden too
    assert all(row["compiled"] == "" for row in cells)


@pytest.fixture(scope="module")
def chapter(project) -> str:
    return (project / "_build" / "html" / "notebooks" / "01-flat.html").read_text(encoding="utf-8")


def test_algorithms_figures_and_equations_are_numbered_by_chapter(chapter):
    caption = r'<div class="algorithm" id="alg-flat">\s*<p><span class="caption-number">([^<]*)</span>'
    algorithm = re.search(caption, chapter)
    assert algorithm and algorithm.group(1).strip() == "Algorithm 1.1"
    assert re.search(r'id="fig-start">.*?<span class="caption-number">Figure 1.1 </span>', chapter, re.S)
    assert re.search(r'id="fig-plot">.*?<span class="caption-number">Figure 1.2 </span>', chapter, re.S)
    assert '<span class="eqno">(1.1)' in chapter
    references = re.findall(r'<a class="reference internal" href="#([\w-]+)">(?:<span[^>]*>)?([^<]+)<', chapter)
    assert ("alg-flat", "Algorithm 1.1") in references
    assert ("fig-start", "Figure 1.1") in references
    assert ("fig-plot", "Figure 1.2") in references
    assert ("equation-ucb1", "(1.1)") in references


def test_pseudocode_is_highlighted(chapter):
    body = chapter[chapter.index('id="alg-flat"'):]
    assert '<span class="k">function</span>' in body
    assert '<span class="nf">PLAYOUT</span>' in body
    assert '<span class="c1">▷ wins after a</span>' in body


def test_a_board_becomes_a_captioned_figure(project, chapter):
    figure = re.search(r'<figure class="output-figure align-center" id="fig-start">(.*?)</figure>', chapter, re.S)
    assert figure, "the board was not made a figure"
    image = re.search(r'<img alt="([^"]*)" src="([^"]+\.svg)"', figure.group(1))
    assert image and image.group(1).startswith("The initial position")
    svg = (project / "_build" / "html" / "notebooks" / image.group(2)).resolve().read_text(encoding="utf-8")
    assert 'class="awale-board"' in svg
    # The output the board came from is gone; the text a cell prints stays beside its figure.
    assert chapter.count('class="awale-board"') == 0 and "the squares" in chapter
    assert "A legend under the caption." in chapter


def test_citations_give_authors_and_year(project, chapter):
    assert re.search(r"\(<a [^>]*>Browne <em>et al.</em>, 2012</a>\)", chapter)
    assert re.search(r"Kocsis and Szepesvári \(<a [^>]*>2006</a>\)", chapter)
    bibliography = (project / "_build" / "html" / "docs" / "bibliography.html").read_text(encoding="utf-8")
    # The works cited here and on the title page, in the alphabetical order of their first authors.
    entries = re.findall(r'role="doc-biblioentry">(.*?)</div>', bibliography, re.S)
    first_authors = ["Browne", "Coulom", "Holm", "Kocsis", "Lanctot", "Marchant", "Romein"]
    assert len(entries) == len(first_authors)
    assert all(author in entry for author, entry in zip(first_authors, entries))


def test_the_page_loads_nothing_from_other_hosts(project, chapter):
    assert "hidden_from_the_reader" not in chapter
    assert 'src="../_static/mathjax/tex-chtml.js' in chapter
    assert 'href="../_static/thesis.css' in chapter and 'src="../_static/code-toggle.js' in chapter
    assert 'class="btn btn-sm awale-code-toggle"' in chapter
    for page in (project / "_build" / "html").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        loads = re.findall(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(https?:)?//[^"]*"', text)
        assert not loads, f"{page.name} loads from another host"
    redirect = (project / "_build" / "html" / "index.html").read_text(encoding="utf-8")
    assert 'url=docs/index.html"' in redirect


def test_latex_numbers_and_references_the_same_way(project):
    if shutil.which("rsvg-convert") is None:
        pytest.skip("the LaTeX build converts SVG with rsvg-convert: apt-get install librsvg2-bin")
    result = _sphinx(project, "latex")
    assert result.returncode == 0, result.stdout + result.stderr
    tex = (project / "_build" / "latex" / "awale-mcts.tex").read_text(encoding="utf-8")
    target = r"\detokenize{notebooks/01-flat:alg-flat}"
    assert "\\begin{algorithm}[H]" in tex
    assert "\\caption{Flat Monte Carlo: choose a move by random playouts}\\label{" + target + "}" in tex
    assert "\\hyperref[" + target + "]{Algorithm \\ref{" + target + "}}" in tex
    assert r"\floatname{algorithm}{Algorithm}" in tex
    figure = re.search(r"\\begin\{figure\}\[H\](.*?)\\end\{figure\}", tex, re.S)
    assert figure and "\\caption{The initial position" in figure.group(1)
    assert r"\label{\detokenize{notebooks/01-flat:fig-start}}" in figure.group(1)
    assert (project / "_build" / "latex" / "notebooks_01-flat_4_0.pdf").exists(), "the board was not made a PDF"
    # Chapters, then the appendices; the bibliography is LaTeX's own, at the end, not an empty chapter.
    chapter, appendix = tex.index(r"\chapter{Flat Monte Carlo}"), tex.index(r"\chapter{How the thesis is written}")
    assert chapter < tex.index("\n\\appendix\n") < appendix
    # The appendices number their tables and figures by their letter; the title page is designed, not dated.
    assert r"\apptocmd{\appendix}{%" in tex and r"\renewcommand{\thetable}{\thechapter.\arabic{table}}" in tex
    assert r"\begin{titlepage}" in tex and "Creative Commons Attribution 4.0" in tex and r"\today" not in tex
    assert r"\chapter{Bibliography}" not in tex and r"\begin{sphinxthebibliography}" in tex
    # The PDF to read keeps the code of the cells tagged "excerpt" only, and every output; "fullcode" keeps all.
    def code(tex: str) -> str:  # the text of the code blocks, without Pygments' markup
        blocks = "\n".join(re.findall(r"\\begin\{sphinxVerbatim\}.*?\\end\{sphinxVerbatim\}", tex, re.S))
        return re.sub(r"\\PYG\{[^}]*\}\{([^}]*)\}", r"\1", blocks)

    assert "import awale" not in code(tex) and "axes.plot" in code(tex) and "the squares" in tex
    result = _sphinx(project, "latex", "-t", "fullcode", out="latex-full")
    assert result.returncode == 0, result.stdout + result.stderr
    full = (project / "_build" / "latex-full" / "awale-mcts-full.tex").read_text(encoding="utf-8")
    assert "import awale" in code(full) and "axes.plot" in code(full) and "(with every code cell)" in full


def test_the_title_page_gives_the_edition_and_how_to_cite(project):
    page = re.sub(r"<[^>]+>", "", (project / "_build" / "html" / "docs" / "index.html").read_text(encoding="utf-8"))
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)
    assert f"Version {version}" in page  # the copy is no git checkout: no revision, no date
    assert "@misc{awale-mcts," in page and f"version = {{{version}}}" in page and "CITATION.cff" in page


def test_launch_buttons_come_from_the_repository_address(project, chapter):
    assert "mybinder.org" not in chapter and "colab.research.google.com" not in chapter  # no address known
    result = _sphinx(project, "html", out="html-github", env={"GITHUB_REPOSITORY": "someone/awale-thesis"})
    assert result.returncode == 0, result.stdout + result.stderr
    page = (project / "_build" / "html-github" / "notebooks" / "01-flat.html").read_text(encoding="utf-8")
    assert 'href="https://mybinder.org/v2/gh/someone/awale-thesis/main?urlpath=lab/tree/notebooks/01-flat.ipynb"' in page
    assert 'href="https://colab.research.google.com/github/someone/awale-thesis/blob/main/notebooks/01-flat.ipynb"' in page


def test_an_output_figure_needs_a_picture_above_it(tmp_path):
    notebook = new_notebook(metadata=KERNEL)
    notebook.cells = [
        new_markdown_cell("# A chapter"),
        new_code_cell("print('no picture here')"),
        _rst(".. output-figure::\n\n   A caption without a picture."),
    ]
    result = _sphinx(_project(tmp_path, notebook), "html")
    assert result.returncode != 0
    assert "output-figure: the code cell just before it displays no picture" in result.stderr
