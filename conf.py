"""Sphinx configuration of the thesis "Playing Awale with Monte Carlo Tree Search".

The sources are ``docs/`` (title page, appendices) and ``notebooks/*.ipynb`` (one chapter each), which nbsphinx
executes at every build with the Python that runs Sphinx.  ``make html`` builds the website into _build/html,
``make pdf`` the PDF through LaTeX into _build/latex, ``make check-site`` checks the website in a browser;
docs/authoring.rst explains the conventions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import nbsphinx
from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ConfigError
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

# -- The book ----------------------------------------------------------------------------------------------



def _git(*args: str) -> str:
    """The output of a git command run in the project, or "" outside a git checkout."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _repository_url() -> str:
    """The repository's GitHub address, for the launch buttons; "" when it cannot be known.

    GitHub Actions names the repository in GITHUB_REPOSITORY; a clone knows it from its remote "origin".
    """
    name = os.environ.get("GITHUB_REPOSITORY", "")
    if re.fullmatch(r"[\w.-]+/[\w.-]+", name):
        return f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com').rstrip('/')}/{name}"
    remote = _git("remote", "get-url", "origin")
    found = re.fullmatch(r"(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([\w.-]+/[\w.-]+?)(?:\.git)?/?",
                         remote)
    return f"https://github.com/{found.group(1)}" if found else ""


def _default_branch() -> str:
    """The branch the launch buttons open: the remote's default branch, else "main"."""
    head = _git("symbolic-ref", "--short", "refs/remotes/origin/HEAD")  # e.g. "origin/main"
    return head.split("/", 1)[1] if "/" in head else "main"


project = "Playing Awale with Monte Carlo Tree Search"
author = "The awale project"
# The version is the library's (pyproject.toml); the title page adds the git revision and the date of the commit
# the book is built from (the `edition` directive of docs/_ext/edition.py, which re-reads only the title page when
# the revision changes: a release set from git would make Sphinx re-run every notebook after each commit).
_PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
version = release = re.search(r'^version = "([^"]+)"', _PYPROJECT, re.MULTILINE).group(1)
REVISION = _git("describe", "--tags", "--always", "--dirty")
REVISION_DATE = _git("log", "-1", "--format=%cs")
copyright = f"{(REVISION_DATE or '2026')[:4]}, the awale project"
edition_revision, edition_date = REVISION, REVISION_DATE
REPOSITORY_URL = _repository_url()

root_doc = "docs/index"
include_patterns = ["docs/**", "notebooks/*.ipynb"]
exclude_patterns = ["docs/_ext/**", "docs/_static/**", "docs/_templates/**", "**/.ipynb_checkpoints/**"]
templates_path = ["docs/_templates"]

extensions = [
    "nbsphinx",
    "sphinx.ext.mathjax",
    "sphinxcontrib.bibtex",
    "sphinxcontrib.rsvgconverter",  # SVG boards and plots become vector PDF for LaTeX (rsvg-convert)
    "algorithm",  # docs/_ext: numbered pseudocode
    "output_figure",  # docs/_ext: a cell's picture as a numbered figure
    "edition",  # docs/_ext: version, revision and date on the title page
    "game_viewer",  # docs/_ext: stored games replayed on a board in the browser
    "play_online",  # docs/_ext: the board to play on in the browser, and its opponents' measured strength
]

language = "en"
numfig = True
numfig_secnum_depth = 1  # "Figure 2.3": the chapter, then the figure's rank in it
numfig_format = {
    "figure": "Figure %s",
    "table": "Table %s",
    "code-block": "Listing %s",
    "section": "Section %s",
    "algorithm": "Algorithm %s",
}
math_numfig = True
math_eqref_format = "({number})"
pygments_style = "friendly"
highlight_language = "python3"

# -- Notebooks: executed at every build, any error or warning fails it ----------------------------------------

