"""Numbered, captioned figures made of a notebook cell's output: the ``output-figure`` directive.

nbsphinx turns a picture that a code cell displays (an SVG board, a matplotlib plot) into a bare image.  Put a
raw cell in reStructuredText format right after that code cell::

    .. output-figure::
       :name: fig-first-move

       South plays ``C``: its four seeds go to ``D``, ``E``, ``F`` and ``a``.

and the picture becomes a figure with that caption, numbered like every other figure ("Figure 2.1" in the
website and in the PDF) and referenced with ``:numref:`fig-first-move```.  The first paragraph of the content is
the caption; further paragraphs are a legend.  The picture is the last image displayed by the code cell just
above (outputs printed before it stay where they are); a raw cell that follows no such image is an error.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.transforms import Transform
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

__all__ = ["OutputFigureDirective", "AttachOutputFigures", "latex_to_text", "plain_text", "setup"]

logger = logging.getLogger(__name__)

_PENDING = "output-figure-pending"

# LaTeX in a caption's formulas, as the words and signs a screen reader says (an alt text is plain text).
_LATEX_SIGNS = {
    "varepsilon": "ε", "epsilon": "ε", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "Delta": "Δ",
    "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "chi": "χ", "pm": "±",
    "times": "×", "cdot": "·", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
    "approx": "≈", "infty": "∞", "ldots": "…", "dots": "…", "to": "→", "rightarrow": "→", "sqrt": "√",
    "log": "log", "ln": "ln", "max": "max", "min": "min", "sum": "Σ", "in": "∈",
}


def latex_to_text(latex: str) -> str:
    r"""A formula as plain text: ``\varepsilon = 0.1`` becomes ``ε = 0.1``, ``\sqrt{2}/2`` becomes ``√2/2``."""
    import re

    text = re.sub(r"\\(?:text|mathrm|mathit|mathbf|operatorname)\s*\{([^{}]*)\}", r"\1", latex)
    text = text.replace("\\{", "\x00").replace("\\}", "\x01")  # braces of a set, shown
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _LATEX_SIGNS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = text.replace("{", "").replace("}", "").replace("\\", "").replace("$", "")
    text = text.replace("\x00", "{").replace("\x01", "}")
    return re.sub(r"\s+", " ", text).strip()


def plain_text(node: nodes.Node) -> str:
    """A node's text with its formulas written as plain text (for an image's alt text)."""
    parts = []
    for child in node.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(child, nodes.math):
            parts.append(latex_to_text(child.astext()))
        elif not any(isinstance(parent, nodes.math) for parent in _ancestors(child)):
            parts.append(str(child))
    return "".join(parts)


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


class OutputFigureDirective(SphinxDirective):
    """A figure whose image is the picture the previous code cell displayed."""

    has_content = True
    option_spec = {
        "name": directives.unchanged,
        "alt": directives.unchanged,
        "width": directives.length_or_percentage_or_unitless,
        "align": lambda value: directives.choice(value, ("left", "center", "right")),
        "figclass": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        if not self.content:
            raise self.error("output-figure needs a caption as its content")
        figure = nodes.figure(classes=["output-figure", *self.options.get("figclass", [])])
        figure["align"] = self.options.get("align", "center")
        figure[_PENDING] = {key: self.options[key] for key in ("alt", "width") if key in self.options}
        self.set_source_info(figure)
        body = nodes.Element()
        self.state.nested_parse(self.content, self.content_offset, body)
        first = body[0] if len(body) else None
        if not isinstance(first, nodes.paragraph):
            raise self.error("the first block of an output-figure must be a paragraph: the caption")
        caption = nodes.caption(first.rawsource, "", *first.children)
        caption.source, caption.line = first.source, first.line
        figure += caption
        if len(body) > 1:
            figure += nodes.legend("", *body[1:])
        self.add_name(figure)
        return [figure]


def _is_output(node: nodes.Node) -> bool:
    return isinstance(node, nodes.container) and "nboutput" in node["classes"]


def _has_image(node: nodes.Node) -> bool:
    return next(iter(node.findall(nodes.image)), None) is not None


def _cell_outputs(figure: nodes.figure) -> list[nodes.Node]:
    """The outputs of the code cell just before ``figure``, latest first, each an ``nboutput`` container or an
    ``only`` node holding one (nbsphinx's way of showing different formats to HTML and LaTeX)."""
    parent = figure.parent
    found = []
    for sibling in reversed(parent.children[: parent.index(figure)]):
        if isinstance(sibling, (nodes.comment, nodes.target)):
            continue
        if _is_output(sibling) or (isinstance(sibling, addnodes.only) and any(_is_output(c) for c in sibling.children)):
            found.append(sibling)
            continue
        break
    return found


class AttachOutputFigures(Transform):
    """Move the picture of the code cell above each ``output-figure`` into that figure."""

    default_priority = 700  # after nbsphinx's own transforms, before Sphinx collects figures and images

    def apply(self) -> None:
        for figure in list(self.document.findall(nodes.figure)):
            options = figure.attributes.pop(_PENDING, None)
            if options is None:
                continue
            outputs = [output for output in _cell_outputs(figure) if _has_image(output)]
            if not outputs:
                logger.warning(
                    "output-figure: the code cell just before it displays no picture",
                    location=figure,
                    type="output_figure",
                )
                figure.parent.remove(figure)
                continue
            # The latest picture; when nbsphinx gave it as a pair of "only" nodes (HTML, LaTeX), take both.
            taken = outputs[:1]
            if isinstance(outputs[0], addnodes.only) and len(outputs) > 1 and isinstance(outputs[1], addnodes.only):
                taken = outputs[:2]
            pictures = []
            for output in reversed(taken):
                image = list(output.findall(nodes.image))[-1]
                image.parent.remove(image)
                image["classes"] = [c for c in image["classes"] if c != "no-scaled-link"]
                for key, value in options.items():
                    image[key] = value
                if "alt" not in options:
                    image["alt"] = plain_text(figure.next_node(nodes.caption))
                if isinstance(output, addnodes.only):
                    image = addnodes.only("", image, expr=output["expr"])
                pictures.append(image)
            for position, picture in enumerate(pictures):
                figure.insert(position, picture)
            # The figure takes the place of the output; an output left with no content goes.
            parent = figure.parent
            parent.remove(figure)
            parent.insert(parent.index(taken[-1]), figure)
            for output in taken:
                if _is_empty(output):
                    parent.remove(output)


def _in_prompt(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.Element) and "prompt" in node["classes"]:
            return True
        node = node.parent
    return False


def _is_empty(output: nodes.Node) -> bool:
    """Whether an output shows nothing but its prompt."""
    if _has_image(output):
        return False
    return not "".join(text.astext() for text in output.findall(nodes.Text) if not _in_prompt(text)).strip()


def setup(app: Sphinx) -> dict:
    app.add_directive("output-figure", OutputFigureDirective)
    app.add_transform(AttachOutputFigures)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
