"""pandas' tables as the book shows them: run in each notebook's kernel when the book is built (conf.py).

A chapter shows a table by ending a cell with a ``DataFrame`` or a ``Styler``.  :func:`register` gives both
their forms here, so that the site and the PDF write the same cells the same way:

- every column's numbers by one rule (:func:`column_format`): "—" for no value (never ``nan``), one number of
  decimals a column, thousands separators, p-values with a floor ("< 0.001", never "8.16e-19"); a ``Styler``'s
  own formats are kept, and its other columns get these;
- ``text/html`` for the site: the index's name in the header's corner, not on a row of blank cells of its own,
  and cells of numbers and records ("147-21-32") that never wrap (class ``awale-nowrap``);
- ``text/latex`` for the PDF, which nbsphinx prefers there: a booktabs table in a small font, shrunk to the
  text width when wider, or a longtable (which may run on to the next page) when long.

pandas is not imported here: IPython looks the types up by name once a notebook has imported it.
"""

from __future__ import annotations

import re

__all__ = ["MAX_ROWS", "column_format", "dataframe_latex", "styler_latex", "dataframe_html", "styler_html",
           "register"]

_SEPARATOR = "\x1f"
_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
}


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(character, character) for character in text)


def _number(text: str) -> bool:
    if text.strip() in (NO_VALUE, "< 0.001"):
        return True
    cleaned = text.strip().replace(",", "").replace("%", "").replace("−", "-").replace("+", "")
    try:
        float(cleaned)
    except ValueError:
        return False
    return True


#: A table of more rows than this stays text in the PDF (an appendix's table, not a chapter's).
MAX_ROWS = 120
#: A table of more rows than this is a longtable, which may run on to the next page.
LONG_ROWS = 16


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
    if len(body) > LONG_ROWS:
        return _longtable(rows, header_rows, align)
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


#: The PDF's text width in points (A4, margins of 2.5 cm), a character's mean width in the two small sizes of its
#: serif font, and the space between two columns (twice the \tabcolsep of 4 pt): a longtable cannot be shrunk to the
#: line, so its width is estimated from its cells' lengths before it is set.
_LINE = 455.0
_CHARACTER = {r"\footnotesize": 4.05, r"\scriptsize": 3.6}
_BETWEEN = 8.0


def _column_widths(rows: list[list[str]], size: str) -> list[float]:
    """Each column's estimated natural width in points, in font ``size``."""
    return [max(len(row[column]) for row in rows) * _CHARACTER[size] + _BETWEEN for column in range(len(rows[0]))]


def _long_layout(rows: list[list[str]], align: str) -> tuple[str, str]:
    """The font size and column types of a longtable that fits the line: the small size if it fits, else the
    smaller one; and if even that is too wide, its widest column of text set as a paragraph that wraps."""
    if len(align) <= 7 and sum(_column_widths(rows, r"\footnotesize")) <= _LINE:
        return r"\footnotesize", align
    size = r"\scriptsize"
    widths = _column_widths(rows, size)
    over = sum(widths) - _LINE
    texts = [column for column, kind in enumerate(align) if kind == "l"]
    if over <= 0 or not texts:
        return size, align
    widest = max(texts, key=lambda column: widths[column])
    paragraph = max(widths[widest] - _BETWEEN - over, 0.4 * widths[widest])
    kinds = [r">{\raggedright\arraybackslash}p{%.0fpt}" % paragraph if column == widest else kind
             for column, kind in enumerate(align)]
    return size, "".join(kinds)


def _longtable(rows: list[list[str]], header_rows: int, align: str) -> str:
    """A table of more than LONG_ROWS rows: a longtable, which runs on to the next page with its header repeated
    (a tabular cannot break, and a long one ran past the footer), in a smaller font to keep within the line."""
    header = [" & ".join(_escape(cell) for cell in row) + r" \\" for row in rows[:header_rows]]
    body = [" & ".join(_escape(cell) for cell in row) + r" \\" for row in rows[header_rows:]]
    size, columns = _long_layout(rows, align)
    lines = [
        r"\begingroup" + size + r"\setlength{\tabcolsep}{4pt}",
        r"\begin{longtable}{" + columns + "}",
        r"\toprule", *header, r"\midrule", r"\endfirsthead",
        r"\toprule", *header, r"\midrule", r"\endhead",
        r"\bottomrule", r"\endlastfoot",
        *body,
        r"\end{longtable}",
        r"\endgroup",
    ]
    return "\n" + "\n".join(lines) + "\n"


