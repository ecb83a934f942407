"""The page "Play in the browser": ``.. play-online::`` (the board to play on) and ``.. play-strength::`` (how strong
its strongest opponent is).

``.. play-online::`` writes the HTML that ``docs/_static/play-online.js`` brings to life: the board, the choice of
opponent and side, new game, undo, the opponent's thinking, the move list, the game file to copy and a field to
paste one.  The rules and the opponents are ``awale-engine.js`` and ``awale-agents.js``, the board
``awale-board.js`` (shared with the game viewer); the page needs nothing but its own files.  ``tools/check_play.py``
checks the engine against the library and plays the page in Chromium.

``.. play-strength::`` reads the games of ``tools/play_strength.py`` (option ``:file:``, default
``data/play-online-strength.csv``) and makes a table: for each library agent, the games played, the page agent's
wins, draws and losses, its score with a 95 % Wilson interval (``awale.experiments.stats.compare``) and both
sides' time per move.  ``.. play-speed::`` reads the timing of every opponent by ``tools/play_speed.js`` (option
``:file:``, default ``data/play-online-speed.csv``).  No game is played during the build.
"""

from __future__ import annotations

import csv
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

SCRIPTS = ("awale-engine.js", "awale-agents.js", "awale-board.js", "play-online.js")
STYLES = ("awale-board.css", "play-online.css")
DEFAULT_DATA = "data/play-online-strength.csv"
SPEED_DATA = "data/play-online-speed.csv"


class play_online_board(nodes.General, nodes.Element):
    """Marks a page that holds the board, so that it gets the scripts and the style."""


_HTML = """\
<div class="awale-play">
<div class="awale-play-controls">
<label>Opponent <select class="awale-play-opponent"></select></label>
<label>You play <select class="awale-play-side"><option value="0" selected>South (you move first)</option>\
<option value="1">North</option></select></label>
<button type="button" data-action="new">new game</button>
<button type="button" data-action="undo" title="take back your last move and the reply to it">undo</button>
<label class="awale-play-check"><input type="checkbox" class="awale-play-thinking"> show its thinking</label>
</div>
<div class="awale-play-board"></div>
<p class="awale-play-status" aria-live="polite">The board needs JavaScript, which is off in this browser.</p>
<p class="awale-play-thought" hidden></p>
<div class="awale-play-watch" hidden>
<button type="button" data-action="start">« start</button>
<button type="button" data-action="back">◀ back</button>
<button type="button" data-action="step">step ▶</button>
<button type="button" data-action="end">end »</button>
<button type="button" data-action="new">leave, and play a new game</button>
</div>
<ol class="awale-play-moves"></ol>
<details class="awale-play-file">
<summary>The game file</summary>
<p>The game so far, as <code>python -m awale play --save FILE</code> writes it: save it as a file and
<code>python -m awale replay FILE</code> shows it again.</p>
<textarea class="awale-play-out" readonly rows="9" aria-label="the game file"></textarea>
<p><button type="button" data-action="copy">copy</button> <span class="awale-play-copied"></span></p>
</details>
<details class="awale-play-paste">
<summary>Watch a game file</summary>
<p>Paste a game file (of this page, or of <code>python -m awale play --save</code>) and watch it move by move.</p>
<textarea class="awale-play-in" rows="9" aria-label="a game file to watch"></textarea>
<p><button type="button" data-action="watch">watch</button></p>
<p class="awale-play-error" role="alert"></p>
</details>
</div>
"""


class PlayOnline(SphinxDirective):
    """``.. play-online::``: the board to play on."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        for script in SCRIPTS:  # the page is written again when its scripts change
            self.env.note_dependency(str(Path(self.env.app.confdir) / "docs" / "_static" / script))
        return [play_online_board(), nodes.raw("", _HTML, format="html")]


def _moves(game: dict, who: str) -> int:
    """The moves ``who`` ("browser" or "opponent") chose in a game of the CSV: every other ply after the two
    random opening plies, South's first."""
    chosen = int(game["plies"]) - 2
    south = (chosen + 1) // 2
    return south if (game["browser_side"] == "South") == (who == "browser") else chosen - south