nbsphinx_execute = "always"
nbsphinx_allow_errors = False
# Seconds a cell may take.  No cell compiles: `make compile` (tools/compile.py) has compiled and cached every
# kernel the chapters call before the build starts, and heavy results are read from data/.  The slowest cell took
# 13 s on the busy 2-core development machine (`make html` ends with the slowest cells: tools/compile.py --report);
# the timeout leaves a slow laptop forty times that, and catches only a cell that hangs.
nbsphinx_timeout = 600
nbsphinx_kernel_name = "python3"
nbsphinx_execute_arguments = [
    # Plots as SVG only: vector in the website and, converted to PDF, in the book; one format for both
    # builders also lets an output-figure caption them.
    "--InlineBackend.figure_formats={'svg'}",
    "--IPKernelApp.log_level=ERROR",  # not the kernel's notice that it talks to nbsphinx over local TCP
    # pandas' tables as booktabs tables in the PDF (the website keeps their HTML): docs/_ext/latex_tables.py.
    f"--InteractiveShellApp.exec_lines=import sys; sys.path.insert(0, {str(ROOT / 'docs' / '_ext')!r}); "
    "import latex_tables; latex_tables.register(); "
    # Each cell's time, and any kernel it compiled, into _build/chapter-cells.csv: docs/_ext/kernel_watch.py.
    "import kernel_watch; kernel_watch.register(get_ipython()); del sys.path[0], latex_tables, kernel_watch, sys",
]
nbsphinx_codecell_lexer = "ipython3"
nbsphinx_input_prompt = "[%s]:"
nbsphinx_output_prompt = "[%s]:"
# Nothing from other hosts: no widget manager, no RequireJS.
nbsphinx_requirejs_path = ""
nbsphinx_widgets_path = ""

# -- Citations: one bibliography (docs/bibliography.rst), author-year references ----------------------------


class _RoundBracketsAuthorYear(AuthorYearReferenceStyle):
    """Author-year references in round brackets: (Coulom, 2007), Kocsis and Szepesvári (2006)."""

    def __init__(self) -> None:
        round_brackets = BracketStyle(left="(", right=")")
        super().__init__(
            bracket_parenthetical=round_brackets,
            bracket_textual=round_brackets,
            bracket_author=round_brackets,
            bracket_label=round_brackets,
            bracket_year=round_brackets,
        )


register_plugin("sphinxcontrib.bibtex.style.referencing", "author_year_round", _RoundBracketsAuthorYear)

BIBLIOGRAPHY = "docs/bibliography"  # the page with the one `.. bibliography::` directive
bibtex_bibfiles = ["refs.bib"]
# Stable anchors ("cite-<key>"), so pages built at different times link to the same bibliography entries.
bibtex_cite_id = "cite-{key}"
bibtex_default_style = "plain"
bibtex_reference_style = "author_year_round"

# -- Website -----------------------------------------------------------------------------------------------

html_theme = "sphinx_book_theme"
html_title = project
html_short_title = "Awale and MCTS"
# MathJax 3, installed from npm by `make html` into build/mathjax/static and served by the site itself (the PDF
# needs none of it).
MATHJAX_STATIC = "build/mathjax/static"
mathjax_path = "mathjax/tex-chtml.js"
html_static_path = ["docs/_static", *([MATHJAX_STATIC] if (ROOT / MATHJAX_STATIC).is_dir() else [])]
html_css_files = ["thesis.css"]
html_js_files = ["code-toggle.js"]  # in <head>, so a hidden-code choice applies before the page is drawn
html_theme_options = {
    "article_header_end": ["play-link.html", "code-toggle.html", "article-header-buttons.html"],  # docs/_templates
    "home_page_in_toc": True,
    "navbar_persistent": [],  # the search field sits in the sidebar, not in a bar above the page
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_sidenotes": False,
}
# Launch buttons (Binder, Colab) on every chapter, which open its notebook from the repository for re-execution;
# left out when the repository's address is unknown (a copy without a GitHub remote).  docs/authoring.rst.
if REPOSITORY_URL:
    html_theme_options |= {
        "repository_url": REPOSITORY_URL,
        "repository_branch": _default_branch(),
        "path_to_docs": "",
        "launch_buttons": {
            "binderhub_url": "https://mybinder.org",
            "colab_url": "https://colab.research.google.com",
            "notebook_interface": "jupyterlab",
        },
    }
