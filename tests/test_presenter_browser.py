"""What a class sees at 1024 × 768 in presenter mode, and at 1440 × 900, measured in Debian's Chromium
where the figures' layouts alone cannot tell (tests/test_presenter_layout.py checks the layouts).

- Tables: `st.table` text at presenter size, showing the sentence's pieces exactly as typed (no
  Markdown formatting, no links, no HTML).
- Head inspector: every tab of the tab bar on screen (it scrolled, cut after "Predict,"); widget
  values (select boxes, text and number inputs, slider values) at presenter size, also the Q/K/V boxes
  of the worked examples.
- Multi-head attention: all eight "Heads to draw" chips inside their box (4½ showed); Concat · W^O's
  "dimension" clear of the tick numbers (they touched).
- Encoder layer: the legends of tokens show every entry without a scroll bar.
- Figure 3's heatmap: every key labelled, neighbouring labels apart.
- At 1024 × 768 with the sidebar open (not presenter mode): the decoder page's "Next token" label whole
  (it was cut to "Next to…"; also at 1440), Concat · W^O's panel titles apart (two touched).
"""

from __future__ import annotations

import re

import pytest
from server import wait_idle

pytestmark = pytest.mark.timeout(900)

TIMEOUT_MS = 240_000
PRESENTER = {"width": 1024, "height": 768}
DESKTOP = {"width": 1440, "height": 900}
LARGE_PX = 20  # the presenter CSS's 1.35rem is 21.6 px; Streamlit's own widget text is 14 px
SENTENCE = "The <b>cat</b> **sat** on :red[x] at http://example.com today."


@pytest.fixture(scope="module")
def server(app_server):
    """The session's shared server (conftest.py)."""
    return app_server


