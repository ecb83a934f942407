"""Check the typesetting of the thesis's PDF (`make check-pdf`, run by `make pdf` after LaTeX).

It fails on:

- a paragraph whose last line an output covers: nbsphinx pulls an output up by a line to join its box to the box
  of the code cell above it; an output whose code cell the PDF leaves out must keep its place (conf.py).  In the
  LaTeX source, every output so pulled up must follow a box (a code cell, or another output), not text;
- a Jupyter prompt (``[12]:``) anywhere in the PDF's text (``pdftotext`` of poppler-utils);
- more than MAX_OVERFULL overfull lines wider than the text by more than TOLERANCE_PT points (LaTeX's log).

Usage: python tools/check_pdf.py _build/latex/awale-mcts.pdf   (the .tex and .log beside it are read too)
"""

from __future__ import annotations

import argparse
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

__all__ = ["clipped_lines", "prompts", "overfull", "main"]


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


def prompts(pdf: Path) -> list[str]:
    """Jupyter prompts in the PDF's text, with their page numbers."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    found = []
    for number, page in enumerate(text.split("\f"), start=1):
        found += [f"page {number}: {line.strip()[:60]!r}" for line in page.splitlines() if _PROMPT.match(line)]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", type=Path, help="the PDF, beside its .tex and .log, e.g. _build/latex/awale-mcts.pdf")
    parser.add_argument("--max-overfull", type=int, default=MAX_OVERFULL, help=f"default {MAX_OVERFULL}")
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
    shown = prompts(args.pdf)
    problems += [f"a Jupyter prompt in the text, {where}" for where in shown]
    boxes = overfull(log_path.read_text(encoding="utf-8", errors="replace"))
    if len(boxes) > args.max_overfull:
        problems.append(f"{len(boxes)} overfull lines wider than the text by more than {TOLERANCE_PT:g} pt "
                        f"(at most {args.max_overfull}); the widest:")
        problems += [f"  {points:.1f} pt {where}" for points, where in boxes[:10]]
    for problem in problems:
        print(f"check-pdf: {problem}")
    print(f"check-pdf: {args.pdf}: {len(clipped)} covered lines, {len(shown)} prompts, {len(boxes)} overfull lines "
          f"over {TOLERANCE_PT:g} pt (at most {args.max_overfull}): {'FAILED' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
