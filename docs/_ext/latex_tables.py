"""Tables of pandas as LaTeX tables in the PDF: run in each notebook's kernel when the book is built (conf.py).

A chapter shows a table by ending a cell with a ``DataFrame`` or a ``Styler``.  The website shows their HTML; the
PDF took their plain text, which pandas wraps with ``\\`` continuations, or, for a ``Styler``, a bare
``<pandas.io.formats.style.Styler at 0x...>``.  :func:`register` gives both a ``text/latex`` form, which nbsphinx
prefers for LaTeX: a booktabs table of the same cells as formatted for the screen (a ``Styler``'s formats and
hidden index included), escaped for LaTeX, in a small font, and shrunk to the text width when wider.  pandas is not
imported here: IPython looks the types up by name once a notebook has imported it.
"""

from __future__ import annotations

__all__ = ["MAX_ROWS", "dataframe_latex", "styler_latex", "register"]

_SEPARATOR = "\x1f"
_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
}


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(character, character) for character in text)


def _number(text: str) -> bool:
    cleaned = text.strip().replace(",", "").replace("%", "").replace("−", "-").replace("+", "")
    try:
        float(cleaned)
    except ValueError:
        return False
    return True


#: A table of more rows than this stays text in the PDF: a tabular cannot run on to the next page.
MAX_ROWS = 45


def _tabular(rows: list[list[str]], header_rows: int) -> "str | None":
    """A booktabs tabular of text cells; columns of numbers are set to the right (None: too long a table)."""
    if len(rows) > MAX_ROWS + header_rows:
        return None
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    body = rows[header_rows:]
    align = "".join(
        "r" if body and all(_number(row[column]) or not row[column].strip() for row in body) else "l"
        for column in range(width)
    )
    lines = [r"\begin{tabular}{" + align + "}", r"\toprule"]
    lines += [" & ".join(_escape(cell) for cell in row) + r" \\" for row in rows[:header_rows]]
    lines.append(r"\midrule")
    lines += [" & ".join(_escape(cell) for cell in row) + r" \\" for row in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    table = "\n".join(lines)
    # Shrunk to the line when wider than it (graphicx's \resizebox knows the table's own \width).
    return (
        "\n\\begin{center}\\small\n\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"
        + table
        + "}\n\\end{center}\n"
    )


def _header_rows(styler) -> int:
    """The rows of column labels, and the row of the index's names when it has some and is shown."""
    rows = getattr(styler.data.columns, "nlevels", 1)
    index = styler.data.index
    shown = not all(getattr(styler, "hide_index_", [False]))
    if shown and any(name is not None for name in index.names):
        rows += 1
    return rows


def styler_latex(styler) -> "str | None":
    """A ``Styler`` as a LaTeX table, with the cells as its formats write them."""
    text = styler.to_string(delimiter=_SEPARATOR)
    rows = [line.split(_SEPARATOR) for line in text.rstrip("\n").split("\n")]
    return _tabular(rows, _header_rows(styler))


def _column_format(values) -> "callable | None":
    """Floats as pandas prints them: one number of decimals per column, the fewest that show every value."""
    import math

    floats = [value for value in values if isinstance(value, float) and math.isfinite(value)]
    if not floats or len(floats) != sum(1 for value in values if isinstance(value, float)):
        return None
    decimals = max(1, *(len(f"{value:.6f}".rstrip("0").split(".")[1]) for value in floats))
    return lambda value: "" if value != value else f"{value:.{decimals}f}"


def dataframe_latex(frame) -> "str | None":
    """A ``DataFrame`` as a LaTeX table, its numbers written as pandas prints them."""
    styler = frame.style
    formats = {}
    for column in frame.columns:
        series = frame[column]
        if getattr(series, "ndim", 1) != 1:
            continue
        formatter = _column_format(list(series))
        if formatter is not None:
            formats[column] = formatter
    if formats and frame.columns.is_unique:
        styler = styler.format(formats)
    return styler_latex(styler)


def register(shell=None) -> None:
    """Give pandas' tables a ``text/latex`` form in this IPython kernel (pandas need not be imported yet)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        return
    latex = shell.display_formatter.formatters["text/latex"]
    # A type is found by its __module__, which pandas 3 sets to "pandas" for DataFrame (and older ones did not).
    for module in ("pandas", "pandas.core.frame"):
        latex.for_type_by_name(module, "DataFrame", dataframe_latex)
    latex.for_type_by_name("pandas.io.formats.style", "Styler", styler_latex)
