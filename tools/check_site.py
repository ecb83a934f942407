"""Check the built website in headless Chromium, with the network off.

Every page of the site is served from 127.0.0.1 and opened in Debian's Chromium (driven by Playwright, which
launches that browser and downloads none).  A page fails on:

- a request to any other host (the site must work offline: MathJax, fonts and scripts are its own files),
  a failed request, or a response with an error status;
- a console error or an uncaught exception;
- a picture that does not render: every ``<img>`` must decode to a non-zero size, so every SVG board drawn by
  ``awale`` (an SVG file whose root has class ``awale-board``, or an inline ``svg.awale-board``) and every plot
  shows on screen;
- math that MathJax did not typeset, or typeset with an error;
- a link to a file of the site that does not exist, or to an anchor that the target page lacks;
- a search (for "seeds") that finds nothing;
- a page that does not fit the screen: at 1280×800, a code cell, an output, an algorithm, a table, a board,
  a plot or a displayed formula wider than the content column or cut off (scrolled inside its box); at 390 px
  wide (a phone), a page that scrolls sideways, or a board whose seed counts are drawn smaller than 11 px.  The
  message names the element, the section it is in and the start of its text;
- a picture whose alt text is not plain words (raw LaTeX such as ``\\varepsilon``);
- a chapter longer than 300 lines of code that does not start with its code folded (for a reader who has not
  chosen), or one shorter that does;
- the title page or the first chapter without a link to the page "Play in the browser" on
  its first screen (1280×800).

Every page is opened twice: served by a web server on 127.0.0.1, and from disk (file://), as a reader of a
downloaded copy opens it.

On the chapters it also works the code switch: "Hide code" hides every code cell and keeps the outputs, the
choice survives a reload (localStorage), "Show code" brings the cells back.

Usage: python tools/check_site.py [--chromium /usr/bin/chromium] [--screenshots DIR] _build/html
"""

from __future__ import annotations

import argparse
import functools
import html.parser
import http.server
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Route, sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",  # Chromium refuses to run as root with its sandbox
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-proxy-server",
    # The network is off: no name but the loopback address resolves.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


SMALLEST_SEEDS = 11  # px: a board's seed counts on a phone's screen (390 px wide)
LONG_CHAPTER = 300  # lines of code beyond which a chapter starts with its code folded (docs/_static/code-toggle.js)
PLAY_PAGE = "docs/play-online.html"
# The pages whose first screen must link the board to play on.
LINK_TO_PLAY = ("docs/index.html", "notebooks/01-introduction.html")


@dataclass
class PageReport:
    path: str
    problems: list[str] = field(default_factory=list)
    boards: int = 0
    pictures: int = 0
    formulas: int = 0
    code_cells: int = 0


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


