"""The game viewer: ``.. game-viewer::`` replays stored games on a board, in the browser.

Each game that :func:`awale.experiments.showcase.pick_games` picks from the experiment store becomes a section
with a board, buttons to go to the start, back one ply, play, step one ply, go to the end, and the list of its
moves (each a button that jumps to the position after it).  The positions are computed here, by the library,
and written into the page as JSON; ``docs/_static/game-viewer.js`` only draws them as SVG (with awale-board.js), so the page needs
nothing but its own files.  ``tools/check_viewer.py`` steps through the games in Chromium and compares every
board with the positions the library computes.

Options: ``:store:`` the store, relative to the project (default ``data/experiments.sqlite``).  The page is
read again whenever the store or the rules of the showcase change.  Only the store is read: no game is played during the build.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

SCRIPTS = ("awale-board.js", "game-viewer.js")  # the board drawing, shared with the page "Play in the browser"
STYLES = ("awale-board.css", "game-viewer.css")
_PLAYERS = ("South", "North")


class game_viewer_games(nodes.General, nodes.Element):
    """Marks a page that holds viewers, so that it gets the script and the style."""


def _data(game) -> str:
    """The positions and plies of a game as JSON for the script (safe inside a <script> element)."""
    from awale import Game
    from awale.experiments import rules_from_text

    rules = rules_from_text(game.rules_text)
    positions = [Game(rules)] + [ply.game for ply in game.plies]
    data = {
        "pits": rules.pits_per_side,
        "positions": [[*g.pits, *g.captures, g.current_player, int(g.game_finished)] for g in positions],
        "plies": [
            {"player": p.player, "pit": p.pit, "label": p.label, "took": p.captured,
             "captured": list(p.captured_pits), "slam": p.grand_slam}
            for p in game.plies
        ],
    }
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def _viewer(game) -> str:
    """The HTML of one viewer."""
    from awale.play.match import score_text

    attributes = " ".join(
        f'data-{key}="{html.escape(str(value))}"'
        for key, value in (("experiment", game.experiment), ("south", game.south), ("north", game.north),
                           ("seed", game.seed), ("rules", game.rules_text))
    )
    final = game.plies[-1] if game.plies else None
    result = f"{score_text(final.game.captures, final.game.winner)} ({final.ending})" if final and final.game.game_finished else ""
    moves = "".join(
        f'<li><button type="button" data-ply="{p.number}" title="ply {p.number}: {_PLAYERS[p.player]}">'
        f"{html.escape(p.label)}{f' ×{p.captured}' if p.captured else ''}</button></li>"
        for p in game.plies
    )
    buttons = "".join(
        f'<button type="button" data-action="{action}" title="{tip}">{text}</button>'
        for action, text, tip in (
            ("start", "« start", "the initial position"),
            ("back", "◀ back", "one ply back"),
            ("play", "▶ play", "play the game from here"),
            ("step", "step ▶", "one ply forward"),
            ("end", "end »", "the final position"),
        )
    )
    return (
        f'<div class="awale-viewer" {attributes} data-result="{html.escape(result)}">'
        '<div class="awale-viewer-board"></div>'
        '<p class="awale-viewer-status" aria-live="polite"></p>'
        f'<div class="awale-viewer-controls">{buttons}</div>'
        f'<ol class="awale-viewer-moves">{moves}</ol>'
        f'<script type="application/json" class="awale-viewer-data">{_data(game)}</script>'
        "</div>"
    )


class GameViewer(SphinxDirective):
    """``.. game-viewer::``: a section with a viewer for each game of the showcase found in the store."""

    has_content = False
    option_spec = {"store": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from awale.experiments import showcase
        from awale.experiments.showcase import pick_games
        from awale.play.match import score_text

        relative = self.options.get("store", "data/experiments.sqlite")
        store = Path(self.env.app.confdir) / relative
        self.env.note_dependency(str(store))
        self.env.note_dependency(showcase.__file__)  # the rules that pick the games
        if not store.is_file():
            return [nodes.paragraph(text=f"This copy of the thesis has no experiment store ({relative}), "
                                         "so it has no game to show.")]
        games = pick_games(store)
        if not games:
            return [nodes.paragraph(text=f"The experiment store ({relative}) holds none of these games yet.")]
        result: list[nodes.Node] = [game_viewer_games()]
        for index, game in enumerate(games, start=1):
            section = nodes.section(ids=[f"game-{index}"])
            section += nodes.title(text=game.pick.title)
            final = game.plies[-1]
            outcome = f"{score_text(final.game.captures, final.game.winner)} ({final.ending})" if final.game.game_finished else "unfinished"
            players = (f"{game.south} (South) against {game.north} (North), seed {game.seed} of the experiment "
                       f"{game.experiment}: {outcome}, after {len(game.plies)} plies.")
            section += nodes.paragraph(text=f"{game.pick.about} {players}" if game.pick.about else players)
            section += nodes.raw("", _viewer(game), format="html")
            result.append(section)
        return result


def _assets(app, pagename, templatename, context, doctree) -> None:
    """The viewer's script and style, on the pages that have viewers only."""
    if doctree is not None and any(True for _ in doctree.findall(game_viewer_games)):
        for script in SCRIPTS:
            app.add_js_file(script, loading_method="defer")
        for style in STYLES:
            app.add_css_file(style)


def _skip(self, node) -> None:
    raise nodes.SkipNode


def setup(app):
    app.add_node(game_viewer_games, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("game-viewer", GameViewer)
    app.connect("html-page-context", _assets)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
