"""The browser half of tools/check_play.py: the page "Play in the browser" opened from disk in headless Chromium.

:func:`check_page` opens the built page by its file:// address with the network off (a request for anything
but a file fails the check, as does a console error or an uncaught exception), then

1. runs tools/play_trace.js inside the page, on the engine the page loaded, and compares its games and αβ values
   with the library (:func:`check_play.compare`);
2. plays the page as a reader: against every opponent of the menu, on either side, it clicks random legal pits
   and after each reply compares the board shown (seeds, captures, the pits offered to the reader) with the
   position the library reaches by the same moves, and times the reply; it takes moves back with undo, turns the
   thinking on (one note per legal move of the opponent), starts new games;
3. plays a game to its end and checks that the game file the page offers is the one
   ``awale.core.gamefile.save_game`` writes for those moves, byte for byte;
4. pastes game files into "Watch a game file": one of other rules written by the library, stepped through to
   its end with every board compared, and malformed ones (not JSON, not a game file, an illegal move, bad
   rules), each of which must give a message and change nothing;
5. opens the page at 390 px, a phone's width (:func:`check_thumbs`), while playing and while watching a game: every
   target a finger taps (buttons, menus, the box of the thinking with its label, the pits to play, the folds)
   must be at least 44 px both ways with 8 px or more between two of them, every text at least 12 px (in the
   board, its size in the SVG's units times the board's scale), and each opponent's name must fit the menu.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

from awale import Game, Rules
from awale.core.gamefile import save_game
from awale.core.record import replay
from check_play import CHUNK, PAGE, TRACE, Report, compare

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--no-proxy-server",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]

# A reply may take this long at most.  The page's opponents are sized for a second on a laptop; the check runs on
# machines shared with other work (CI, the development machine), so it fails only on a reply far slower than that.
SLOWEST = 3.0

_SHOWN = """root => {
    const svg = root.querySelector('svg.awale-board');
    const number = node => Number(node.textContent);
    return {
        moves: root.dataset.moves, mode: root.dataset.mode, ply: Number(root.dataset.ply),
        pits: [...svg.querySelectorAll('[data-pit]')].sort((a, b) => a.dataset.pit - b.dataset.pit).map(number),
        captures: [...svg.querySelectorAll('[data-store]')].sort((a, b) => a.dataset.store - b.dataset.store)
                  .map(number),
        playable: [...svg.querySelectorAll('.legal')].map(g => Number(g.dataset.action)).sort(),
        notes: svg.querySelectorAll('[data-note]').length,
        status: root.querySelector('.awale-play-status').textContent,
        error: root.querySelector('.awale-play-error').textContent,
    };
}"""

_MALFORMED = {
    "not JSON": "this is not a game",
    "JSON, not a game file": '{"moves": "012"}',
    "an illegal move": json.dumps({"format": "awale-game/1", "south": "human", "north": "x", "rules": {},
                                   "moves": "000"}),
    "bad rules": json.dumps({"format": "awale-game/1", "south": "human", "north": "x",
                             "rules": {"pits_per_side": 9}, "moves": ""}),
    "moves that are not digits": json.dumps({"format": "awale-game/1", "south": "a", "north": "b", "rules": {},
                                             "moves": "2x"}),
}


def _position_text(game: Game) -> str:
    return f"{list(game.pits)} captures {list(game.captures)}"


class _Reader:
    """Plays the page as a reader and checks what it shows against the library."""

    def __init__(self, page, report: Report) -> None:
        self.page = page
        self.root = page.query_selector(".awale-play")
        self.report = report
        self.times: dict[str, float] = {}

    def shown(self) -> dict:
        return self.root.evaluate(_SHOWN)

    def wait(self) -> None:
        self.page.wait_for_function("() => document.querySelector('.awale-play').dataset.busy === '0'",
                                    timeout=60_000)

    def expect(self, where: str, rules: Rules = Rules(), watch_ply: int | None = None) -> Game | None:
        """Compare the board shown with the library's position after the page's moves; return that position."""
        shown = self.shown()
        moves = [int(c) for c in shown["moves"]]
        try:
            plies = replay(moves, rules)
        except ValueError as error:
            self.report.problems.append(f"page, {where}: the page's moves {shown['moves']} are not legal ({error})")
            return None
        positions = [Game(rules)] + [ply.game for ply in plies]
        game = positions[watch_ply if watch_ply is not None else len(moves)]
        if shown["pits"] != list(game.pits) or shown["captures"] != list(game.captures):
            self.report.problems.append(f"page, {where}: the board shows {shown['pits']} captures "
                                        f"{shown['captures']}, the library has {_position_text(game)}")
        return game

    def new_game(self, spec: str, side: int) -> None:
        self.page.select_option(".awale-play-opponent", spec)
        self.page.select_option(".awale-play-side", str(side))
        self.page.click('.awale-play-controls [data-action="new"]')
        started = time.perf_counter()
        self.wait()
        if side == 1:
            self.times[spec] = max(self.times.get(spec, 0.0), time.perf_counter() - started)

    def human_moves(self, spec: str, side: int, count: int, rng: np.random.Generator, thinking: bool) -> Game | None:
        """Play ``count`` of the reader's moves (fewer if the game ends), checking every board."""
        game = self.expect(f"{spec}, start")
        for _ in range(count):
            if game is None or game.game_finished:
                return game
            shown = self.shown()
            if game.current_player != side:
                self.report.problems.append(f"page, {spec}: {shown['moves']}: not the reader's turn after the reply")
                return None
            if shown["playable"] != sorted(game.legal_actions):
                self.report.problems.append(f"page, {spec}: after {shown['moves']}, the pits offered "
                                            f"{shown['playable']} are not the legal moves {game.legal_actions}")
                return None
            action = int(game.legal_actions[rng.integers(len(game.legal_actions))])
            self.page.click(f'.awale-play svg .legal[data-action="{action}"]')
            started = time.perf_counter()
            self.wait()
            self.times[spec] = max(self.times.get(spec, 0.0), time.perf_counter() - started)
            game = self.expect(f"{spec}, after {self.shown()['moves']}")
            if game is not None and thinking and not game.game_finished:
                before = Game(game.rules)
                for move in [int(c) for c in self.shown()["moves"]][:-1]:
                    before, _, _ = before.step(move)
                notes = self.shown()["notes"]
                if spec != "browser-random" and notes != len(before.legal_actions):
                    self.report.problems.append(f"page, {spec}: {notes} notes of its thinking for "
                                                f"{len(before.legal_actions)} legal moves")
        return game

    def play_everyone(self, rng: np.random.Generator) -> None:
        specs = self.page.evaluate("() => AwaleAgents.OPPONENTS.map(o => o.spec)")
        for index, spec in enumerate(specs):
            side = index % 2
            thinking = index % 3 != 2
            if self.page.is_checked(".awale-play-thinking") != thinking:
                self.page.click(".awale-play-thinking")
            self.new_game(spec, side)
            self.human_moves(spec, side, 4, rng, thinking)
            before = self.shown()["moves"]
            self.page.click('.awale-play-controls [data-action="undo"]')
            self.wait()
            after = self.shown()["moves"]
            game = self.expect(f"{spec}, undo")
            if game is not None and len(before) > 1 and not (len(after) < len(before) and before.startswith(after)
                                                             and game.current_player == side):
                self.report.problems.append(f"page, {spec}: undo went from {before} to {after}")
            self.human_moves(spec, side, 2, rng, thinking)

    def whole_game(self, rng: np.random.Generator) -> None:
        """A game to its end against greedy; the game file must be save_game's."""
        spec = "browser-greedy"
        self.new_game(spec, 0)
        game = self.human_moves(spec, 0, 400, rng, False)
        if game is None:
            return
        if not game.game_finished:
            self.report.problems.append("page: a game of 400 of the reader's moves did not end")
            return
        moves = [int(c) for c in self.shown()["moves"]]
        offered = self.page.input_value(".awale-play-out")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "game.json"
            save_game(path, "human", spec, Rules(), moves)
            expected = path.read_text(encoding="utf-8")
        if offered != expected:
            self.report.problems.append(f"page: the game file offered is not save_game's:\n{offered}\n{expected}")
        if "The game is over" not in self.shown()["status"]:
            self.report.problems.append(f"page: the end of the game is not said: {self.shown()['status']!r}")

    def watch(self) -> None:
        """Paste a file of the library's, step through it; paste malformed ones."""
        rules = Rules.simplified(pits_per_side=5, seeds_per_pit=3)
        rng = np.random.default_rng(5)
        game, moves = Game(rules), []
        while not game.game_finished:
            action = int(game.legal_actions[rng.integers(len(game.legal_actions))])
            game, _, _ = game.step(action)
            moves.append(action)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "game.json"
            save_game(path, "minimax(depth=2)", "human", rules, moves)
            text = path.read_text(encoding="utf-8")
        self.page.click(".awale-play-paste summary")
        self.page.fill(".awale-play-in", text)
        self.page.click('.awale-play-paste [data-action="watch"]')
        if self.shown()["mode"] != "watch" or self.shown()["error"]:
            self.report.problems.append(f"page: a game file of the library is not watched: {self.shown()['error']}")
            return
        for ply in range(len(moves) + 1):
            self.expect(f"watching ply {ply}", rules, ply)
            if self.shown()["ply"] != ply:
                self.report.problems.append(f"page: watching shows ply {self.shown()['ply']}, not {ply}")
                return
            self.page.click('.awale-play-watch [data-action="step"]')
        self.page.click('.awale-play-watch [data-action="start"]')
        self.expect("watching, back at the start", rules, 0)
        self.page.click('.awale-play-watch [data-action="new"]')
        self.wait()
        for name, bad in _MALFORMED.items():
            before = self.shown()
            self.page.fill(".awale-play-in", bad)
            self.page.click('.awale-play-paste [data-action="watch"]')
            after = self.shown()
            if not after["error"] or after["mode"] != before["mode"] or after["moves"] != before["moves"]:
                self.report.problems.append(f"page: a pasted file with {name} gave no message "
                                            f"({after['error']!r}) or changed the game")