class _Links(html.parser.HTMLParser):
    """The ids of a page, and the local links and pictures it points to."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("name"):
            self.ids.add(attributes["name"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        if tag == "img" and attributes.get("src"):
            self.images.append(attributes["src"])


@functools.lru_cache(maxsize=None)
def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _is_board(svg: Path) -> bool:
    head = svg.read_text(encoding="utf-8", errors="replace")[:2000]
    return 'class="awale-board"' in head


def _seed_font(svg: Path) -> float | None:
    """The font size of a board's seed counts (class ``num``), in the SVG's units."""
    found = re.search(r"\.num\{font:(?:bold )?([\d.]+)px", svg.read_text(encoding="utf-8", errors="replace")[:3000])
    return float(found.group(1)) if found else None


def check_links(site: Path, page: Path, report: PageReport) -> None:
    """Local links must reach an existing file, and an anchor of an HTML page must exist in it."""
    for href in _parse(page).links:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("mailto:"):
            continue  # a link out (a DOI, say) is the reader's to follow; the check is that nothing loads
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file() or site not in target.parents and target != site:
            report.problems.append(f"broken link {href!r}")
            continue
        if parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
            report.problems.append(f"link {href!r}: no anchor {parts.fragment!r} in {target.relative_to(site)}")


# What must fit the content column at 1280 px: every block a reader looks at as a whole.
_BLOCKS = (
    "div.nbinput, div.nboutput, div.nbinput pre, div.nboutput pre, div.algorithm, div.algorithm pre, "
    "article div.highlight pre, table, figure, img, svg.awale-board, mjx-container[display='true']"
)
_DESCRIBE = """(e) => {
    const name = e.tagName.toLowerCase() + [...e.classList].slice(0, 2).map(c => '.' + c).join('');
    const cell = e.closest('div.nbinput, div.nboutput, div.algorithm, figure');
    const where = cell && cell !== e ? ' in ' + cell.tagName.toLowerCase() + '.' + cell.classList[0] : '';
    let section = e.closest('section'), heading = section && section.querySelector('h1, h2, h3, h4');
    const under = heading ? ' under "' + heading.textContent.replace('#', '').trim().slice(0, 50) + '"' : '';
    const text = (e.getAttribute('alt') || e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 40);
    return name + where + under + (text ? ' ("' + text + '...")' : '');
}"""


def check_fit(page: Page, report: PageReport, board_fonts: dict[str, float] | None = None) -> None:
    """The page fits at 1280×800 (no block wider than the column or cut off) and at 390 px (no sideways scroll).

    ``board_fonts`` maps the ``src`` of each board picture to the size of its seed counts in the SVG's units: at
    390 px they must be drawn at least SMALLEST_SEEDS px tall, as must the seed counts of inline boards.
    """
    board_fonts = board_fonts or {}
    page.set_viewport_size({"width": 1280, "height": 800})
    wide = page.evaluate(
        f"""() => {{
            const describe = {_DESCRIBE};
            const column = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
            const box = column.getBoundingClientRect(), style = getComputedStyle(column);
            const left = box.left + parseFloat(style.paddingLeft), right = box.right - parseFloat(style.paddingRight);
            const problems = [];
            for (const e of column.querySelectorAll("{_BLOCKS}")) {{
                const r = e.getBoundingClientRect();
                if (r.width === 0 || r.height === 0) continue;
                const beyond = Math.max(r.right - right, left - r.left), hidden = e.scrollWidth - e.clientWidth;
                if (beyond > 1) problems.push(describe(e) + ' is ' + Math.round(beyond) + ' px wider than the column');
                else if (hidden > 1 && getComputedStyle(e).overflowX !== 'visible')
                    problems.push(describe(e) + ' is cut off: ' + hidden + ' px of it scroll out of sight');
            }}
            return problems;
        }}"""
    )
    report.problems += [f"at 1280×800: {problem}" for problem in wide]
    page.set_viewport_size({"width": 390, "height": 844})
    sideways = page.evaluate(
        f"""() => {{
            const describe = {_DESCRIBE};
            const width = document.documentElement.clientWidth;
            if (document.documentElement.scrollWidth <= width + 1) return [];
            // An element inside a box that scrolls (or clips) cannot widen the page, nor can a fixed one
            // (the drawers of the theme wait off screen).
            const contained = (e) => {{
                if (getComputedStyle(e).position === 'fixed') return true;
                for (let a = e.parentElement; a; a = a.parentElement) {{
                    const style = getComputedStyle(a);
                    if (['auto', 'scroll', 'hidden'].includes(style.overflowX) || style.position === 'fixed') return true;
                }}
                return false;
            }};
            const culprits = [...document.body.querySelectorAll('*')].filter(e => {{
                const r = e.getBoundingClientRect();
                return r.width > 0 && r.right > width + 1 && !contained(e);
            }});
            // The outermost culprits name the cause; their children only follow them.
            const outer = culprits.filter(e => !culprits.includes(e.parentElement)).slice(0, 3);
            return [document.documentElement.scrollWidth - width, outer.map(describe)];
        }}"""
    )
    small = page.evaluate(
        f"""(fonts) => {{
            const describe = {_DESCRIBE};
            const problems = [];
            for (const img of document.querySelectorAll('img')) {{
                const font = fonts[img.getAttribute('src')];
                const r = img.getBoundingClientRect();
                if (!font || !img.naturalWidth || r.width === 0) continue;
                const shown = font * r.width / img.naturalWidth;
                if (shown < {SMALLEST_SEEDS} - 0.05) problems.push(describe(img) + ': its seed counts are ' + shown.toFixed(1) + ' px');
            }}
            for (const svg of document.querySelectorAll('svg.awale-board')) {{
                const count = svg.querySelector('text[data-pit]'), box = svg.viewBox.baseVal;
                const r = svg.getBoundingClientRect();
                if (!count || !box || !box.width || r.width === 0) continue;
                const shown = parseFloat(getComputedStyle(count).fontSize) * r.width / box.width;
                if (shown < {SMALLEST_SEEDS} - 0.05) problems.push(describe(svg) + ': its seed counts are ' + shown.toFixed(1) + ' px');
            }}
            return problems;
        }}""",
        board_fonts,
    )
    report.problems += [f"at 390 px: {problem} (at least {SMALLEST_SEEDS} px)" for problem in small]
    if sideways:
        excess, culprits = sideways
        report.problems.append(
            f"at 390 px the page scrolls sideways by {excess} px, because of " + "; ".join(culprits or ["?"])
        )
    page.set_viewport_size({"width": 1280, "height": 800})


def check_page(page: Page, url: str, site: Path, path: Path, report: PageReport, fit: bool = False) -> None:
    if 'http-equiv="refresh"' in path.read_text(encoding="utf-8"):
        # The top index.html leads to the title page: it must get there (the title page is checked on its own).
        page.goto(url)
        try:
            page.wait_for_url(lambda address: address != url, wait_until="load", timeout=10_000)
        except PlaywrightError:
            report.problems.append("the redirection does not happen")
        else:
            if not page.locator("article").count():
                report.problems.append(f"the redirection leads to {page.url}, not to a page of the book")
        return
    if path.name == "search.html":
        # The search runs in the browser, on the index the build wrote: a word of every chapter must be found.
        page.goto(url + "?q=seeds", wait_until="load")
        try:
            page.wait_for_function("() => document.querySelectorAll('ul.search li').length > 0", timeout=10_000)
        except PlaywrightError:
            report.problems.append("searching for 'seeds' finds nothing")
        return
    page.goto(url, wait_until="load")
    if page.evaluate("() => !!(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)"):
        page.evaluate("() => window.MathJax.startup.promise")
    math = page.evaluate(
        """() => {
            const all = [...document.querySelectorAll('.math')];
            return {
                total: all.length,
                untypeset: all.filter(e => !e.querySelector('mjx-container')).length,
                errors: document.querySelectorAll('mjx-merror, .MathJax_Error').length,
            };
        }"""
    )
    report.formulas = math["total"]
    if math["untypeset"]:
        report.problems.append(f"{math['untypeset']} of {math['total']} formulas not typeset by MathJax")
    if math["errors"]:
        report.problems.append(f"{math['errors']} MathJax errors")

    pictures = page.evaluate(
        """async () => {
            const images = [...document.querySelectorAll('img')];
            await Promise.all(images.map(i => i.decode().catch(() => null)));
            return images.map(i => {
                const box = i.getBoundingClientRect();
                return {src: i.getAttribute('src'), natural: i.naturalWidth, width: box.width, height: box.height,
                        alt: i.getAttribute('alt')};
            });
        }"""
    )
    board_fonts: dict[str, float] = {}
    for picture in pictures:
        src = picture["src"]
        if not picture["natural"] or picture["width"] <= 0 or picture["height"] <= 0:
            report.problems.append(f"picture {src} does not render ({picture['width']:.0f}×{picture['height']:.0f})")
        if re.search(r"\\[A-Za-z]|\$", picture["alt"] or ""):
            report.problems.append(f"picture {src}: its alt text is not plain words: {picture['alt'][:80]!r}")
        local = (path.parent / unquote(urlsplit(src).path)).resolve()
        if local.suffix == ".svg" and local.is_file() and _is_board(local):
            report.boards += 1
            font = _seed_font(local)
            if font:
                board_fonts[src] = font
        elif "_images/" in src:
            report.pictures += 1
    inline = page.evaluate(
        """() => [...document.querySelectorAll('svg.awale-board')].map(s => {
            const box = s.getBoundingClientRect(); return box.width > 0 && box.height > 0; })"""
    )
    report.boards += len(inline)
    if not all(inline):
        report.problems.append(f"{inline.count(False)} inline boards do not render")
    expected = [src for src in _parse(path).images if src.endswith(".svg")]
    shown = [p["src"] for p in pictures]
    for src in expected:
        if src not in shown:
            report.problems.append(f"SVG picture {src} is in the page but not in the browser's document")

    relative = path.relative_to(site).as_posix()
    if relative in LINK_TO_PLAY:
        check_link_to_play(page, relative, report)
    report.code_cells = page.evaluate("() => document.querySelectorAll('div.nbinput').length")
    if report.code_cells:
        check_folding(page, report)
        check_code_switch(page, report)
    if fit:
        check_fit(page, report, board_fonts)


def check_link_to_play(page: Page, relative: str, report: PageReport) -> None:
    """The page links the board to play on within its first screen at 1280×800."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("() => window.scrollTo(0, 0)")
    tops = page.evaluate(
        f"""() => [...document.querySelectorAll('.bd-main a[href], article a[href]')]
            .filter(a => !a.closest('.bd-sidebar-primary') && a.getAttribute('href').split('#')[0].endsWith('{Path(PLAY_PAGE).name}'))
            .map(a => a.getBoundingClientRect()).filter(r => r.width > 0).map(r => r.top)"""
    )
    if not any(top < 800 for top in tops):
        where = f"{min(tops):.0f} px down" if tops else "nowhere"
        report.problems.append(f"the link to the board to play on ({PLAY_PAGE}) is {where}, not on the first screen")


