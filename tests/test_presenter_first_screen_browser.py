"""Presenter mode on a 1024 × 768 projector, in Debian's Chromium:

- The first screen of every page (before any scrolling) shows the page's figure, at least its top
  150 px. It was text and controls alone on every page; in presenter mode the opening text folds into
  "About this page", long explanations follow their figure, and controls stand side by side.
- The sentence box is on the page itself (the sidebar that also has one starts folded away there).
- The head view's token labels are as large as the figures' other text, and formulas (st.latex) grow
  like the text around them.

A screenshot of each first screen goes to artifacts/presenter_1024/ (the viewport only, as projected).
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from server import ARTIFACTS, DRAWN, discover_pages, page_url, wait_idle

pytestmark = pytest.mark.timeout(900)

TIMEOUT_MS = 240_000
VIEWPORT = {"width": 1024, "height": 768}
SHOWN_PX = 150  # the figure's top this many px at least inside the first screen
SHOTS = ARTIFACTS / "presenter_1024"
# Each figure the page draws (Plotly's, or Vega-Lite's Figure 1 on Home), left out: the home page's
# hidden Plotly chart (off screen, it only loads Plotly's script) and figures in a closed expander or an
# unselected tab (drawn 0 px high).
CHARTS = '[data-testid="stMain"] :is([data-testid="stPlotlyChart"], [data-testid="stVegaLiteChart"])'
FIGURES = "() => [...document.querySelectorAll('" + CHARTS + """')]
  .filter(e => !e.closest('.st-key-atlas_plotly_preload'))
  .map(e => { const r = e.getBoundingClientRect();
    return {top: Math.round(r.top), bottom: Math.round(r.bottom), left: r.left, right: r.right}; })
  .filter(r => r.bottom > r.top && r.right > 0 && r.left < innerWidth)"""


def _open(tabs, server, url: str):
    """A fresh session at 1024 × 768 on `url`, once a figure is drawn and Streamlit is idle."""
    tab = tabs.new_page(VIEWPORT)
    tab.goto(url, wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    tab.wait_for_selector(DRAWN, state="attached", timeout=TIMEOUT_MS)
    wait_idle(tab, TIMEOUT_MS)
    tab.wait_for_timeout(1_000)  # Plotly's last relayout
    assert not tab.locator('[data-testid="stException"]').count()
    return tab


@pytest.mark.parametrize("page", discover_pages(), ids=lambda p: p.name)
def test_the_first_screen_in_presenter_mode_shows_the_pages_figure(app_server, tabs, page):
    tab = _open(tabs, app_server, page_url(app_server, page, "present=1"))
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', page.name)}.png"))
        figures = tab.evaluate(FIGURES)
        assert figures, "no figure drawn on the page"
        on_screen = [f for f in figures if f["top"] < VIEWPORT["height"] - SHOWN_PX and f["bottom"] > 0]
        assert on_screen, (f"{page.name}: no figure's top {SHOWN_PX} px on the first screen; the first "
                           f"figure's top is at {figures[0]['top']} px (all: {[f['top'] for f in figures]})")
    finally:
        tab.close()


def test_the_sentence_box_is_on_the_page_in_presenter_mode(app_server, tabs):
    """The sidebar starts folded in presenter mode: the popover under the title holds a sentence box,
    and a sentence typed there is the one every page shows (it goes into the link)."""
    tab = _open(tabs, app_server, f"{app_server.url}/Multi_head_attention?present=1")
    try:
        assert tab.locator('[data-testid="stSidebar"][data-collapsed="true"]').count() == 1, "sidebar open"
        tab.locator('[data-testid="stPopoverButton"]:visible', has_text="Sentence").click()
        box = tab.locator('textarea[aria-label="Your English sentence"]')
        box.wait_for(state="visible", timeout=TIMEOUT_MS)
        assert box.bounding_box()["y"] < VIEWPORT["height"], "the box is below the first screen"
        box.fill("The cat sat on the mat.")
        box.press("Control+Enter")
        wait_idle(tab, TIMEOUT_MS)
        tab.wait_for_function("() => new URL(location).searchParams.get('s') === 'The cat sat on the mat.'",
                              timeout=TIMEOUT_MS)
        tab.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot .ytick text')]"
                              ".some(t => t.textContent === 'mat')", timeout=TIMEOUT_MS)
    finally:
        tab.close()


SIZES = """() => ({
  ticks: Math.max(...[...document.querySelectorAll('.js-plotly-plot .ytick text')]
    .map(t => parseFloat(getComputedStyle(t).fontSize))),
  heads: [...document.querySelectorAll('.js-plotly-plot')]
    .filter(p => (p.querySelector('.gtitle')?.textContent || '').includes('left: queries'))
    .flatMap(p => [...p.querySelectorAll('.textpoint text')])
    .map(t => parseFloat(getComputedStyle(t).fontSize)),
  formulas: [...document.querySelectorAll('.katex-display > .katex')]
    .map(k => parseFloat(getComputedStyle(k).fontSize)),
  text: parseFloat(getComputedStyle(document.querySelector('[data-testid="stMain"] p')).fontSize)})"""


@pytest.mark.parametrize("present", [True, False], ids=["presenter", "1024"])
def test_head_view_labels_and_formulas_grow_with_the_text_in_presenter_mode(app_server, tabs, present):
    """The head view's tokens were 13 px beside 18-px ticks in presenter mode, formulas 19 px beside
    21.6-px text; outside presenter mode nothing changes (13 px, 19 px)."""
    query = "present=1&" if present else ""
    sizes = {}
    for path in ("Multi_head_attention", "Attention_step_by_step"):
        tab = _open(tabs, app_server, f"{app_server.url}/{path}?{query}")
        try:
            tab.wait_for_selector(".katex-display" if "step" in path else ".textpoint text", state="attached",
                                  timeout=TIMEOUT_MS)  # fmt: skip
            sizes[path] = tab.evaluate(SIZES)
        finally:
            tab.close()
    heads, formulas = sizes["Multi_head_attention"]["heads"], sizes["Attention_step_by_step"]["formulas"]
    assert heads and len(formulas) >= 6, sizes
    if present:
        assert min(heads) >= sizes["Multi_head_attention"]["ticks"] >= 18, sizes
        assert min(formulas) >= 1.25 * sizes["Attention_step_by_step"]["text"], sizes
    else:
        assert set(heads) == {13} and max(formulas) < 20, sizes


def test_a_link_with_presenter_mode_keeps_its_parameters(app_server, tabs):
    """Presenter mode moves things, not state: a link's sentence, layer and page parameters still hold."""
    sentence = "The dog ran."
    tab = _open(tabs, app_server, f"{app_server.url}/Encoder_layer?present=1&layer=2&stage=3&"
                         f"s={urllib.parse.quote(sentence)}")
    try:
        query = urllib.parse.parse_qs(urllib.parse.urlparse(tab.url).query)
        assert query["s"] == [sentence] and query["layer"] == ["2"] and query["stage"] == ["3"], query
        assert tab.locator("h2", has_text="Layer 2 of 6").count() == 1
    finally:
        tab.close()
