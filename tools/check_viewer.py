"""Check the site's game viewers in headless Chromium against the positions the library computes.

For every viewer of the built site (``div.awale-viewer``, written by docs/_ext/game_viewer.py):

- its game must be in the experiment store, with the moves the page lists (same experiment, agents, seed,
  rules);
- the board shown must be, seed for seed and capture for capture, the position that ``awale.Game`` reaches
  after the plies played so far: at the start, after every click on "step" to the end of the game, after
  "back", after a click on a move of the list, after "start", "end", and "play" run to the end;
- the pit sown last and the pits it captured must be the ones marked.

The site is served from 127.0.0.1 with the network off, as tools/check_site.py does; a console error, an
uncaught exception or a request to another host fails the check.  A site without viewers fails too (the
appendix "Games from the experiments" must show some).

Usage: python tools/check_viewer.py [--chromium /usr/bin/chromium] [--store data/experiments.sqlite] _build/html
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from awale import Game
from awale.experiments import decode_moves, load, rules_from_text
from awale.core.record import replay
from check_site import CHROMIUM_ARGS  # the same browser, network off but for the loopback address

ROOT = Path(__file__).resolve().parents[1]

_SHOWN = """viewer => {
    const svg = viewer.querySelector('svg.awale-board');
    const number = node => Number(node.textContent);
    const box = svg.getBoundingClientRect();
    return {
        ply: Number(viewer.dataset.ply),
        pits: [...svg.querySelectorAll('[data-pit]')].sort((a, b) => a.dataset.pit - b.dataset.pit).map(number),
        captures: [...svg.querySelectorAll('[data-store]')].sort((a, b) => a.dataset.store - b.dataset.store)
                  .map(number),
        sown: [...svg.querySelectorAll('circle.sown')].length,
        taken: [...svg.querySelectorAll('circle.taken')].length,
        status: viewer.querySelector('.awale-viewer-status').textContent,
        visible: box.width > 0 && box.height > 0,
    };
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


def _stored_moves(store: Path, attributes: dict) -> tuple:
    games = load(store, attributes["experiment"])
    match = games[(games["south"] == attributes["south"]) & (games["north"] == attributes["north"])
                  & (games["seed"] == int(attributes["seed"])) & (games["rules"] == attributes["rules"])]
    return tuple(decode_moves(match.iloc[0]["moves"])) if len(match) == 1 else None


def check_viewer(page, viewer, store: Path) -> list[str]:
    """The problems of one viewer (an element handle), empty when it is right."""
    attributes = viewer.evaluate("v => ({...v.dataset})")
    name = f"{attributes['experiment']}: {attributes['south']} vs {attributes['north']}, seed {attributes['seed']}"
    listed = viewer.evaluate("v => [...v.querySelectorAll('.awale-viewer-moves button')].map(b => b.textContent)")
    moves = _stored_moves(store, attributes)
    if moves is None:
        return [f"{name}: not in the store {store}"]
    rules = rules_from_text(attributes["rules"])
    plies = replay(moves, rules)
    labels = [ply.label + (f" ×{ply.captured}" if ply.captured else "") for ply in plies]
    if listed != labels:
        return [f"{name}: the move list {listed[:8]}... is not the stored game's {labels[:8]}..."]
    positions = [Game(rules)] + [ply.game for ply in plies]
    problems: list[str] = []

    def expect(ply: int, after: str) -> None:
        shown = viewer.evaluate(_SHOWN)
        game = positions[ply]
        if shown["ply"] != ply:
            problems.append(f"{name}: after {after}, ply {shown['ply']} shown instead of {ply}")
        elif shown["pits"] != list(game.pits) or shown["captures"] != list(game.captures):
            problems.append(f"{name}: after {after} (ply {ply}), the board shows {shown['pits']} "
                            f"captures {shown['captures']}; the library has {list(game.pits)} {list(game.captures)}")
        elif ply and (shown["sown"], shown["taken"]) != (1, len(plies[ply - 1].captured_pits)):
            problems.append(f"{name}: ply {ply} marks {shown['sown']} sown and {shown['taken']} captured pits")
        elif not shown["visible"]:
            problems.append(f"{name}: the board is not visible")

    def click(action: str) -> None:
        viewer.query_selector(f'[data-action="{action}"]').click()

    expect(0, "loading")
    for ply in range(1, len(plies) + 1):
        click("step")
        expect(ply, "step")
        if problems:
            return problems
    click("step")  # past the end, nothing moves
    expect(len(plies), "step at the end")
    for ply in (len(plies) - 1, len(plies) - 2):
        click("back")
        expect(ply, "back")
    middle = len(plies) // 2
    viewer.query_selector(f'.awale-viewer-moves button[data-ply="{middle}"]').click()
    expect(middle, f"a click on move {middle}")
    click("start")
    expect(0, "start")
    click("end")
    expect(len(plies), "end")
    near_end = max(0, len(plies) - 4)
    viewer.query_selector(f'.awale-viewer-moves button[data-ply="{near_end}"]').click() if near_end else click("start")
    click("play")
    page.wait_for_function("v => Number(v.dataset.ply) === JSON.parse("
                           "v.querySelector('.awale-viewer-data').textContent).plies.length",
                           arg=viewer, timeout=10_000)
    expect(len(plies), f"play from ply {near_end}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built website, e.g. _build/html")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    parser.add_argument("--store", type=Path, default=ROOT / "data" / "experiments.sqlite",
                        help="the experiment store the site was built from")
    args = parser.parse_args(argv)
    site = args.site.resolve()
    pages = sorted(path for path in site.rglob("*.html")
                   if "_static" not in path.parts and "awale-viewer-data" in path.read_text(encoding="utf-8"))
    if not pages:
        print(f"no game viewer in {site}: build the site first (make html)", file=sys.stderr)
        return 1
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    problems: list[str] = []
    viewers = 0
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS, headless=True)
            context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")

            def gatekeeper(route) -> None:
                if route.request.url.startswith((origin, "data:", "blob:", "about:")):
                    route.continue_()
                else:
                    problems.append(f"request to another host: {route.request.url}")
                    route.abort("internetdisconnected")

            context.route("**/*", gatekeeper)
            page = context.new_page()
            page.on("console", lambda message: message.type == "error" and problems.append(f"console: {message.text}"))
            page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
            for path in pages:
                page.goto(origin + path.relative_to(site).as_posix(), wait_until="load")
                page.wait_for_function("() => [...document.querySelectorAll('.awale-viewer')]"
                                       ".every(v => v.dataset.ply !== undefined)", timeout=10_000)
                for viewer in page.query_selector_all(".awale-viewer"):
                    viewers += 1
                    found = check_viewer(page, viewer, args.store)
                    problems += found
                    plies = viewer.evaluate("v => v.querySelectorAll('.awale-viewer-moves button').length")
                    print(f"{'FAIL' if found else 'ok  '}  {path.relative_to(site)}: "
                          f"{viewer.evaluate('v => v.dataset.experiment')}, {plies} plies")
            browser.close()
    finally:
        server.shutdown()
    for problem in dict.fromkeys(problems):
        print(f"        {problem}")
    print(f"{viewers} game viewers stepped through: {'FAILED' if problems else 'every board as the library has it'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