def check_folding(page: Page, report: PageReport) -> None:
    """For a reader who has not chosen, a long chapter starts with its code folded, a short one with it shown."""
    page.evaluate("() => { try { localStorage.removeItem('awale-thesis-code'); } catch (e) {} }")
    page.wait_for_load_state("networkidle")  # a reload would abort requests still under way (fonts)
    page.reload(wait_until="load")
    lines, visible = page.evaluate(
        """() => {
            let lines = 0;
            document.querySelectorAll('div.nbinput pre').forEach(
                pre => { lines += pre.textContent.replace(/\\n+$/, '').split('\\n').length; });
            return [lines, [...document.querySelectorAll('div.nbinput')].filter(e => e.offsetParent !== null).length];
        }"""
    )
    if lines > LONG_CHAPTER and visible:
        report.problems.append(f"{lines} lines of code, yet the chapter opens with {visible} code cells unfolded")
    elif lines <= LONG_CHAPTER and visible != report.code_cells:
        report.problems.append(f"{lines} lines of code only, yet the chapter opens with its code folded")


#: How long the code switch's check waits for the page to show (or hide) the cells, after a click or a reload: two
#: cores shared with other work can take longer than the 5 s this once was.
SETTLE_MS = 30_000


def check_code_switch(page: Page, report: PageReport) -> None:
    visible_cells = "[...document.querySelectorAll('div.nbinput')].filter(e => e.offsetParent !== null).length"
    visible_outputs = "[...document.querySelectorAll('div.nboutput')].filter(e => e.offsetParent !== null).length"

    def settles(expression: str, expected: int) -> bool:
        """Whether ``expression`` reaches ``expected`` within :data:`SETTLE_MS` (a loaded machine is slow to paint:
        a page that works settles in well under a second, so the wait costs time only when the check fails)."""
        try:
            page.wait_for_function(f"() => ({expression}) === {expected}", timeout=SETTLE_MS)
            return True
        except PlaywrightTimeoutError:
            return False

    button = page.locator("button.awale-code-toggle")
    if button.count() != 1:
        report.problems.append(f"{button.count()} code switches on a page with code cells (expected 1)")
        return
    if not settles(visible_cells, report.code_cells):  # a choice left by an earlier page: start from "shown"
        button.click()
        if not settles(visible_cells, report.code_cells):
            report.problems.append("the code cells cannot be shown")
            return
    outputs = page.evaluate(f"() => {visible_outputs}")
    button.click()
    if not settles(visible_cells, 0):
        report.problems.append("'Hide code' leaves code cells visible")
    if page.evaluate(f"() => {visible_outputs}") != outputs:
        report.problems.append("'Hide code' hides outputs too")
    page.wait_for_load_state("networkidle")  # a reload would abort requests still under way (fonts)
    page.reload(wait_until="load")
    if not settles(visible_cells, 0):
        report.problems.append("the hidden-code choice does not survive a reload")
    page.locator("button.awale-code-toggle").click()
    if not settles(visible_cells, report.code_cells):
        report.problems.append("'Show code' does not bring every code cell back")


