"""The app in a real browser: `streamlit run app.py` driven by headless Debian Chromium.

What AppTest cannot see: that every page actually renders in a browser (its Plotly figure drawn,
no exception box, no traceback), that a shared link restores the sentence and the layer/head,
and that the sentence is kept when moving between pages. A screenshot of every page is saved under
artifacts/screenshots/ for a person to look at.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from playwright.sync_api import expect
from server import (
    DRAWN,
    EXCEPTION,
    FIGURE,
    SENTENCE_BOX,
    discover_pages,
    full_screenshot,
    page_url,
    streamlit_server,
    type_sentence,
    wait_idle,
)

pytestmark = pytest.mark.timeout(900)

PAGES = discover_pages()
TIMEOUT_MS = 240_000  # the first page loads the model and translates on a busy 2-core CPU
ERROR_BOX = '[data-testid="stAlertContentError"]'


@pytest.fixture(scope="module")
def server(app_server):
    """The session's shared server (conftest.py)."""
    return app_server


@pytest.fixture
def tab(tabs):
    """A new tab (its own Streamlit session) that records page errors, dialogs and requests that leave
    this machine (the app needs no network: a Material icon as the tab's icon was fetched from
    fonts.gstatic.com)."""
    page = tabs.new_page({"width": 1400, "height": 1000})
    page.js_errors, page.dialogs, page.outside = [], [], []
    local = ("http://127.0.0.1:", "http://localhost:", "data:", "blob:")  # the test servers are local
    page.on("pageerror", lambda err: page.js_errors.append(str(err)))
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda req: None if req.url.startswith(local) else page.outside.append(req.url))
    try:
        yield page
    finally:
        page.close()


def assert_clean(tab, what: str) -> None:
    """No exception box, no traceback text, no error box, no JavaScript error, no dialog."""
    exceptions = tab.locator(EXCEPTION)
    assert exceptions.count() == 0, f"{what}: exception shown:\n{exceptions.first.inner_text()[:2000]}"
    body = tab.inner_text("body")
    assert "Traceback" not in body, f"{what}: traceback text on the page:\n{body[:2000]}"
    errors = tab.locator(ERROR_BOX)
    assert errors.count() == 0, f"{what}: error box on the page: {errors.first.inner_text()[:1000]}"
    assert tab.js_errors == [], f"{what}: JavaScript errors: {tab.js_errors}"
    assert tab.dialogs == [], f"{what}: dialogs opened: {tab.dialogs}"
    outside = getattr(tab, "outside", [])  # recorded by this module's tabs (`tab`)
    assert outside == [], f"{what}: requests that leave this machine: {outside}"


def test_pages_were_discovered():
    files = [p.file for p in PAGES]
    assert (files[0], PAGES[0].script, PAGES[0].url_path) == ("pages/home.py", "app.py", "")
    assert len(set(p.url_path for p in PAGES)) == len(PAGES), f"two pages share a URL: {files}"


MODELS = {"translation": "", "numbers": "model=numbers&s=forty-two"}  # every page, with either model


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("app_page", PAGES, ids=[p.name for p in PAGES])
def test_page_renders(server, tab, app_page, model):
    tab.goto(page_url(server, app_page, MODELS[model]), wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    title = tab.locator("h1").first
    title.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert title.inner_text().strip(), f"{app_page.script}: empty title"
    if app_page.draws_figure:
        tab.wait_for_selector(FIGURE, state="visible", timeout=TIMEOUT_MS)
        # The figure is drawn (not just a placeholder): its SVG exists and has a size.
        svg = tab.locator(DRAWN).first
        svg.wait_for(state="visible", timeout=TIMEOUT_MS)
        box = svg.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 100, f"{app_page.script}: figure is {box}"
    full_screenshot(tab, app_page.name if model == "translation" else f"{app_page.name}-{model}")
    assert_clean(tab, f"{app_page.script} ({model} model)")


def _query(tab) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(tab.url).query))


