"""The PDF's typesetting helpers: tools/check_pdf.py's checks, pandas' tables as LaTeX (docs/_ext/latex_tables.py),
and alt texts in plain words (docs/_ext/output_figure.py).  The whole PDF is checked by `make check-pdf`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd
from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import check_pdf  # noqa: E402
import latex_tables  # noqa: E402
from output_figure import latex_to_text, plain_text  # noqa: E402

_INPUT = r"""\begin{sphinxuseclass}{nbinput}
{
\begin{sphinxVerbatim}[commandchars=\\\{\}]
print(1)
\end{sphinxVerbatim}
}
\end{sphinxuseclass}
"""
_OUTPUT = r"""\begin{sphinxuseclass}{nboutput}
{

\kern-\sphinxverbatimsmallskipamount\kern-\baselineskip
\kern+\FrameHeightAdjust\kern-\fboxrule
\vspace{\nbsphinxcodecellspacing}

\sphinxsetup{VerbatimColor={named}{white}}
\begin{sphinxVerbatim}[commandchars=\\\{\}]
1
\end{sphinxVerbatim}
}
\end{sphinxuseclass}
"""


def test_an_output_joined_to_its_code_cell_is_not_a_covered_line():
    assert check_pdf.clipped_lines("Some text.\n\n" + _INPUT + _OUTPUT) == []


def test_an_output_pulled_over_a_paragraph_is_found():
    found = check_pdf.clipped_lines("The last line of a paragraph.\n\n" + _OUTPUT)
    assert found == ["The last line of a paragraph."]


def test_overfull_lines_are_counted_above_the_tolerance_once_a_place():
    log = ("Overfull \\hbox (12.5pt too wide) in paragraph at lines 10--12\n"
           "Overfull \\hbox (3.0pt too wide) in paragraph at lines 20--21\n"
           "Overfull \\hbox (6.25pt too wide) detected at line 30\n"
           "Overfull \\hbox (8.0pt too wide) in paragraph at lines 30--30\n")
    assert check_pdf.overfull(log) == [(12.5, "line 10"), (8.0, "line 30")]


def test_a_styler_becomes_a_booktabs_table_with_its_formats_escaped():
    frame = pd.DataFrame({"share_won": [0.125, 0.5], "agent": ["uct", "α#1"]})
    latex = latex_tables.styler_latex(frame.style.format({"share_won": "{:.1%}"}).hide(axis="index"))
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    assert "share\\_won & agent \\\\" in latex
    assert "12.5\\% & uct \\\\" in latex and "α\\#1" in latex
    assert "\\begin{tabular}{rl}" in latex


def test_a_dataframe_keeps_pandas_decimals():
    latex = latex_tables.dataframe_latex(pd.DataFrame({"elo": [12.5, 3.25]}, index=["a", "b"]))
    assert "a & 12.50 \\\\" in latex and "b & 3.25 \\\\" in latex


def test_alt_texts_write_formulas_in_plain_words():
    assert latex_to_text(r"\varepsilon = 0.1") == "ε = 0.1"
    assert latex_to_text(r"c = \sqrt{2}/2") == "c = √2/2"
    caption = nodes.caption("", "", nodes.Text("greedy with "), nodes.math(r"\varepsilon", r"\varepsilon"),
                            nodes.Text(" = 0.1"))
    assert plain_text(caption) == "greedy with ε = 0.1"


def test_the_kernel_formatter_finds_dataframes_and_stylers():
    from IPython.core.formatters import HTMLFormatter, LatexFormatter

    class Shell:
        class display_formatter:  # noqa: N801 - IPython's attribute
            formatters = {"text/latex": LatexFormatter(), "text/html": HTMLFormatter()}

    latex_tables.register(Shell)
    formatter = Shell.display_formatter.formatters["text/latex"]
    frame = pd.DataFrame({"agree": [676, 561]})
    assert "\\toprule" in formatter(frame)
    assert "\\toprule" in formatter(frame.style.format("{:d}"))
    html = Shell.display_formatter.formatters["text/html"]
    assert 'class="awale-nowrap"' in html(frame) and "awale-nowrap" in html(frame.style)


def _ladder() -> pd.DataFrame:
    return pd.DataFrame({"rating": [919, -1139], "ms/move, idle": [15.5, float("nan")],
                         "p (Holm)": [8.16e-19, 0.2], "record": ["147-21-32", "3-4-5"], "games": [1352078, 924]},
                        index=pd.Index(["αβ", "random"], name="agent"))


def test_every_table_writes_its_numbers_one_way_on_the_site_and_in_the_pdf():
    for text in (latex_tables.dataframe_latex(_ladder()), latex_tables.dataframe_html(_ladder())):
        assert "nan" not in text.lower().replace("nowrap", "") and "e-19" not in text and "15.500000" not in text
        assert "—" in text and "1,352,078" in text and "0.200" in text and "0.001" in text
    styled = _ladder().style.format({"rating": "{:+d}"})  # a chapter's own format is kept, the others filled in
    latex = latex_tables.styler_latex(styled)
    assert "+919" in latex and "15.5 &" in latex and "—" in latex and "nan" not in latex


def test_the_index_name_sits_in_the_header_corner_not_on_a_blank_row():
    html = latex_tables.dataframe_html(_ladder())
    assert html.count("<tr") == 3 and "<th>agent</th>" in html  # one header row, two rows of data
    latex = latex_tables.dataframe_latex(_ladder())
    assert "agent & rating & ms/move, idle" in latex and latex.count("\\\\") == 3


def test_records_and_numbers_do_not_wrap_on_the_site():
    html = latex_tables.dataframe_html(_ladder())
    assert '<td class="awale-nowrap">147-21-32</td>' in html and '<td class="awale-nowrap">&lt; 0.001</td>' in html
    css = (ROOT / "docs" / "_static" / "thesis.css").read_text(encoding="utf-8")
    assert ".awale-nowrap" in css


def test_a_long_table_runs_on_to_the_next_page():
    latex = latex_tables.dataframe_latex(pd.DataFrame({"n": range(latex_tables.LONG_ROWS + 1)}))
    assert "\\begin{longtable}" in latex and "\\endhead" in latex


def test_a_long_table_too_wide_for_the_line_wraps_its_widest_text_column():
    rows = latex_tables.LONG_ROWS + 1
    narrow = latex_tables.dataframe_latex(pd.DataFrame({"idea": ["no quiescence"] * rows, "games": range(rows)}))
    assert "\\footnotesize" in narrow and "\\begin{longtable}{rlr}" in narrow and "p{" not in narrow
    idea = "weights fitted on positions of the endgame database"
    wide = pd.DataFrame({f"column {i}": ["a cell of text"] * rows for i in range(6)})
    wide["idea"] = idea
    latex = latex_tables.dataframe_latex(wide)
    assert "\\scriptsize" in latex and latex.count("p{") == 1 and "\\raggedright" in latex
    width = float(re.search(r"p\{(\d+)pt\}", latex).group(1))
    character, between = latex_tables._CHARACTER["\\scriptsize"], latex_tables._BETWEEN
    others = (2 * character + between) + 6 * (len("a cell of text") * character + between)  # the index, 6 columns
    assert width < len(idea) * character and width + between + others <= latex_tables._LINE + 1, \
        "the idea wraps, and the table as estimated fits the line"


def test_a_table_too_long_for_a_page_stays_text():
    assert latex_tables.dataframe_latex(pd.DataFrame({"n": range(latex_tables.MAX_ROWS + 1)})) is None
    assert latex_tables.dataframe_latex(pd.DataFrame({"n": range(latex_tables.MAX_ROWS)})) is not None


def test_nan_and_raw_decimals_are_found_with_their_page():
    text = ("score 0.52 and 1,352 games\n15.500000 here\fa nan there, NaN, 8.16e-19; version 2.0.12345, nanometre,"
            " doi:10.32614/RJ-2010-008")
    found = check_pdf.raw_numbers(text)
    assert len(found) == 4
    assert found[0].startswith("page 1: a raw decimal '15.500000'")
    assert [item.split(" ")[1] for item in found[1:]] == ["2:"] * 3


def test_an_overfull_page_is_found_with_its_page_number():
    log = ("Overfull \\vbox (1290.08467pt too high) has occurred while \\output is active\n"
           "[]\n[142] [143]\nOverfull \\vbox (0.5pt too high) has occurred while \\output is active [150]\n")
    assert check_pdf.overfull_pages(log) == [(1290.08467, "on the page numbered 142")]


def test_an_orphan_output_is_a_bare_value_whose_code_the_pdf_leaves_out(tmp_path):
    import json

    def cell(source, outputs, tags=()):
        return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)}, "outputs": outputs}

    bare = {"output_type": "execute_result", "data": {"text/plain": "(924, 2)"}}
    table = {"output_type": "execute_result", "data": {"text/plain": "...", "text/html": "<table>"}}
    printed = {"output_type": "stream", "name": "stdout", "text": "924 games\n"}
    notebook = {"cells": [cell("games.shape", [bare]), cell("frame", [table]), cell("print(n)", [printed]),
                          cell("len(x)", [bare], tags=["excerpt"])]}
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "07-method.ipynb").write_text(json.dumps(notebook))
    assert check_pdf.orphan_outputs(tmp_path) == ["notebooks/07-method cell 1: '(924, 2)'"]
    assert check_pdf.orphan_outputs(tmp_path, full_code=True) == []


def test_p_values_written_as_text_by_a_chapter_get_the_same_floor():
    frame = pd.DataFrame({"p": ["8.16e-19", "0.2", "< 0.001"], "95 % interval": ["[0.73, 0.84]"] * 3})
    html = latex_tables.dataframe_html(frame)
    assert "e-19" not in html and html.count("&lt; 0.001") == 2 and "0.200" in html
    assert '<td class="awale-nowrap">[0.73, 0.84]</td>' in html


def test_an_index_named_empty_leaves_no_blank_header_row():
    frame = pd.DataFrame({"won": [1, 2]}, index=pd.Index(["c = 0.2", "c = 0.4"], name=""))
    latex = latex_tables.dataframe_latex(frame)
    assert " & won \\\\\n\\midrule" in latex and "&  \\\\" not in latex
