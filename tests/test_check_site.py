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
