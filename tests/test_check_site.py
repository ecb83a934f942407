"""tools/check_site.py's fit check (check_fit) on small pages, in the headless Chromium that `make check-site` uses.

Skipped when Chromium is not installed (apt-get install -y chromium); the full check of the built site is
`make check-site`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Chromium: apt-get install -y chromium")

sys.path.insert(0, str(ROOT / "tools"))
check_site = pytest.importorskip("check_site")

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin: 0"><main><article class="bd-article" style="max-width: 640px; padding: 0 16px">
<section><h2>The rules</h2><p>Some prose that wraps as it should on any screen.</p>{body}</section>
</article></main></body></html>"""


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=check_site.CHROMIUM_ARGS, headless=True)
        yield browser.new_page(viewport={"width": 1280, "height": 800})
        browser.close()


def _problems(page, body: str) -> list[str]:
    page.set_content(PAGE.format(body=body))
    report = check_site.PageReport("test.html")
    check_site.check_fit(page, report)
    return report.problems


def test_a_page_that_fits_passes(page):
    body = '<div class="nbinput"><pre style="overflow-x: auto">game = Game()</pre></div>'
    assert _problems(page, body) == []


def test_a_code_cell_cut_off_at_1280_is_named(page):
    body = '<div class="nbinput"><pre style="overflow-x: auto">' + "x = 1; " * 40 + "</pre></div>"
    (problem,) = _problems(page, body)
    assert problem.startswith("at 1280×800: pre in div.nbinput under \"The rules\" (\"x = 1; x = 1;")
    assert "is cut off" in problem


def test_a_table_wider_than_the_column_is_named(page):
    body = '<table style="width: 900px"><tr><td>South</td><td>North</td></tr></table>'
    problems = _problems(page, body)
    assert any(p.startswith("at 1280×800: table under \"The rules\" (\"South") and "wider than the column" in p
               for p in problems), problems


def test_a_page_that_scrolls_sideways_on_a_phone_is_named(page):
    body = '<p><span style="display: inline-block; width: 480px" class="wide">a board drawn too wide</span></p>'
    (problem,) = _problems(page, body)
    assert problem.startswith("at 390 px the page scrolls sideways by")
    assert 'span.wide under "The rules" ("a board drawn too wide' in problem


def _board_page(page, compact: bool, width: int = 390) -> None:
    """An inline board drawn by docs/_static/awale-board.js, in a column of a phone's page."""
    page.set_viewport_size({"width": width, "height": 844})
    page.set_content(PAGE.format(body='<div id="place"></div>'))
    page.add_style_tag(path=str(ROOT / "docs" / "_static" / "awale-board.css"))
    page.add_script_tag(path=str(ROOT / "docs" / "_static" / "awale-board.js"))
    page.evaluate("""(compact) => document.getElementById('place').appendChild(
        AwaleBoard.draw(6, [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0], {compact: compact, playable: [0, 1, 2]}))""",
                  compact)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_a_board_with_seed_counts_too_small_on_a_phone_is_named(page):
    _board_page(page, compact=False)
    page.add_style_tag(content="svg.awale-drawn .num { font-size: 13px; }")  # the chapters' boards' old size
    report = check_site.PageReport("test.html")
    check_site.check_fit(page, report)
    assert any("at 390 px: svg.awale-board" in p and "seed counts are" in p for p in report.problems), report.problems


def test_the_narrow_board_has_seed_counts_a_phone_reads(page):
    _board_page(page, compact=True)
    report = check_site.PageReport("test.html")
    check_site.check_fit(page, report)
    assert report.problems == []


def _play_page(page, css: bool) -> None:
    """The page "Play in the browser" (docs/_ext/play_online.py's HTML and docs/_static's scripts) at 390 px."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import play_online

    static = ROOT / "docs" / "_static"
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(PAGE.format(body=play_online._HTML))
    page.add_style_tag(path=str(static / "awale-board.css"))
    if css:
        page.add_style_tag(path=str(static / "play-online.css"))
    for script in ("awale-engine.js", "awale-agents.js", "awale-board.js", "play-online.js"):
        page.add_script_tag(path=str(static / script))
    idle = "() => document.querySelector('.awale-play').dataset.busy === '0'"
    page.wait_for_function(idle, timeout=30_000)
    page.select_option(".awale-play-opponent", "browser-greedy")
    page.click(".awale-play-thinking")
    page.click('.awale-play-controls [data-action="new"]')
    page.wait_for_function(idle, timeout=30_000)
    page.click(".awale-play svg .legal")
    page.wait_for_function(idle, timeout=30_000)


def test_the_play_page_is_made_for_thumbs(page):
    play_page = pytest.importorskip("play_page")
    _play_page(page, css=True)
    assert page.query_selector_all(".awale-play svg [data-note]"), "the thinking's notes are shown"
    problems = page.evaluate(play_page._THUMBS, [play_page.TARGET, play_page.TARGET_GAP, play_page.SMALLEST_TEXT])
    page.evaluate("() => document.querySelectorAll('.awale-play details').forEach(d => { d.open = true; })")
    problems += page.evaluate(play_page._THUMBS, [play_page.TARGET, play_page.TARGET_GAP, play_page.SMALLEST_TEXT])
    page.set_viewport_size({"width": 1280, "height": 800})
    assert problems == [], "\n".join(problems)


def test_the_thumbs_check_names_small_targets(page):
    play_page = pytest.importorskip("play_page")
    _play_page(page, css=False)
    problems = page.evaluate(play_page._THUMBS, [play_page.TARGET, play_page.TARGET_GAP, play_page.SMALLEST_TEXT])
    page.set_viewport_size({"width": 1280, "height": 800})
    assert any('the target "new game" is' in p for p in problems), problems
