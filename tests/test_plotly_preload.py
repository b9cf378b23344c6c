"""The home page loads Plotly's script before the reader clicks a Figure 1 box.

Figure 1 is Vega-Lite, and every page it links to opens with a Plotly figure: in a new session the
first click used to wait while the browser fetched and ran Plotly's 4.7 MB script (about 0.6 s of a
1.7-1.9 s wait). The home page ends with an empty Plotly chart kept off screen (`ui.frame.load_plotly`),
so the script is loaded while the reader reads. Checked here: the chart is empty and is the only Plotly
element of the page (AppTest); in Chromium, Plotly's script has loaded by the time the home page is
ready, the chart is off screen, and the page Figure 1 opens does not fetch the script again."""

from __future__ import annotations

import json
from pathlib import Path

from server import DRAWN, wait_idle
from streamlit.testing.v1 import AppTest

from ui.frame import PLOTLY_PRELOAD_CSS, PLOTLY_PRELOAD_KEY

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_MS = 300_000
PLOTLY_SCRIPTS = ("() => performance.getEntriesByType('resource')"
                  ".filter(r => /PlotlyChart/.test(r.name)).length")


def test_the_home_pages_one_plotly_chart_is_the_empty_preload():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    charts = at.get("plotly_chart")
    assert [c.proto.id.rsplit("-", 1)[-1] for c in charts] == [f"{PLOTLY_PRELOAD_KEY}_chart"]
    assert all(not trace.get("x") for trace in json.loads(charts[0].proto.spec)["data"])  # nothing to see


def assert_preload_drawn_off_screen(tab) -> None:
    """The preload chart drawn (Plotly's script has run, fetched once) and off screen."""
    drawn = tab.locator(f".st-key-{PLOTLY_PRELOAD_KEY} .main-svg").first
    drawn.wait_for(state="attached", timeout=TIMEOUT_MS)
    assert tab.evaluate(PLOTLY_SCRIPTS) == 1
    box = tab.locator(f".st-key-{PLOTLY_PRELOAD_KEY}").bounding_box()
    assert box["x"] + box["width"] <= 0, f"the preload chart is on screen: {box}"


def test_plotly_is_loaded_on_the_home_page_off_screen_and_not_again_after_a_click(app_server, browser):
    server = app_server  # the session's shared server (conftest.py); a new context has an empty cache
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    tab = context.new_page()
    try:
        tab.goto(f"{server.url}/", wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        assert_preload_drawn_off_screen(tab)
        tab.locator('[data-testid="stSidebarNav"] a:has-text("Multi-head attention")').click()
        tab.wait_for_url("**/Multi_head_attention*", timeout=TIMEOUT_MS)
        tab.locator('[data-testid="stMain"] .js-plotly-plot .main-svg').first.wait_for(timeout=TIMEOUT_MS)
        assert tab.evaluate(PLOTLY_SCRIPTS) == 1  # the same script, not fetched again
    finally:
        context.close()


def test_the_preloads_style_names_its_key():
    assert PLOTLY_PRELOAD_CSS.count(f".st-key-{PLOTLY_PRELOAD_KEY}") == 2  # the block and its wrapper


def test_every_other_page_draws_the_preload_first():
    for page in ("Tokens_and_embeddings", "Positional_encoding"):  # the inputs: no decoding needed
        at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=300)
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        charts = at.get("plotly_chart")
        assert len(charts) > 1, page  # the preload and the page's own figures
        assert charts[0].proto.id.endswith(f"-{PLOTLY_PRELOAD_KEY}_chart"), page


# The title's bottom and the top of the first element drawn after it, on screen (the preload is off it).
TITLE_GAP_JS = """() => { const h1 = document.querySelector('h1').getBoundingClientRect();
  const next = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]')]
    .map(e => e.getBoundingClientRect()).filter(r => r.height > 2 && r.left >= 0 && r.top >= h1.bottom - 1);
  return [h1.bottom, Math.min(...next.map(r => r.top))]; }"""


def test_a_deep_link_draws_the_preload_off_screen_and_keeps_the_pages_layout(app_server, browser):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    tab = context.new_page()
    try:
        tab.goto(f"{app_server.url}/Tokens_and_embeddings", wait_until="domcontentloaded")
        tab.wait_for_selector(DRAWN, state="visible", timeout=TIMEOUT_MS)  # the page's own first figure
        wait_idle(tab, TIMEOUT_MS)
        assert_preload_drawn_off_screen(tab)
        title_bottom, next_top = tab.evaluate(TITLE_GAP_JS)
        assert abs(next_top - title_bottom) < 1, (title_bottom, next_top)  # no gap left where it sits
    finally:
        context.close()
