"""Check the typesetting of the thesis's PDF (`make check-pdf`, run by `make pdf` after LaTeX).

It fails on:

- a paragraph whose last line an output covers: nbsphinx pulls an output up by a line to join its box to the box
  of the code cell above it; an output whose code cell the PDF leaves out must keep its place (conf.py).  In the
  LaTeX source, every output so pulled up must follow a box (a code cell, or another output), not text;
- a Jupyter prompt (``[12]:``) anywhere in the PDF's text (``pdftotext`` of poppler-utils);
- more than MAX_OVERFULL overfull lines wider than the text by more than TOLERANCE_PT points (LaTeX's log);
- any overfull page (``Overfull \vbox``) taller than the text by more than TOLERANCE_PT points: a table or a
  figure that runs into the footer or off the page;
- a ``nan`` or ``NaN`` in the text (pandas' missing value: a table writes "—");
- a raw decimal of pandas or of Python: a number with five decimals or more ("15.500000") or in scientific
  notation ("8.16e-19"; a p-value below 0.001 is written "< 0.001");
- an orphan output: a cell's bare value (an ``Out`` of plain text, such as ``(924, 2)``) whose code the PDF leaves
  out, so that nothing says what it is.  The notebooks as the build ran them are read from the doctrees
  (``_build/doctrees/nbsphinx``); a printed line, a table or a picture is not a bare value.

Usage: python tools/check_pdf.py _build/latex/awale-mcts.pdf   (the .tex and .log beside it are read too)
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

MAX_OVERFULL = 10
TOLERANCE_PT = 5.0

# What nbsphinx writes before an output to pull it up against the box above it.
JOIN = r"\kern-\sphinxverbatimsmallskipamount\kern-\baselineskip"
# Lines that only open or close a scope between two boxes.
_STRUCTURE = re.compile(
    r"^(\s*|[{}]|\\(begin|end)\{sphinxuseclass\}(\{[^}]*\})?|\\sphinxsetup\{.*\}|\\hrule.*|\\vspace\{.*\}"
    r"|\\makeatletter.*|\\savebox.*|\\begin\{nbsphinxfancyoutput\}|%.*)$"
)
_BOX_END = re.compile(r"^\\end\{(sphinxVerbatim|nbsphinxfancyoutput|sphinxadmonition)\}")
_PROMPT = re.compile(r"(?m)^\s*\[\d+\]:")
_OVERFULL = re.compile(r"^Overfull \\hbox \(([\d.]+)pt too wide\) (.*)$", re.MULTILINE)
_OVERFULL_PAGE = re.compile(r"^Overfull \\vbox \(([\d.]+)pt too high\) (.*)$", re.MULTILINE)
_NAN = re.compile(r"(?<![\w.])(?:nan|NaN|NAN)(?![\w(])")
# Five decimals or more, or a mantissa and an exponent; not inside a word, a version, a hash or a DOI
# (doi:10.32614/RJ-2010-008).
_RAW_DECIMAL = re.compile(r"(?<![\w.:/])\d+\.\d{5,}(?![\w./])|(?<![\w.:/])\d(?:\.\d+)?e[-+]\d{1,3}(?![\w./])")
EXCERPT_TAG = "excerpt"  # conf.py: the code cells the PDF keeps

__all__ = ["clipped_lines", "prompts", "overfull", "overfull_pages", "raw_numbers", "orphan_outputs", "main"]


def clipped_lines(tex: str) -> list[str]:
    """Outputs pulled up over text: the text just before each, at the end of the paragraph they cover."""
    found = []
    for match in re.finditer(re.escape(JOIN), tex):
        before = tex[: match.start()].split("\n")
        for line in reversed(before[:-1] if before and not before[-1].strip() else before):
            if _STRUCTURE.match(line.strip()):
                continue
            if not _BOX_END.match(line.strip()):
                found.append(line.strip()[-70:])
            break
    return found


def pdf_text(pdf: Path) -> str:
    """The PDF's text, its pages separated by form feeds (pdftotext of poppler-utils)."""
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def prompts(text: str) -> list[str]:
    """Jupyter prompts in the PDF's text, with their page numbers."""
    found = []
    for number, page in enumerate(text.split("\f"), start=1):
        found += [f"page {number}: {line.strip()[:60]!r}" for line in page.splitlines() if _PROMPT.match(line)]
    return found


def raw_numbers(text: str) -> list[str]:
    """``nan`` and raw decimals in the PDF's text, with their page numbers and the line they are on."""
    found = []
    for number, page in enumerate(text.split("\f"), start=1):
        for line in page.splitlines():
            for pattern, what in ((_NAN, "nan"), (_RAW_DECIMAL, "a raw decimal")):
                for match in pattern.finditer(line):
                    found.append(f"page {number}: {what} {match.group(0)!r} in {' '.join(line.split())[:70]!r}")
    return found


def overfull_pages(log: str, tolerance: float = TOLERANCE_PT) -> list[tuple[float, str]]:
    """Pages whose content is taller than the text block by more than ``tolerance`` points, tallest first."""
    found = []
    for match in _OVERFULL_PAGE.finditer(log):
        page = re.search(r"\[(\d+)", log[match.end():match.end() + 4000])  # the page LaTeX ships next
        found.append((float(match.group(1)), f"on the page numbered {page.group(1)}" if page else match.group(2).strip()))
    return sorted((item for item in found if item[0] > tolerance), reverse=True)