html_context = {"default_mode": "auto"}  # light or dark, as the reader's system prefers
html_show_sourcelink = False
html_show_search_summary = False  # summaries fetch the pages, which a copy opened from disk cannot do
html_last_updated_fmt = None

# -- PDF (LaTeX) -------------------------------------------------------------------------------------------

latex_engine = "xelatex"  # Unicode text (é, α, ←, ½) in prose, code and pseudocode
# Two PDFs (Makefile): the book to read keeps, of the code, only the cells tagged "excerpt" (short excerpts the
# text discusses) and every output; with the Sphinx tag "fullcode" (`make pdf-full`), every code cell.
FULL_CODE = tags.has("fullcode")  # noqa: F821 - Sphinx gives conf.py its tags
EXCERPT_TAG = "excerpt"
latex_documents = [
    (root_doc, "awale-mcts-full.tex", f"{project} (with every code cell)", author, "manual")
    if FULL_CODE
    else (root_doc, "awale-mcts.tex", project, author, "manual")
]
latex_use_xindy = False
latex_domain_indices = False
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "11pt",
    "extraclassoptions": "oneside,openany",  # a PDF read on screen: no blank pages before chapters
    "releasename": "Version",
    "figure_align": "H",  # a figure stays beside the code that draws it
    "makeindex": "",
    "printindex": "",
    "tableofcontents": "",  # docs/index.rst places it after the abstract
    "sphinxsetup": "hmargin={2.5cm,2.5cm}, vmargin={2.5cm,2.5cm}",
    # GNU FreeFont for the text (Latin, Greek, arrows, mathematical signs); DejaVu Sans Mono for code, whose
    # oblique face (comments) also has the signs of pseudocode such as ▷.
    "fontpkg": r"""
\setmainfont{FreeSerif}[Extension=.otf, UprightFont=*, ItalicFont=*Italic, BoldFont=*Bold,
  BoldItalicFont=*BoldItalic]
\setsansfont{FreeSans}[Extension=.otf, UprightFont=*, ItalicFont=*Oblique, BoldFont=*Bold,
  BoldItalicFont=*BoldOblique]
\setmonofont{DejaVu Sans Mono}[Scale=0.75]  % 88 characters fit the line: code lines are at most 88 long
""",
    # A designed title page: the title, the author line, the year of the work and its licence, not the build's
    # date (the version and the revision are printed with the edition, after the abstract: docs/index.rst).
    "maketitle": r"""
\begin{titlepage}
  \centering
  \vspace*{0.22\textheight}
  {\fontsize{28}{34}\selectfont\bfseries Playing Awale with\\[0.25em] Monte Carlo Tree Search\par}
  \vspace{1.2cm}
  {\Large\itshape A thesis written as Jupyter notebooks,\\ with the Python library awale\par}
  \vspace{2.2cm}
  {\Large %(author)s\par}
  \vspace{0.6cm}
  {\large %(year)s\par}
  \vfill
  {\small The text and the figures are under the Creative Commons Attribution 4.0 International licence
  (CC~BY~4.0);\\ the code is under the MIT licence. See the file LICENSE.\par}
\end{titlepage}
""" % {"author": author, "year": (REVISION_DATE or "2026")[:4]},
    "preamble": r"""
% The table of contents is "Contents" (Sphinx would name it after the caption of the first toctree).
\addto\captionsenglish{\renewcommand{\contentsname}{Contents}}
% Citations and other roles may appear in captions, which LaTeX also writes to its lists: keep them intact.
\usepackage{etoolbox}
% Appendices number their tables and figures by their letter ("Table F.1"): Sphinx numbers them by the
% chapter's arabic number, which \appendix does not change.
\apptocmd{\appendix}{%
  \renewcommand{\thetable}{\thechapter.\arabic{table}}%
  \renewcommand{\thefigure}{\thechapter.\arabic{figure}}%
  \ifdefined\theliteralblock\renewcommand{\theliteralblock}{\thechapter.\arabic{literalblock}}\fi
}{}{}
\robustify{\DUrole}
\robustify{\hyperlink}
% Citations give the authors and the year: the bibliography, sorted by author, needs no labels.
\makeatletter
\renewenvironment{sphinxthebibliography}[1]{%
  \clearpage
  \chapter*{\bibname}\addcontentsline{toc}{chapter}{\bibname}\markboth{\bibname}{\bibname}%
  \list{}{\setlength{\leftmargin}{1.5em}\setlength{\itemindent}{-1.5em}%
    \setlength{\labelwidth}{0pt}\setlength{\labelsep}{0pt}\setlength{\itemsep}{0.4\baselineskip}}%
  \sloppy\clubpenalty4000\widowpenalty4000\sfcode`\.\@m
}{\endlist}
\renewcommand{\@biblabel}[1]{}
\makeatother
""",
}
# SVG pictures become vector PDF; boards (560 px wide) are set at 80 % of their size, wide plots fill the line.
rsvg_converter_args = ["--zoom=0.8"]