def strength_rows(path: Path) -> list[dict]:
    """One summary per pairing of the CSV of tools/play_strength.py, in the order of the file."""
    from awale.experiments.stats import compare

    with open(path, newline="", encoding="utf-8") as file:
        games = list(csv.DictReader(file))
    pairings: dict[tuple[str, str], list[dict]] = {}
    for game in games:
        pairings.setdefault((game["browser"], game["opponent"]), []).append(game)
    rows = []
    for (browser, opponent), played in pairings.items():
        points = [float(game["browser_score"]) for game in played]
        wins, draws = points.count(1.0), points.count(0.5)
        losses = len(points) - wins - draws
        result = compare(wins, draws, losses)
        mean = {who: sum(float(game[f"{who}_seconds_mean"]) * _moves(game, who) for game in played)
                / max(1, sum(_moves(game, who) for game in played)) for who in ("browser", "opponent")}
        longest = {who: max(float(g[f"{who}_seconds_max"]) for g in played) for who in ("browser", "opponent")}
        rows.append({"browser": browser, "opponent": opponent, "games": len(played), "wins": wins, "draws": draws,
                     "losses": losses, "score": result.score, "low": result.low, "high": result.high,
                     "browser_mean": mean["browser"], "browser_max": longest["browser"],
                     "opponent_mean": mean["opponent"], "opponent_max": longest["opponent"]})
    return rows


def _table(header: tuple[str, ...], body: list[tuple[str, ...]], css: str,
           widths: tuple[int, ...]) -> nodes.table:
    """A docutils table of strings, the header in bold; ``widths``, the columns' shares of the line (the PDF's
    tables otherwise squeeze the column of agents' names to a word a line)."""
    table = nodes.table(classes=[css, "colwidths-given"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head, rows = nodes.thead(), nodes.tbody()
    for cells, parent in [(header, head), *((cells, rows) for cells in body)]:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=cell)
            row += entry
        parent += row
    group += head
    group += rows
    return table


class PlaySpeed(SphinxDirective):
    """``.. play-speed::``: the time each opponent of the page takes a move (tools/play_speed.js)."""

    has_content = False
    option_spec = {"file": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        relative = self.options.get("file", SPEED_DATA)
        path = Path(self.env.app.confdir) / relative
        self.env.note_dependency(str(path))
        if not path.is_file():
            return [nodes.paragraph(text=f"This copy of the thesis has no timing of the page's opponents ({relative}): "
                                         "node tools/play_speed.js makes it.")]
        with open(path, newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
        header = ("opponent", "positions", "processor s a move: mean (longest)", "wall-clock s: mean (longest)")
        body = [(row["opponent"], row["positions"],
                 f"{float(row['cpu_seconds_mean']):.3f} ({float(row['cpu_seconds_max']):.3f})",
                 f"{float(row['wall_seconds_mean']):.3f} ({float(row['wall_seconds_max']):.3f})") for row in rows]
        return [_table(header, body, "awale-play-speed", (34, 12, 27, 27))]


class PlayStrength(SphinxDirective):
    """``.. play-strength::``: the table of the page's strongest opponent against the library's agents."""

    has_content = False
    option_spec = {"file": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        relative = self.options.get("file", DEFAULT_DATA)
        path = Path(self.env.app.confdir) / relative
        self.env.note_dependency(str(path))
        if not path.is_file():
            return [nodes.paragraph(text=f"This copy of the thesis has no measurement of the page's opponents "
                                         f"({relative}): tools/play_strength.py makes it.")]
        rows = strength_rows(path)
        agents = ", ".join(dict.fromkeys(row["browser"] for row in rows))
        header = ("against", "games", "won-drawn-lost", "score [95 % interval]", "s a move: page (longest)",
                  "library (longest)")
        body = [
            (row["opponent"], f"{row['games']}", f"{row['wins']}-{row['draws']}-{row['losses']}",
             f"{100 * row['score']:.1f} % [{100 * row['low']:.1f}, {100 * row['high']:.1f}]",
             f"{row['browser_mean']:.2f} ({row['browser_max']:.2f})",
             f"{row['opponent_mean']:.2f} ({row['opponent_max']:.2f})")
            for row in rows
        ]
        intro = nodes.paragraph(text=f"The page's agent: {agents}; its results, from {relative}:")
        return [intro, _table(header, body, "awale-play-strength", (24, 9, 15, 20, 16, 16))]


def _assets(app, pagename, templatename, context, doctree) -> None:
    """The scripts and styles, on the page with the board only (in this order: engine, agents, board, page)."""
    if doctree is not None and any(True for _ in doctree.findall(play_online_board)):
        for script in SCRIPTS:
            app.add_js_file(script, loading_method="defer")
        for style in STYLES:
            app.add_css_file(style)


def _skip(self, node) -> None:
    raise nodes.SkipNode


def setup(app):
    app.add_node(play_online_board, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("play-online", PlayOnline)
    app.add_directive("play-strength", PlayStrength)
    app.add_directive("play-speed", PlaySpeed)
    app.connect("html-page-context", _assets)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
