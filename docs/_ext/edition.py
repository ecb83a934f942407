"""The edition of the book on its title page: the ``edition`` directive.

``.. edition::`` with the flag ``:citation:`` writes a BibTeX entry for the book (author, title, version, year)
instead, for the title page's "How to cite".

``.. edition::`` writes one line, "Version 0.1.0, revision 2436f97, 2026-11-23": the version of the library
(Sphinx's ``version``), then the git revision and the date of the commit the book is built from, which conf.py
passes as ``edition_revision`` and ``edition_date`` (either may be empty outside a git checkout, and is then
left out).  Those two values do not invalidate Sphinx's environment, so a new commit does not make every
notebook run again: only the title page (``root_doc``), where the directive belongs, is read again when the
revision changed.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

__all__ = ["EditionDirective", "setup"]


class EditionDirective(SphinxDirective):
    """One paragraph: version, revision and date; with ``:citation:``, a BibTeX entry for the book instead."""

    option_spec = {"citation": directives.flag}

    def run(self) -> list[nodes.Node]:
        config = self.env.config
        if "citation" in self.options:
            year = (config.edition_date or config.copyright)[:4]
            entry = (
                "@misc{awale-mcts,\n"
                f"  author  = {{{{{config.author}}}}},\n"
                "  title   = {Playing {Awale} with {Monte Carlo} Tree Search},\n"
                "  note    = {A thesis written as Jupyter notebooks, and the Python library awale},\n"
                f"  version = {{{config.version}}},\n"
                f"  year    = {{{year}}}\n"
                "}"
            )
            block = nodes.literal_block(entry, entry, language="bibtex")
            return [block]
        parts = [f"Version {config.version}"]
        if config.edition_revision:
            parts.append(f"revision {config.edition_revision}")
        if config.edition_date:
            parts.append(config.edition_date)
        return [nodes.paragraph("", ", ".join(parts), classes=["edition"])]


def _outdated(app: Sphinx, env: BuildEnvironment, added, changed, removed) -> list[str]:
    """The title page, when the revision or its date changed since it was read."""
    if getattr(env, "edition_revision", None) == (app.config.edition_revision, app.config.edition_date):
        return []
    return [app.config.root_doc]


def _remember(app: Sphinx, env: BuildEnvironment) -> None:
    env.edition_revision = (app.config.edition_revision, app.config.edition_date)


def setup(app: Sphinx) -> dict:
    app.add_config_value("edition_revision", "", "")
    app.add_config_value("edition_date", "", "")
    app.add_directive("edition", EditionDirective)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-updated", _remember)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