# -- Checks and small additions ----------------------------------------------------------------------------


def _pandoc_on_path() -> None:
    """nbsphinx converts Markdown cells with pandoc: use the one the pinned pypandoc-binary wheel carries."""
    spec = find_spec("pypandoc")
    if spec is None or not spec.submodule_search_locations:
        return
    files = Path(list(spec.submodule_search_locations)[0]) / "files"
    if (files / "pandoc").exists():
        os.environ["PATH"] = f"{files}{os.pathsep}{os.environ.get('PATH', '')}"


def _check_kernel() -> None:
    """The notebooks import awale, so their kernel must be the Python that runs Sphinx (the project's .venv)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(nbsphinx_kernel_name)
    except NoSuchKernel:
        spec = None
    # jupyter_client runs a kernel whose command is a bare "python" with the current interpreter.
    bare = {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}
    command = spec.argv[0] if spec and spec.argv else ""
    if command in bare or (command and Path(command).parent == Path(sys.executable).parent):
        return
    raise ConfigError(
        f"the Jupyter kernel {nbsphinx_kernel_name!r} does not run this environment's Python "
        f"({sys.executable}): it runs {command or 'nothing (no such kernel)'}. Register it with\n"
        f"    {sys.executable} -m ipykernel install --sys-prefix --name {nbsphinx_kernel_name}"
    )


def _check_mathjax(app) -> None:
    if app.builder.format == "html" and not (ROOT / MATHJAX_STATIC / mathjax_path).is_file():
        raise ConfigError(
            f"MathJax is missing from {MATHJAX_STATIC}: `make html` installs it from npm "
            "(npm install --prefix build/mathjax mathjax@3), then copies its es5/ folder there."
        )


def _new_cell_log(app) -> None:
    """The log of the chapters' cells (docs/_ext/kernel_watch.py) starts empty at each build."""
    import kernel_watch

    kernel_watch.LOG.unlink(missing_ok=True)


def _name_the_chapter(app, docname, source) -> None:
    """The kernel that runs a notebook inherits this variable, so that its log names the notebook."""
    os.environ["AWALE_CHAPTER"] = docname


def _redirect_to_title_page(app, exception) -> None:
    """The title page is docs/index.html; an index.html at the top of the site leads there."""
    if exception is not None or app.builder.name not in {"html", "dirhtml"}:
        return
    target = app.builder.get_target_uri(root_doc)
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"refresh\" content=\"0; url={target}\">"
        f"<title>{project}</title></head>\n"
        f"<body><p><a href=\"{target}\">{project}</a></p></body></html>\n"
    )
    Path(app.outdir, "index.html").write_text(page, encoding="utf-8")