def _open(tabs, server, path: str, viewport: dict, ready: str):
    """A fresh session on `path`, once the element `ready` is on the page and Streamlit is idle."""
    tab = tabs.new_page(viewport)
    tab.goto(f"{server.url}/{path}", wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    tab.wait_for_selector(ready, state="attached", timeout=TIMEOUT_MS)
    wait_idle(tab, TIMEOUT_MS)
    tab.wait_for_timeout(1_000)  # Plotly's last relayout
    return tab


def test_the_tokens_table_shows_the_pieces_as_typed_at_presenter_size(server, tabs):
    import urllib.parse

    tab = _open(tabs, server, f"Tokens_and_embeddings?present=1&s={urllib.parse.quote(SENTENCE)}",
                         PRESENTER, '[data-testid="stTable"] td')
    try:
        tab.locator("summary", has_text="pieces and their ids").click()  # folded in presenter mode
        table = tab.locator('[data-testid="stTable"]')
        cells = table.locator("tbody tr td:nth-child(2)").all_inner_texts()
        text = re.sub(r"<0x([0-9A-F]{2})>", lambda m: chr(int(m[1], 16)), "".join(cells))  # byte pieces: '*'
        # the pieces as typed; an invisible word joiner (U+2060) keeps "http://" from becoming a link
        assert text.replace("▁", " ").replace("\u2060", "").removesuffix("</s>").strip() == SENTENCE
        assert table.locator("a, strong, b, em, code").count() == 0, "Markdown or HTML in the cells"
        size = table.locator("td").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= LARGE_PX, f"table text {size} px"
        assert tab.locator('[data-testid="stDataFrame"]').count() == 0
    finally:
        tab.close()


def test_the_beam_table_is_a_markdown_table_of_the_candidates_at_presenter_size(server, tabs):
    """The decoder page's beam table (Markdown, `ui.render.markdown_table`): a real table, one row per
    candidate with a rank, the German as plain text (no link, bold or HTML from the model's text), and
    the presenter CSS's size."""
    tab = _open(tabs, server, "Decoder_and_generation?present=1", PRESENTER,
                         '[data-testid="stMarkdown"] table td')
    try:
        table = tab.locator('[data-testid="stMarkdown"] table').first
        ranks = table.locator("tbody tr td:nth-child(1)").all_inner_texts()
        assert ranks == [str(i + 1) for i in range(len(ranks))] and len(ranks) >= 2, ranks
        assert table.locator("th").first.inner_text() == "rank"
        assert table.locator("a, strong, b, em, code").count() == 0, "Markdown or HTML in the cells"
        size = table.locator("td").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= LARGE_PX, f"table text {size} px"
    finally:
        tab.close()


WIDGET_FONTS = """() => [...document.querySelectorAll('input, textarea, [data-testid="stSliderThumbValue"]')]
    .filter(e => e.type !== 'hidden' && e.getAttribute('aria-hidden') !== 'true')
    .map(e => [e.getAttribute('aria-label') || e.getAttribute('data-testid'),
               parseFloat(getComputedStyle(e).fontSize)])"""


TABS = """() => {
  const bar = document.querySelector('[role="tablist"]').getBoundingClientRect();
  return [...document.querySelectorAll('[role="tab"]')].map(t => { const r = t.getBoundingClientRect();
    return [t.innerText, r.left >= bar.left - 1 && r.right <= Math.min(bar.right, innerWidth) + 1]; }); }"""


def test_the_head_inspectors_tabs_and_widget_values_are_on_screen_and_large(server, tabs):
    tab = _open(tabs, server, "Head_inspector?present=1", PRESENTER, '[role="tab"]')
    try:
        tabs = tab.evaluate(TABS)
        assert len(tabs) == 5 and all(shown for _, shown in tabs), f"tabs cut off: {tabs}"
        small = [(name, px) for name, px in tab.evaluate(WIDGET_FONTS) if px < LARGE_PX - 3]
        assert not small, f"widget values at Streamlit's own size in presenter mode: {small}"
    finally:
        tab.close()


def test_the_worked_examples_number_boxes_are_large(server, tabs):
    tab = _open(tabs, server, "Worked_examples?present=1", PRESENTER, "textarea")
    try:
        fonts = tab.evaluate(WIDGET_FONTS)
        boxes = [(name, px) for name, px in fonts if name and name.startswith(("Q ", "K ", "V ", "tokens"))]
        assert len(boxes) >= 4, fonts
        assert all(px >= LARGE_PX for _, px in boxes), boxes
    finally:
        tab.close()


MULTI_HEAD = """() => {
  const box = document.querySelector('[data-testid="stMultiSelectTagsContainer"]').getBoundingClientRect();
  const chips = [...document.querySelectorAll('[data-testid="stMultiSelect"] [data-tag]')].map(t => {
    const r = t.getBoundingClientRect(); return r.left >= box.left - 1 && r.right <= box.right + 1; });
  const gaps = [...document.querySelectorAll('.annotation-text')].filter(a => a.textContent === 'dimension')
    .map(a => { const plot = a.closest('.js-plotly-plot');
      const numbers = [...plot.querySelectorAll('.xtick text, .x2tick text, .x3tick text')]
        .map(t => t.getBoundingClientRect().bottom);
      return a.getBoundingClientRect().top - Math.max(...numbers); });
  return {chips, gaps}; }"""


@pytest.mark.parametrize("viewport, query", [(DESKTOP, ""), (PRESENTER, "?present=1")],
                         ids=["1440", "presenter"])
def test_multi_head_chips_all_show_and_dimension_clears_the_numbers(server, tabs, viewport, query):
    tab = _open(tabs, server, f"Multi_head_attention{query}", viewport, ".annotation-text")
    try:
        found = tab.evaluate(MULTI_HEAD)
        assert len(found["chips"]) == 8 and all(found["chips"]), f"chips cut off: {found['chips']}"
        assert len(found["gaps"]) == 3 and min(found["gaps"]) >= 4, f"'dimension' touches: {found['gaps']}"
    finally:
        tab.close()


def test_the_encoder_layers_legends_do_not_scroll_in_presenter_mode(server, tabs):
    tab = _open(tabs, server, "Encoder_layer?present=1", PRESENTER, ".legend")
    try:
        tab.wait_for_function("() => document.querySelectorAll('.legend').length >= 2", timeout=TIMEOUT_MS)
        tab.wait_for_timeout(1_000)
        bars = tab.evaluate("""() => [...document.querySelectorAll('.legend')].map(l => {
            const bar = l.querySelector('.scrollbar'); return bar ? +bar.getAttribute('height') : 0; })""")
        assert bars and not any(bars), f"a legend scrolls (scroll bar heights {bars})"
    finally:
        tab.close()


FIGURE_3_KEYS = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')]
    .find(p => (p.querySelector('.gtitle')?.textContent || '').startsWith('The same weights as a heatmap'));
  if (!plot) return null;
  const ticks = [...plot.querySelectorAll('.xtick text')];
  const centres = ticks.map(t => { const r = t.getBoundingClientRect(); return r.left + r.width / 2; })
    .sort((a, b) => a - b);
  const spacing = Math.min(...centres.slice(1).map((c, i) => c - centres[i]));
  return {count: ticks.length, size: parseFloat(getComputedStyle(ticks[0]).fontSize), spacing,
          angle: ticks[0].getAttribute('transform')}; }"""


def test_figure_3s_keys_are_labelled_and_apart_in_presenter_mode(server, tabs):
    """37 keys (the paper's sentence) in an 860-px figure: every one labelled, upright, and their
    centres at least 1.2 × their size apart (at −45° and 18 px they touched)."""
    tab = _open(tabs, server, "Paper_figures?present=1", PRESENTER, ".xtick text")
    try:
        tab.wait_for_function(f"() => ({FIGURE_3_KEYS})() !== null", timeout=TIMEOUT_MS)
        keys = tab.evaluate(FIGURE_3_KEYS)
        assert keys["count"] >= 30, keys
        assert keys["size"] >= 12 and "rotate(-90" in (keys["angle"] or ""), keys
        assert keys["spacing"] >= 1.2 * keys["size"] - 1, keys
    finally:
        tab.close()


# ---- outside presenter mode at 1024 × 768, the sidebar open: a main column of about 560 px ---------

SMALL = {"width": 1024, "height": 768}  # the main column is about 560 px wide here
NEXT_TOKEN = 'button:has-text("Next token")'
BUTTON_FIT = """b => ({text: b.innerText.trim(), right: b.getBoundingClientRect().right,
  main: document.querySelector('[data-testid="stMain"]').getBoundingClientRect().right,
  cut: [b, ...b.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth)
    .map(e => [e.tagName, e.scrollWidth, e.clientWidth])})"""


@pytest.mark.parametrize("viewport", [SMALL, DESKTOP], ids=["1024", "1440"])
def test_the_next_token_button_shows_its_whole_label(server, tabs, viewport):
    """The decoder page's "Next token" button, sidebar open: its label was cut to "Next to…" in a
    sixth of the 560-px column at 1024 px. Neither the button nor anything in it may be wider inside
    than it is drawn (an ellipsis keeps the whole text in innerText, so width is what tells)."""
    tab = _open(tabs, server, "Decoder_and_generation", viewport, NEXT_TOKEN)
    try:
        assert tab.locator('[data-testid="stSidebar"][data-collapsed="false"]').count() == 1, "sidebar folded"
        fit = tab.locator(NEXT_TOKEN).first.evaluate(BUTTON_FIT)
        assert fit["text"] == "Next token", fit
        assert not fit["cut"], f"label cut: {fit}"
        assert fit["right"] <= fit["main"] + 1, fit
    finally:
        tab.close()


CONCAT_TITLES = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p =>
    [...p.querySelectorAll('.annotation-text')].some(a => a.textContent.startsWith('Concat(head')));
  if (!plot) return null;
  const boxes = [...plot.querySelectorAll('.annotation-text')]
    .filter(a => /^(Concat\\(head|W\\^O|output)/.test(a.textContent))
    .map(a => { const r = a.getBoundingClientRect();
      return {text: a.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; })
    .sort((a, b) => a.left - b.left);
  return {width: plot.getBoundingClientRect().width, boxes}; }"""


def test_the_concat_panel_titles_stand_apart_in_a_560_px_column(server, tabs):
    """Concat · W^O drawn in the main column at 1024 px with the sidebar open (about 560 px): its three
    panel titles (concat, W^O, output) side by side with a gap, where "15 × 8·16 = 15 × 128" and
    "128 × 128" touched."""
    tab = _open(tabs, server, "Multi_head_attention", SMALL, ".annotation-text")
    try:
        tab.wait_for_function(f"() => ({CONCAT_TITLES})() !== null", timeout=TIMEOUT_MS)
        found = tab.evaluate(CONCAT_TITLES)
        assert found["width"] <= 600, f"drawn {found['width']} px wide, not in a 560-px column"
        boxes = found["boxes"]
        assert len(boxes) == 3, boxes
        gaps = [b["left"] - a["right"] for a, b in zip(boxes, boxes[1:])]
        assert min(gaps) >= 8, f"panel titles touch: gaps {gaps} px, {boxes}"
    finally:
        tab.close()