def orphan_outputs(executed: Path, full_code: bool = False) -> list[str]:
    """Bare values the PDF shows without their code: plain-text results of the cells not tagged "excerpt".

    ``executed`` holds the notebooks as nbsphinx ran them (``_build/doctrees/nbsphinx``).
    """
    found = []
    if full_code:
        return found
    for notebook in sorted(executed.rglob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
        for number, cell in enumerate(cells, start=1):
            if cell.get("cell_type") != "code" or EXCERPT_TAG in cell.get("metadata", {}).get("tags", []):
                continue
            if "remove-output" in cell.get("metadata", {}).get("tags", []):
                continue
            if cell.get("metadata", {}).get("nbsphinx") == "hidden":
                continue
            for output in cell.get("outputs", []):
                if output.get("output_type") != "execute_result":
                    continue
                kinds = set(output.get("data", {}))
                if kinds <= {"text/plain"}:
                    value = "".join(output["data"].get("text/plain", "")).strip()
                    found.append(f"{notebook.relative_to(executed).with_suffix('')} cell {number}: "
                                 f"{' '.join(value.split())[:50]!r}")
    return found


def overfull(log: str, tolerance: float = TOLERANCE_PT) -> list[tuple[float, str]]:
    """Overfull lines wider than the text by more than ``tolerance`` points, one per place, widest first.

    A place is the line of the LaTeX source that LaTeX names: a table set by ``tabulary`` is typeset several
    times while its columns are sized, and reports the same line at each trial; it counts once, at its widest.
    """
    widest: dict[str, float] = {}
    for points, where in _OVERFULL.findall(log):
        place = re.sub(r"^(in paragraph at lines (\d+)--\d+|detected at line (\d+)).*$", r"line \2\3", where)
        widest[place] = max(widest.get(place, 0.0), float(points))
    return sorted(((points, place) for place, points in widest.items() if points > tolerance), reverse=True)


def _grouped(raw: list[str]) -> list[str]:
    """The raw numbers a page at a time: how many, and the first line that holds one."""
    pages: dict[str, list[str]] = {}
    for item in raw:
        page, rest = item.split(": ", 1)
        pages.setdefault(page, []).append(rest)
    return [f"pandas' or Python's raw output, {page}: {len(found)} ({found[0]}"
            + (f"; and {len(found) - 1} more)" if len(found) > 1 else ")") for page, found in pages.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", type=Path, help="the PDF, beside its .tex and .log, e.g. _build/latex/awale-mcts.pdf")
    parser.add_argument("--max-overfull", type=int, default=MAX_OVERFULL, help=f"default {MAX_OVERFULL}")
    parser.add_argument("--executed", type=Path, default=None,
                        help="the notebooks as the build ran them (default: doctrees/nbsphinx beside the PDF's folder)")
    parser.add_argument("--full-code", action="store_true", help="the PDF keeps every code cell (make pdf-full)")
    args = parser.parse_args(argv)
    tex_path, log_path = args.pdf.with_suffix(".tex"), args.pdf.with_suffix(".log")
    for path in (args.pdf, tex_path, log_path):
        if not path.is_file():
            print(f"check-pdf: {path} is missing: build the PDF first (make pdf)", file=sys.stderr)
            return 2
    if shutil.which("pdftotext") is None:
        print("check-pdf needs pdftotext: apt-get install -y poppler-utils", file=sys.stderr)
        return 2
    problems = []
    clipped = clipped_lines(tex_path.read_text(encoding="utf-8"))
    problems += [f"an output covers the last line of the text before it: ...{line}" for line in clipped]
    text = pdf_text(args.pdf)
    shown = prompts(text)
    problems += [f"a Jupyter prompt in the text, {where}" for where in shown]
    raw = raw_numbers(text)
    problems += _grouped(raw)
    log = log_path.read_text(encoding="utf-8", errors="replace")
    pages = overfull_pages(log)
    problems += [f"a page's content runs past the text by {points:.1f} pt {where} (a table or figure into the "
                 "footer: a longtable, narrower columns or a smaller picture)" for points, where in pages]
    executed = args.executed or args.pdf.parent.parent / "doctrees" / "nbsphinx"
    orphans = orphan_outputs(executed, args.full_code) if executed.is_dir() else []
    problems += [f"an output without its code (print it with words, tag the cell 'excerpt', or end the cell "
                 f"with ';'): {where}" for where in orphans]
    boxes = overfull(log)
    if len(boxes) > args.max_overfull:
        problems.append(f"{len(boxes)} overfull lines wider than the text by more than {TOLERANCE_PT:g} pt "
                        f"(at most {args.max_overfull}); the widest:")
        problems += [f"  {points:.1f} pt {where}" for points, where in boxes[:10]]
    for problem in problems:
        print(f"check-pdf: {problem}")
    print(f"check-pdf: {args.pdf}: {len(clipped)} covered lines, {len(shown)} prompts, {len(raw)} raw numbers or nan, "
          f"{len(orphans)} outputs without their code, {len(pages)} overfull pages, {len(boxes)} overfull lines "
          f"over {TOLERANCE_PT:g} pt (at most {args.max_overfull}): {'FAILED' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