def _notebooks_follow_their_inputs(app, env, added, changed, removed) -> list[str]:
    """Run a notebook again when the library (lib/**/*.py) or the data (data/) changed since it last ran.

    Sphinx re-reads, hence re-executes, only the sources that changed; the notebooks also depend on these.
    """
    inputs = [*(ROOT / "lib").rglob("*.py"), *(path for path in (ROOT / "data").rglob("*") if path.is_file()),
              ROOT / "docs" / "_ext" / "latex_tables.py"]  # the tables' forms are made in the kernel
    newest = max((path.stat().st_mtime_ns // 1_000 for path in inputs), default=0)  # microseconds, as Sphinx
    stale = [doc for doc, read_at in env.all_docs.items() if doc.startswith("notebooks/") and read_at < newest]
    # A chapter read again may cite new works: the bibliography page must list them.
    if added or changed or removed or stale:
        stale.append(BIBLIOGRAPHY)
    return stale


def _code_excerpts_only(app, doctree, docname) -> None:
    """In the PDF to read, drop the code cells not tagged "excerpt" (their outputs stay); `make pdf-full` keeps all.

    LaTeX gets the whole book as one doctree, each chapter in a ``start_of_file`` node.  nbsphinx makes each code
    cell's input a container of class "nbinput" holding the cell's source; the tagged cells are found by their
    source in the notebook.
    """
    if app.builder.format != "latex" or FULL_CODE:
        return
    import nbformat

    for chapter in doctree.findall(addnodes.start_of_file):
        name = chapter.get("docname", "")
        if not name.startswith("notebooks/"):
            continue
        notebook = nbformat.read(Path(app.srcdir, name + ".ipynb"), as_version=4)
        kept = {
            cell.source.strip("\n")
            for cell in notebook.cells
            if cell.cell_type == "code" and EXCERPT_TAG in cell.metadata.get("tags", [])
        }
        inputs = [node for node in chapter.findall(nodes.container) if "nbinput" in node["classes"]]
        for cell in inputs:
            source = next(
                (block.astext() for block in cell.findall(nodes.literal_block) if "input_area" in block["classes"]), ""
            )
            if source.strip("\n") not in kept:
                # The output that followed it stands alone now: it must not be pulled up to join the input's box,
                # over the last line of the paragraph before it (_standalone_outputs_keep_their_place).
                following = cell.next_node(descend=False, siblings=True, ascend=False)
                while isinstance(following, nodes.comment):  # nbsphinx puts empty comments between cells
                    following = following.next_node(descend=False, siblings=True, ascend=False)
                if isinstance(following, nodes.container) and "nboutput" in following["classes"]:
                    for area in following.findall(nbsphinx.CodeAreaNode):
                        area[STANDALONE] = True
                cell.parent.remove(cell)


def _no_prompts_in_the_pdf(app, doctree, docname) -> None:
    """The PDF shows no execution counts (``[12]:``) in the margin: they number cells that a reader of paper can't run."""
    if app.builder.format != "latex":
        return
    for node in doctree.findall(lambda n: isinstance(n, (nbsphinx.CodeAreaNode, nbsphinx.FancyOutputNode))):
        node["prompt"] = ""


# nbsphinx pulls an output up by a line so that its box joins the box of the input above it.  An output whose input
# the PDF leaves out (the cells not tagged "excerpt") keeps its place below the text instead.
STANDALONE = "awale-standalone-output"
_JOIN_INPUT = r"""
\kern-\sphinxverbatimsmallskipamount\kern-\baselineskip
\kern+\FrameHeightAdjust\kern-\fboxrule
"""


def _depart_codearea_latex(self, node) -> None:
    nbsphinx.depart_codearea_latex(self, node)
    if node.get(STANDALONE):
        self.body[-1] = self.body[-1].replace(_JOIN_INPUT, "\n")


def _table_output(node) -> bool:
    """Whether an output is one of pandas' tables as docs/_ext/latex_tables.py writes it for LaTeX."""
    return any("\\toprule" in raw.astext() for raw in node.findall(nodes.raw))


def _visit_fancyoutput_latex(self, node) -> None:
    """A table outside nbsphinx's frame: the frame cannot break inside a table's box, which then ran past the
    footer; outside it, a table moves to the next page whole, and a longtable runs on to it."""
    if _table_output(node):
        self.body.append("\n\\par\\smallskip\n")
        return
    nbsphinx.visit_fancyoutput_latex(self, node)


def _depart_fancyoutput_latex(self, node) -> None:
    if _table_output(node):
        self.body.append("\n\\par\\smallskip\n")
        return
    nbsphinx.depart_fancyoutput_latex(self, node)


def _names_keep_their_width(app, doctree, docname) -> None:
    """A two-column table of the PDF that names things (a command, an option, a module) and says what they do: the
    names' column as wide as its longest line, up to a quarter of the line (longer ones wrap between words).
    LaTeX's tabulary otherwise gives it a share by its few characters, and set ``make compile`` or
    ``awale.knowledge`` a syllable a line.  Such a table is a longtable, which may run on to the next page (a
    tabulary, which cannot, ran into the footer)."""
    if app.builder.format != "latex":
        return
    for table in doctree.findall(nodes.table):
        groups = [group for group in table.children if isinstance(group, nodes.tgroup)]
        if "colwidths-given" in table["classes"] or len(groups) != 1 or groups[0]["cols"] != 2:
            continue
        rows = [row for row in groups[0].findall(nodes.row) if len(row.children) == 2]
        names = [row.children[0].astext() for row in rows]
        words = max((len(word) for name in names for word in name.split()), default=0)
        texts = max((len(row.children[1].astext()) for row in rows), default=0)
        if not rows or texts < 80 or words > 22:  # narrow, or names that cannot break: tabulary does well there
            continue
        longest = max(len(line) for name in names for line in name.splitlines())
        share = round(1.1 * (longest if longest <= 22 else 22)) + 3  # a character is about 1.1 % of the line
        for colspec, width in zip(groups[0].findall(nodes.colspec), (share, 100 - share)):
            colspec["colwidth"] = width
        table["classes"] += ["colwidths-given", "longtable"]  # a reference table may run on to the next page


def _bibliography_at_the_end(app, doctree, docname) -> None:
    """LaTeX gathers every citation into one bibliography at the end of the book: drop the page that held them."""
    if app.builder.format != "latex":
        return
    for part in list(doctree.findall(addnodes.start_of_file)):
        if part.get("docname") == BIBLIOGRAPHY:
            part.parent.remove(part)


_pandoc_on_path()
_check_kernel()


def setup(app) -> None:
    app.connect("builder-inited", _check_mathjax)
    app.connect("builder-inited", _new_cell_log)
    app.connect("source-read", _name_the_chapter)
    app.connect("env-get-outdated", _notebooks_follow_their_inputs)
    app.connect("doctree-resolved", _bibliography_at_the_end)
    app.connect("doctree-resolved", _code_excerpts_only)
    app.connect("doctree-resolved", _no_prompts_in_the_pdf)
    app.connect("doctree-resolved", _names_keep_their_width)
    app.add_node(
        nbsphinx.CodeAreaNode,
        override=True,
        html=(nbsphinx.do_nothing, nbsphinx.depart_codearea_html),
        latex=(nbsphinx.visit_codearea_latex, _depart_codearea_latex),
        text=(nbsphinx.do_nothing, nbsphinx.do_nothing),
    )
    app.add_node(
        nbsphinx.FancyOutputNode,
        override=True,
        html=(nbsphinx.do_nothing, nbsphinx.do_nothing),
        latex=(_visit_fancyoutput_latex, _depart_fancyoutput_latex),
        text=(nbsphinx.do_nothing, nbsphinx.do_nothing),
    )
    app.connect("build-finished", _redirect_to_title_page)