def check_pass(
    browser, mode: str, site: Path, reports: dict[Path, PageReport], url_of, local, screenshots, fit: bool = False
) -> None:
    """Open every page in a fresh browser context; ``local(url)`` tells the site's own addresses.

    With ``fit``, also check that each page fits the screen (check_fit).
    """
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    current: list[PageReport] = []

    def note(problem: str) -> None:
        current[-1].problems.append(problem)

    def gatekeeper(route: Route) -> None:
        url = route.request.url
        if local(url) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            note(f"request to another host: {url}")
            route.abort("internetdisconnected")

    context.route("**/*", gatekeeper)
    page = context.new_page()
    page.on("console", lambda message: message.type == "error" and note(f"console: {message.text}"))
    page.on("pageerror", lambda error: note(f"uncaught: {error}"))
    page.on("requestfailed", lambda request: local(request.url) and note(f"failed: {request.url} {request.failure}"))
    page.on("response", lambda response: response.status >= 400 and note(f"HTTP {response.status}: {response.url}"))
    for path, report in reports.items():
        relative = path.relative_to(site).as_posix()
        current.append(PageReport(relative))
        check_page(page, url_of(relative), site, path, current[-1], fit=fit)
        report.problems += [f"[{mode}] {problem}" for problem in current[-1].problems]
        report.boards, report.pictures = current[-1].boards, current[-1].pictures
        report.formulas, report.code_cells = current[-1].formulas, current[-1].code_cells
        if screenshots:
            screenshots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=screenshots / (relative.replace("/", "_") + ".png"), full_page=True)
    context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built website, e.g. _build/html")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    parser.add_argument("--screenshots", type=Path, help="save a screenshot of every page in this folder")
    args = parser.parse_args(argv)

    site = args.site.resolve()
    if not (site / "index.html").is_file():
        print(f"no website in {site}: build it first (make html)", file=sys.stderr)
        return 2
    pages = sorted(path for path in site.rglob("*.html") if "_static" not in path.parts)
    reports = {path: PageReport(path.relative_to(site).as_posix()) for path in pages}
    for path, report in reports.items():
        check_links(site, path, report)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    disk = site.as_uri() + "/"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS, headless=True)
            # Served by a local web server, then opened from disk as a reader of a downloaded copy would.
            check_pass(browser, "from disk", site, reports, lambda relative: urljoin(disk, relative),
                       lambda url: url.startswith(disk), None)
            check_pass(browser, "served", site, reports, lambda relative: urljoin(origin, relative),
                       lambda url: url.startswith(origin), args.screenshots, fit=True)
            browser.close()
    finally:
        server.shutdown()

    failed = 0
    for report in reports.values():
        details = [f"{report.boards} boards", f"{report.pictures} other pictures", f"{report.formulas} formulas"]
        if report.code_cells:
            details.append(f"{report.code_cells} code cells")
        print(f"{'FAIL' if report.problems else 'ok  '}  {report.path}: {', '.join(details)}")
        for problem in dict.fromkeys(report.problems):  # once each, in order
            print(f"        {problem}")
        failed += bool(report.problems)
    boards = sum(report.boards for report in reports.values())
    passed = len(reports) - failed
    print(f"{len(reports)} pages, {boards} boards, served and from disk: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