def test_url_round_trip_home(server, tab):
    """A shared link restores the sentence (in the box) and keeps layer/head in the URL."""
    tab.goto(f"{server.url}/?s=Hello%20world.&layer=2&head=3", wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    tab.locator(SENTENCE_BOX).wait_for(state="visible", timeout=TIMEOUT_MS)
    assert tab.locator(SENTENCE_BOX).input_value() == "Hello world."
    query = _query(tab)
    assert query.get("s") == "Hello world."
    assert (query.get("layer"), query.get("head")) == ("2", "3"), query
    assert_clean(tab, "home via shared link")


def _slider_value(tab, label: str) -> str:
    slider = tab.locator('[data-testid="stSlider"]').filter(has_text=label).first
    return slider.locator('input[type="range"]').input_value()


def test_url_round_trip_attention_page(server, tab):
    """On a page with the layer/head picker, the link's layer 2 / head 3 are what the sliders show."""
    pickers = [p for p in PAGES if p.has_attention_picker and not re.search(r"head\s*=\s*False", p.source)]
    assert pickers, "no page uses ui.sidebar.attention_picker with a head slider (the attention pages should)"
    # The step-by-step page shows the picker at the top; other pages may keep it further down.
    app_page = next((p for p in pickers if "step" in p.url_path.lower()), pickers[0])
    tab.goto(page_url(server, app_page, "s=Hello%20world.&layer=2&head=3"), wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    tab.locator(SENTENCE_BOX).wait_for(state="visible", timeout=TIMEOUT_MS)
    assert tab.locator(SENTENCE_BOX).input_value() == "Hello world."
    assert _slider_value(tab, "Layer") == "2", f"{app_page.script}: layer slider"
    assert _slider_value(tab, "Head") == "3", f"{app_page.script}: head slider"
    query = _query(tab)
    assert (query.get("s"), query.get("layer"), query.get("head")) == ("Hello world.", "2", "3"), query
    assert_clean(tab, f"{app_page.script} via shared link")


def test_model_and_snapshot_survive_a_shared_link(server, tab):
    """A link naming the numbers model and its step-50 weights opens exactly that view."""
    decoder = next(p for p in PAGES if p.url_path == "Decoder_and_generation")
    link = page_url(server, decoder, "model=numbers&snapshot=50&s=forty-two")
    tab.goto(link, wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    tab.locator(SENTENCE_BOX).wait_for(state="visible", timeout=TIMEOUT_MS)
    assert tab.locator(SENTENCE_BOX).input_value() == "forty-two"
    # Only the numbers model ships snapshots: its training-step slider, on step 50, is the proof.
    step = tab.locator('[data-testid="stSlider"]').filter(has_text="Training step").first
    step.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert "step 50" in step.inner_text(), step.inner_text()
    query = _query(tab)
    assert [query.get(k) for k in ("model", "snapshot", "s")] == ["numbers", "50", "forty-two"], query
    assert_clean(tab, "decoder page with the numbers model at step 50")


def test_sentence_kept_between_pages(server, tab):
    """Type on the home page, follow the sidebar link to another page: the sentence comes along."""
    assert len(PAGES) > 1, "only the home page exists"
    sentence = "The cat sat on the mat near the door."
    tab.goto(server.url, wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    type_sentence(tab, sentence, TIMEOUT_MS)
    assert _query(tab).get("s") == sentence
    target = PAGES[1]
    tab.locator(f'[data-testid="stSidebarNav"] a[href$="/{target.url_path}"]').first.click()
    tab.wait_for_url(f"**/{target.url_path}*", timeout=TIMEOUT_MS)
    wait_idle(tab, TIMEOUT_MS)
    tab.locator(SENTENCE_BOX).wait_for(state="visible", timeout=TIMEOUT_MS)
    assert tab.locator(SENTENCE_BOX).input_value() == sentence
    assert_clean(tab, f"{target.script} after navigation")


def test_numbering_anew_keeps_the_heads_a_reader_picked(server, tab):
    """Heads picked, then numbered from 0 and from 1 again: the picker shows the same heads under their
    new numbers, and keeps them. The browser kept a choice by its old labels ("8" does not exist from 0)
    and read it back as other heads, or lost it."""
    tab.goto(f"{server.url}/Multi_head_attention?heads=1,2,4,5,6,7,8", wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    picker = tab.locator('[data-testid="stMultiSelect"]').filter(has_text="Heads to draw").first
    chips = lambda: re.findall(r"^\d+$", picker.inner_text(), re.M)  # noqa: E731
    assert chips() == ["1", "2", "4", "5", "6", "7", "8"]
    sidebar = tab.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Display").first.click()
    for numbering in (["0", "1", "3", "4", "5", "6", "7"], ["1", "2", "4", "5", "6", "7", "8"]):
        sidebar.get_by_text("Number layers and heads from 1").click()
        wait_idle(tab, TIMEOUT_MS)
        tab.wait_for_timeout(500)
        assert chips() == numbering
    assert _query(tab).get("heads") == "1,2,4,5,6,7,8"
    assert_clean(tab, "Multi-head attention after numbering from 0 and from 1 again")


def test_sidebar_has_home_and_the_sections_and_no_deploy_button(server, tab):
    """The navigation of app.py as a reader sees it; `.streamlit/config.toml` hides the Deploy button."""
    tab.goto(server.url, wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    nav = tab.locator('[data-testid="stSidebarNav"]')
    nav.wait_for(state="visible", timeout=TIMEOUT_MS)
    text = nav.inner_text()
    for label in ("Home", "Inputs", "Attention", "The layers", "Generation", "Classroom", "Head inspector"):
        assert label in text, f"{label!r} not in the sidebar:\n{text}"
    assert text.index("Home") < text.index("Inputs") < text.index("Classroom")
    links = nav.locator("a")
    assert links.count() == len(PAGES)
    assert tab.locator('[data-testid="stAppDeployButton"]').count() == 0
    assert_clean(tab, "home page sidebar")


def test_first_visit_on_a_fresh_server_through_a_deep_link(tab):
    """The first session of a new server, opened on a shared link, gets app.py's sidebar and page.

    (Streamlit runs it the legacy `pages/` way until a session has called st.navigation: see
    `ui.legacy_pages`.) The module's server has served other sessions: start anew.
    """
    target = next(p for p in PAGES if p.url_path == "Head_inspector")
    with streamlit_server() as fresh:
        tab.goto(page_url(fresh, target, "s=Hello%20world."), wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        title = tab.locator("h1").first
        title.wait_for(state="visible", timeout=TIMEOUT_MS)
        assert title.inner_text().strip() == "Head inspector"
        nav = tab.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Attention" in nav and "Classroom" in nav and "home" not in nav, nav
        # the legacy-mode run reruns through app.py: wait for that run's box rather than read it once
        expect(tab.locator(SENTENCE_BOX)).to_have_value("Hello world.", timeout=TIMEOUT_MS)
        assert tab.url.split("?")[0].endswith("/Head_inspector")
        assert_clean(tab, "first visit through a deep link")


def test_figure_1_box_opens_its_page(server, tab):
    """On the home page, a click on Figure 1's "Positional Encoding" box opens that page, sentence kept."""
    from viz.architecture import figure1_parts

    parts = figure1_parts()
    index = next(i for i, p in enumerate(parts) if p.label == "Positional Encoding")
    target = next(p for p in PAGES if p.file == parts[index].page)
    tab.goto(f"{server.url}/?s=The%20dog%20runs.", wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    # the click layer: Vega-Lite's last group of rectangles, one invisible rectangle over each box
    boxes = tab.locator('[data-testid="stVegaLiteChart"] g.mark-rect').last.locator("path")
    boxes.nth(index).wait_for(state="attached", timeout=TIMEOUT_MS)
    assert boxes.count() == len(parts)
    boxes.nth(index).click(force=True)
    tab.wait_for_url(f"**/{target.url_path}*", timeout=TIMEOUT_MS)
    wait_idle(tab, TIMEOUT_MS)
    assert tab.locator("h1").first.inner_text().strip() == "Positional encoding"
    assert tab.locator(SENTENCE_BOX).input_value() == "The dog runs."
    assert_clean(tab, f"{target.script} opened from Figure 1")


# Where a Plotly heatmap's matrix ends and its colour bar begins, in px of the page: the heatmap's
# image (Plotly draws a heatmap as one <image>) and the bar's colours.
GAP_SCRIPT = """title => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')]
    .find(p => (p.querySelector('.gtitle')?.textContent || '').includes(title));
  if (!plot) return null;
  const matrix = plot.querySelector('.hm image').getBoundingClientRect();
  const bar = plot.querySelector('.colorbar .cbfills').getBoundingClientRect();
  return {matrix_right: matrix.right, bar_left: bar.left, matrix_width: matrix.width,
          figure_width: plot.getBoundingClientRect().width};
}"""


@pytest.mark.parametrize("query", ["", "model=numbers&s=forty-two"])
def test_cross_attention_colour_bar_stands_beside_its_matrix(server, tab, query):
    """No wide gap between a cross-attention heatmap and its colour bar (tests/test_heatmap_layout.py
    reads it from the layout). On the decoder page at 1400 px, the average cross-attention's bar starts
    within a few px of its matrix, and the matrix is not a stamp (both models: 15 × 15 pieces and the
    numbers model's 4 × 4)."""
    target = next(p for p in PAGES if p.url_path == "Decoder_and_generation")
    tab.goto(page_url(server, target, query), wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    title = "cross-attention, average of the heads"
    tab.wait_for_function(f"() => ({GAP_SCRIPT})({title!r}) !== null", timeout=TIMEOUT_MS)
    tab.wait_for_timeout(500)  # Plotly's last relayout
    box = tab.evaluate(f"({GAP_SCRIPT})({title!r})")
    gap = box["bar_left"] - box["matrix_right"]
    assert 0 <= gap <= 12, f"{gap:.0f} px between the matrix and its colour bar: {box}"
    assert box["matrix_width"] >= 230, f"the matrix is {box['matrix_width']:.0f} px wide: {box}"
    assert_clean(tab, f"decoder page {query}")
