"""Numbered pseudocode: the ``algorithm`` directive.

An algorithm is a captioned block of pseudocode, numbered like figures ("Algorithm 2.1", per chapter) and
referenced with ``:numref:``.  In HTML it is a ``div.algorithm`` with its caption above the code; in LaTeX a
non-floating ``algorithm`` float (the ``float`` package's ``ruled`` style, placement ``H``), so the PDF numbers
it the same way and ``\\ref`` resolves to it.  Usage::

    .. algorithm:: UCT: one iteration of the search
       :name: alg-uct
       :linenos:

       function UCT-ITERATION(root)
           node ← root
           while node is fully expanded and not terminal do
               node ← the child maximising the UCB1 value   ▷ selection
           ...

The pseudocode is highlighted by a small lexer (keywords, calls, ``▷`` and ``//`` comments); write it with
Unicode symbols (``←``, ``≤``, ``∞``, ``√``), which both the website and the PDF's fonts carry.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util.docutils import SphinxDirective

__all__ = ["algorithm", "AlgorithmDirective", "PseudocodeLexer", "setup"]


class algorithm(nodes.General, nodes.Element):  # noqa: N801 - docutils node classes are lower case
    """A numbered, captioned block of pseudocode: a ``caption`` then a ``literal_block``."""


class PseudocodeLexer(RegexLexer):
    """Keywords, comments, numbers and calls of textbook pseudocode."""

    name = "Pseudocode"
    aliases = ["pseudocode"]
    filenames: list[str] = []

    tokens = {
        "root": [
            (r"[ \t]+", Whitespace),
            (r"\n", Text),
            (r"(▷|//).*?$", Comment.Single),
            (
                words(
                    (
                        "function", "procedure", "algorithm", "input", "output", "require", "ensure",
                        "if", "then", "else", "elif", "for", "each", "all", "in", "to", "downto", "do",
                        "while", "repeat", "until", "loop", "return", "yield", "break", "continue",
                        "end", "and", "or", "not", "let", "with", "of",
                    ),
                    suffix=r"\b",
                ),
                Keyword,
            ),
            (words(("true", "false", "nil", "none", "null"), suffix=r"\b"), Keyword.Constant),
            (r"([A-Za-z_][\w-]*\w|[A-Za-z_])(\()", bygroups(Name.Function, Punctuation)),
            (r"\d+(\.\d+)?", Number),
            (r'"[^"\n]*"', String),
            (r"[←→↑↓≤≥≠=<>+\-*/×÷√∞∑∏∈∉∪∩⊂⊆|]", Operator),
            (r"[()\[\]{},.:;]", Punctuation),
            (r"[^\W\d][\w'′]*", Name),
            (r".", Text),
        ]
    }


class AlgorithmDirective(SphinxDirective):
    """``.. algorithm:: caption`` with the pseudocode as content; ``:name:`` makes it a ``:numref:`` target."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {
        "name": directives.unchanged,
        "class": directives.class_option,
        "linenos": directives.flag,
        "lineno-start": directives.nonnegative_int,
    }

    def run(self) -> list[nodes.Node]:
        if not self.content:
            raise self.error("an algorithm needs its pseudocode as the directive's content")
        code = "\n".join(self.content)
        literal = nodes.literal_block(code, code, language="pseudocode")
        literal["classes"].append("algorithm-body")
        if "linenos" in self.options or "lineno-start" in self.options:
            literal["linenos"] = True
            literal["highlight_args"] = {"linenostart": self.options.get("lineno-start", 1)}
        self.set_source_info(literal)

        caption_nodes, messages = self.parse_inline(self.arguments[0], lineno=self.lineno)
        caption = nodes.caption(self.arguments[0], "", *caption_nodes)
        self.set_source_info(caption)

        node = algorithm("", caption, literal, classes=["algorithm", *self.options.get("class", [])])
        self.set_source_info(node)
        self.add_name(node)
        return [node, *messages]


# -- HTML: <div class="algorithm"><p class="caption">Algorithm 2.1 …</p><div class="highlight">… -------------


def visit_algorithm_html(self, node: algorithm) -> None:
    self.body.append(self.starttag(node, "div"))


def depart_algorithm_html(self, node: algorithm) -> None:
    self.body.append("</div>\n")


# -- LaTeX: \begin{algorithm}[H] \caption{…}\label{…} \begin{sphinxVerbatim} … \end{algorithm} -----------


def visit_algorithm_latex(self, node: algorithm) -> None:
    caption = next((child for child in node.children if isinstance(child, nodes.caption)), None)
    # Inside the float (a group), the pseudocode goes without the shaded box of code cells.
    self.body.append("\n\\begin{algorithm}[H]\n\\sphinxsetup{VerbatimColor={named}{white},"
                     "VerbatimBorderColor={named}{white}}\n")
    if caption is not None:
        self.in_caption += 1
        self.pushbody([])
        for child in caption.children:
            child.walkabout(self)
        text = "".join(self.popbody())
        self.in_caption -= 1
        self.body.append("\\caption{%s}" % text)
    # The labels follow the caption, whose \refstepcounter gives \ref the algorithm's number.
    self.body.append(self.hypertarget_to(node) + "\n")
    for child in node.children:
        if child is not caption:
            child.walkabout(self)
    self.body.append("\\end{algorithm}\n")
    raise nodes.SkipNode


LATEX_PREAMBLE = r"""
% Algorithms (docs/_ext/algorithm.py): a ruled float placed where it is written, numbered per chapter.
\floatstyle{ruled}
\makeatletter
\@ifundefined{c@chapter}{\newfloat{algorithm}{H}{loa}}{\newfloat{algorithm}{H}{loa}[chapter]}
\makeatother
\floatname{algorithm}{@NAME@}
\floatstyle{plain}
"""


# -- Plain-text builders: the caption then the code --------------------------------------------------------


def visit_algorithm_passthrough(self, node: algorithm) -> None:
    pass


def depart_algorithm_passthrough(self, node: algorithm) -> None:
    pass


def _configure(app: Sphinx, config: Config) -> None:
    config.numfig_format.setdefault("algorithm", "Algorithm %s")
    name = config.numfig_format["algorithm"].split("%s")[0].strip() or "Algorithm"
    elements = dict(config.latex_elements)
    elements["preamble"] = elements.get("preamble", "") + LATEX_PREAMBLE.replace("@NAME@", name)
    config.latex_elements = elements


def setup(app: Sphinx) -> dict:
    app.add_lexer("pseudocode", PseudocodeLexer)
    app.add_directive("algorithm", AlgorithmDirective)
    passthrough = (visit_algorithm_passthrough, depart_algorithm_passthrough)
    app.add_enumerable_node(
        algorithm,
        "algorithm",
        html=(visit_algorithm_html, depart_algorithm_html),
        latex=(visit_algorithm_latex, depart_algorithm_passthrough),
        text=passthrough,
        man=passthrough,
        texinfo=passthrough,
    )
    app.connect("config-inited", _configure, priority=900)  # after Sphinx fills in numfig_format (800)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