def _header_rows(styler) -> int:
    """The rows of column labels, and the row of the index's names when it has some and is shown."""
    rows = getattr(styler.data.columns, "nlevels", 1)
    index = styler.data.index
    shown = not all(getattr(styler, "hide_index_", [False]))
    if shown and any(name is not None for name in index.names):
        rows += 1
    return rows


def styler_latex(styler) -> "str | None":
    """A ``Styler`` as a LaTeX table, with the cells as its formats write them (the unformatted columns as
    :func:`column_format` writes them)."""
    styler = _with_defaults(styler)
    text = styler.to_string(delimiter=_SEPARATOR)
    rows = [line.split(_SEPARATOR) for line in text.rstrip("\n").split("\n")]
    header_rows = _header_rows(styler)
    if header_rows >= 2 and not any(cell.strip() for cell in rows[header_rows - 1]):  # an index named ""
        del rows[header_rows - 1]
        header_rows -= 1
    if header_rows >= 2 and _names_row(rows, header_rows):
        rows = _merged_header(rows, header_rows)
        header_rows -= 1
    return _tabular(rows, header_rows)


def _names_row(rows: list[list[str]], header_rows: int) -> bool:
    """Whether the last header row holds the index's name alone, under an empty corner of the first one."""
    names, first = rows[header_rows - 1], rows[0]
    filled = [i for i, cell in enumerate(names) if cell.strip()]
    return bool(filled) and all(i < len(first) and not first[i].strip() for i in filled) and filled == list(
        range(len(filled)))


def _merged_header(rows: list[list[str]], header_rows: int) -> list[list[str]]:
    """The index's name moved up into the corner of the first header row: no row of empty cells below it."""
    names = rows[header_rows - 1]
    first = list(rows[0])
    for i, cell in enumerate(names):
        if cell.strip():
            first[i] = cell
    return [first, *rows[1:header_rows - 1], *rows[header_rows:]]


#: A column is a column of p-values when its label is "p" or starts so ("p (Holm)", "p-value", "p, distinct").
P_LABEL = re.compile(r"^p(?:$|[\s,(-]|-value)", re.IGNORECASE)
#: Decimals of a column of floats: the fewest that show every value, at most this many.
MAX_DECIMALS = 3
NO_VALUE = "—"


def column_format(values, label: object = "") -> "callable | None":
    """How a table writes one column's numbers, on the site and in the PDF alike (None: as pandas does).

    - no value (NaN, None, ``pd.NA``): "—";
    - p-values (a label "p", "p (Holm)", ...): three decimals with a floor, "< 0.001";
    - floats: one number of decimals for the whole column, the fewest that show every value (at most
      MAX_DECIMALS), with thousands separators;
    - integers from 10,000 up: thousands separators ("1,352,078").
    """
    import math
    import numbers

    def missing(value) -> bool:
        if value is None:
            return True
        try:
            return bool(value != value) or str(value) == "<NA>"
        except (TypeError, ValueError):
            return str(value) == "<NA>"

    present = [value for value in values if not missing(value)]
    if any(isinstance(value, bool) for value in present):
        return None
    if P_LABEL.match(str(label)) and present and all(isinstance(value, str) for value in present):
        return _p_text(present, missing)
    if not all(isinstance(value, numbers.Real) for value in present):
        return (lambda value: NO_VALUE if missing(value) else str(value)) if len(present) < len(values) else None
    floats = [float(value) for value in present if not isinstance(value, numbers.Integral)]
    if P_LABEL.match(str(label)) and all(0 <= float(value) <= 1 for value in present):
        return lambda value: NO_VALUE if missing(value) else "< 0.001" if value < 0.0005 else f"{value:.3f}"
    if floats and all(math.isfinite(value) for value in floats):
        decimals = max(len(f"{value:.{MAX_DECIMALS}f}".rstrip("0").split(".")[1]) for value in floats)
        if all(float(value).is_integer() for value in present) and not floats:
            decimals = 0
        return lambda value: NO_VALUE if missing(value) else f"{float(value):,.{decimals}f}"
    if not floats and any(abs(int(value)) >= 10_000 for value in present):
        return lambda value: NO_VALUE if missing(value) else f"{int(value):,}"
    if len(present) < len(values):
        return lambda value: NO_VALUE if missing(value) else str(value)
    return None


def _p_text(present, missing) -> "callable | None":
    """A column of p-values a chapter wrote as text ("8.16e-19", "0.2"): the same floor and decimals."""

    def number(text: str):
        try:
            return float(text)
        except ValueError:
            return None

    if not all(text.strip().startswith("<") or (number(text) is not None and 0 <= number(text) <= 1)
               for text in present):
        return None

    def write(value) -> str:
        if missing(value):
            return NO_VALUE
        found = number(value)
        if found is None:
            return value
        return "< 0.001" if found < 0.0005 else f"{found:.3f}"

    return write