TARGET = 44  # px: the smallest target a finger taps (WCAG 2.5.5, Apple's and Google's guidelines)
TARGET_GAP = 8  # px between two targets
SMALLEST_TEXT = 12  # px

_THUMBS = """([target, gap, smallest]) => {
    const root = document.querySelector('.awale-play'), problems = [];
    const folded = e => { const d = e.closest('details'); return d && !d.open && !e.closest('summary'); };
    const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && !folded(e)
                           && getComputedStyle(e).visibility !== 'hidden' && !e.closest('[hidden]'); };
    const name = e => (e.getAttribute('aria-label') || e.textContent || e.className.baseVal || e.className || e.tagName)
                      .toString().replace(/\\s+/g, ' ').trim().slice(0, 40);
    // The targets: a checkbox is tapped through its label, which holds it.
    const targets = [...root.querySelectorAll('button, select, summary, textarea, svg .legal, label.awale-play-check')]
        .filter(visible);
    const boxes = targets.map(e => [e, e.getBoundingClientRect()]);
    for (const [e, r] of boxes) {
        if (r.width < target - 0.5 || r.height < target - 0.5)
            problems.push(`the target "${name(e)}" is ${r.width.toFixed(0)}×${r.height.toFixed(0)} px`);
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, p] = boxes[i], [b, q] = boxes[j];
        if (a.contains(b) || b.contains(a)) continue;
        const apart = Math.max(q.left - p.right, p.left - q.right, q.top - p.bottom, p.top - q.bottom);
        if (apart < gap - 0.5)
            problems.push(`the targets "${name(a)}" and "${name(b)}" are ${apart.toFixed(0)} px apart`);
    }
    // Every text: HTML at its computed size; SVG at its size times the board's scale.
    for (const e of root.querySelectorAll('*')) {
        if (!visible(e) || ![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
        let size = parseFloat(getComputedStyle(e).fontSize);
        const svg = e.closest('svg');
        if (svg) size *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        if (size < smallest - 0.05) problems.push(`the text "${name(e)}" is ${size.toFixed(1)} px`);
    }
    // Each opponent's name fits its menu (the arrow of the menu takes about 24 px).
    const menu = root.querySelector('.awale-play-opponent'), style = getComputedStyle(menu);
    const canvas = document.createElement('canvas').getContext('2d');
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
    for (const option of menu.options) {
        const width = canvas.measureText(option.textContent).width;
        if (width > room) problems.push(`the opponent "${option.textContent}" is cut in its menu (${width.toFixed(0)} px of text, ${room.toFixed(0)} px of room)`);
    }
    return problems;
}"""