def _formats(frame) -> dict:
    formats = {}
    if not frame.columns.is_unique:
        return formats
    for column in frame.columns:
        series = frame[column]
        if getattr(series, "ndim", 1) != 1:
            continue
        formatter = column_format(list(series), column[-1] if isinstance(column, tuple) else column)
        if formatter is not None:
            formats[column] = formatter
    return formats


def _with_defaults(styler):
    """A ``Styler`` whose columns without a format of the chapter's own get :func:`column_format`'s."""
    import functools

    def default(function) -> bool:  # pandas' own formatter of a cell that no format of the chapter's names
        return isinstance(function, functools.partial) and getattr(function.func, "__name__", "") == "_default_formatter"

    try:
        own = {column for (_, column), function in getattr(styler, "_display_funcs", {}).items()
               if not default(function)}
    except (TypeError, ValueError, AttributeError):
        return styler
    frame = styler.data
    formats = {column: formatter for column, formatter in _formats(frame).items()
               if frame.columns.get_loc(column) not in own}
    # Only these columns: a format given for all of them would put pandas' default back on the others.
    return styler.format(formats, subset=list(formats), na_rep=NO_VALUE) if formats else styler


def dataframe_latex(frame) -> "str | None":
    """A ``DataFrame`` as a LaTeX table, its numbers written by :func:`column_format`."""
    styler = frame.style
    formats = _formats(frame)
    if formats:
        styler = styler.format(formats)
    return styler_latex(styler)


# Cells of numbers, records and intervals ("147-21-32", "0.95 [0.85, 0.98]", "< 0.001", "+16"): kept on one line.
_NUMERIC_CELL = re.compile(r"<td([^>]*)>\s*((?:&lt;|&gt;|[<>−+\-–≥≤\[(])?\s*[\d.,]+(?:[\s\d.,\-–−+%\[\]()×/]|&lt;|&gt;)*)\s*</td>")


def _no_wrap(html: str) -> str:
    def mark(found):
        attributes, text = found.group(1), found.group(2)
        if "class=" in attributes:
            attributes = re.sub(r'class="', 'class="awale-nowrap ', attributes, count=1)
        else:
            attributes += ' class="awale-nowrap"'
        return f"<td{attributes}>{text}</td>"

    return _NUMERIC_CELL.sub(mark, html)


def dataframe_html(frame) -> "str | None":
    """A ``DataFrame`` for the site: numbers as :func:`column_format` writes them, the index's name in the
    header's corner (pandas gives it a row of its own, a blank band under a double rule), records and numbers
    kept on one line (class ``awale-nowrap``, docs/_static/thesis.css)."""
    import html as _html

    formats = _formats(frame)
    single = getattr(frame.columns, "nlevels", 1) == 1 and getattr(frame.index, "nlevels", 1) == 1
    corner = frame.index.name if single and frame.index.name is not None else None
    shown = frame.rename_axis(index=None, columns=None) if single else frame
    text = shown.to_html(formatters={column: formats[column] for column in formats if column in shown.columns},
                         na_rep=NO_VALUE, max_rows=60, max_cols=20, notebook=True)
    if corner is not None:
        text = re.sub(r"(<thead>\s*<tr[^>]*>\s*)<th></th>", lambda m: f"{m.group(1)}<th>{_html.escape(str(corner))}</th>",
                      text, count=1)
    return _no_wrap(text)


def styler_html(styler) -> "str | None":
    """A ``Styler`` for the site: its own formats, :func:`column_format` for the other columns, numbers unwrapped."""
    return _no_wrap(_with_defaults(styler).to_html())


def register(shell=None) -> None:
    """Give pandas' tables a ``text/latex`` form in this IPython kernel (pandas need not be imported yet)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        return
    latex = shell.display_formatter.formatters["text/latex"]
    html = shell.display_formatter.formatters["text/html"]
    for module in ("pandas", "pandas.core.frame"):
        html.for_type_by_name(module, "DataFrame", dataframe_html)
    html.for_type_by_name("pandas.io.formats.style", "Styler", styler_html)
    # A type is found by its __module__, which pandas 3 sets to "pandas" for DataFrame (and older ones did not).
    for module in ("pandas", "pandas.core.frame"):
        latex.for_type_by_name(module, "DataFrame", dataframe_latex)
    latex.for_type_by_name("pandas.io.formats.style", "Styler", styler_latex)