def check_thumbs(browser, path: Path, report: Report) -> None:
    """The page at 390 px (a phone), playing with the thinking shown, then watching a game: targets and text."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block",
                                  has_touch=True, is_mobile=True, device_scale_factor=2)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        ("file:", "data:", "blob:", "about:")) else route.abort("internetdisconnected"))
    page = context.new_page()
    page.goto(path.as_uri(), wait_until="load")
    idle = "() => document.querySelector('.awale-play').dataset.busy === '0'"
    page.wait_for_function(idle, timeout=60_000)
    page.select_option(".awale-play-opponent", "browser-greedy")
    page.click(".awale-play-thinking")
    page.click('.awale-play-controls [data-action="new"]')
    page.wait_for_function(idle, timeout=60_000)
    page.click(".awale-play svg .legal")
    page.wait_for_function(idle, timeout=60_000)
    page.evaluate("() => document.querySelectorAll('.awale-play details').forEach(d => { d.open = true; })")
    found = [f"playing: {problem}" for problem in page.evaluate(_THUMBS, [TARGET, TARGET_GAP, SMALLEST_TEXT])]
    if not page.query_selector_all(".awale-play svg [data-note]"):
        found.append("playing: the thinking shows no note by the opponent's pits")
    page.fill(".awale-play-in", page.input_value(".awale-play-out"))
    page.click('.awale-play-paste [data-action="watch"]')
    found += [f"watching: {problem}" for problem in page.evaluate(_THUMBS, [TARGET, TARGET_GAP, SMALLEST_TEXT])]
    report.problems += [f"page at 390 px, {problem}" for problem in dict.fromkeys(found)]
    print(f"the page at 390 px: {len(found)} targets or texts below {TARGET} px, {TARGET_GAP} px apart, "
          f"{SMALLEST_TEXT} px")
    context.close()


def check_page(chromium: str, site: Path, games: int, positions: int) -> Report:
    """The checks of the module docstring on the built site ``site``; the report says what failed."""
    report = Report()
    path = site / PAGE
    if not path.is_file():
        report.problems.append(f"no page {PAGE} in {site}: build the site first (make html)")
        return report
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")

        def gatekeeper(route) -> None:
            if route.request.url.startswith(("file:", "data:", "blob:", "about:")):
                route.continue_()
            else:
                report.problems.append(f"request to another host: {route.request.url}")
                route.abort("internetdisconnected")

        context.route("**/*", gatekeeper)
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and report.problems.append(
            f"console: {message.text}"))
        page.on("pageerror", lambda error: report.problems.append(f"uncaught: {error}"))
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_function("() => document.querySelector('.awale-play') && "
                               "document.querySelector('.awale-play').dataset.busy === '0'", timeout=60_000)
        # 1. The engine the page loaded against the library.
        page.add_script_tag(path=str(TRACE))
        started = time.perf_counter()
        for first in range(0, games, CHUNK):
            count = min(CHUNK, games - first)
            chunk = page.evaluate("([first, count, positions]) => AwalePlayTrace(first, count, positions)",
                                  [first, count, max(0, positions - report.positions)])
            report.add(compare(chunk))
        print(f"the page's engine in Chromium: {report.summary()} ({time.perf_counter() - started:.0f} s)")
        if report.positions < positions:
            report.problems.append(f"only {report.positions} positions had their αβ values compared, not {positions}")
        # 2-4. The page as a reader plays it.
        reader = _Reader(page, report)
        rng = np.random.default_rng(24)
        reader.play_everyone(rng)
        reader.whole_game(rng)
        reader.watch()
        check_thumbs(browser, path, report)
        for spec, seconds in reader.times.items():
            print(f"  {spec}: its slowest reply took {seconds:.2f} s (with the page drawing it)")
            if seconds > SLOWEST:
                report.problems.append(f"page: {spec} took {seconds:.1f} s for a move, more than {SLOWEST} s")
        browser.close()
    return report
