"""Heads, layers and hovered tokens switched in headless Chromium (ui/live.js): the browser draws the
new layer or head before the server's rerun, and what it draws is what the server draws after it."""

from __future__ import annotations

import pytest
from server import DRAWN, streamlit_server, wait_idle
from test_browser import assert_clean

pytestmark = pytest.mark.timeout(900)
TIMEOUT_MS = 240_000
# What a figure shows: its title and its numbers
SHOWN_JS = r"""(key) => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  const t = gd._fullData[0];  // as drawn: arrays decoded
  // a heatmap's first matrix; else every trace's points, widths and colours (the head view's lines)
  const values = t.z ? Array.from(t.z, (row) => Array.from(row)) : [];
  const drawn = t.z ? "" : JSON.stringify(gd._fullData.map((d) => [Array.from(d.x || []),
    Array.from(d.y || []), d.line, d.marker, d.opacity]));
  // Streamlit's chart theme wraps a title in <b> once or twice, depending on how often it drew it
  const title = gd.layout.title.text.replace(/<\/?b>/g, "");
  return {title, values, drawn, ours: gd.__atlasShown ?? null};
}"""
SETTLED_JS = """() => document.querySelector('[data-testid="stApp"]')
  .getAttribute('data-test-script-state') === 'notRunning'"""


def flat(rows: list) -> list:
    return [v for row in rows for v in row]


def open_page(tab, url: str) -> None:
    tab.goto(url, wait_until="domcontentloaded")
    wait_idle(tab, TIMEOUT_MS)
    tab.locator(DRAWN).first.wait_for(state="visible", timeout=TIMEOUT_MS)
    tab.wait_for_timeout(1000)  # the switcher mounted after the figures


def step_and_compare(tab, label: str, key: str, figure: str, want_sel: str,
                     also: tuple[str, ...] = ()) -> dict:
    """Press `key` on the slider `label`; the figure `figure` shows the new selection drawn by the
    browser (before the rerun), and the same numbers and title once the server has redrawn it; so do
    the figures `also` (their numbers). Returns the figures the browser changed itself for that
    selection (figure key -> ms)."""
    slider = tab.locator(f'[data-testid="stSlider"]:has-text("{label}") input[type="range"]').first
    before = tab.evaluate(SHOWN_JS, figure)
    others = [tab.evaluate(SHOWN_JS, name) for name in also]
    slider.focus()
    slider.press(key)
    tab.wait_for_function(
        "(sel) => window.atlasLiveDrawn && window.atlasLiveDrawn.sel === sel",
        arg=want_sel,
        timeout=TIMEOUT_MS,
    )
    live = tab.evaluate(SHOWN_JS, figure)
    assert (live["values"], live["drawn"]) != (before["values"], before["drawn"])
    assert live["title"] != before["title"]
    others_live = [tab.evaluate(SHOWN_JS, name) for name in also]
    assert all(o["values"] != n["values"] for o, n in zip(others, others_live))
    tab.wait_for_timeout(1500)  # the rerun started by the slider
    tab.wait_for_function(SETTLED_JS, timeout=TIMEOUT_MS)
    tab.wait_for_timeout(500)
    server = tab.evaluate(SHOWN_JS, figure)
    assert server["title"] == live["title"] and server["drawn"] == live["drawn"]
    assert flat(live["values"]) == pytest.approx(flat(server["values"]), rel=1e-5, abs=1e-6, nan_ok=True)
    for name, shown in zip(also, others_live):
        server_values = flat(tab.evaluate(SHOWN_JS, name)["values"])
        assert server_values == pytest.approx(flat(shown["values"]), rel=1e-5, abs=1e-6)
    # the figures the browser itself changed for this selection (set once, before the rerun's redraw)
    return tab.evaluate("() => window.atlasLiveDrawn.took")


QUERY_BOX = "[class*='st-key-steps_query_'] input[role=combobox]"
FRAMES_JS = """() => Object.fromEntries(['steps_qk', 'steps_pattern', 'steps_qkv'].map((k) => [k,
  document.querySelector(`.st-key-${k} .js-plotly-plot`).layout.shapes
    .filter((s) => s.name === 'atlas-query').map((s) => s.y0)]))"""


def follow_and_compare(tab, choose, want: int, name: str) -> None:
    """`choose(box)` picks query `want` (0-based, named `name`) in the step-by-step page's query box: the
    browser moves every frame to its row and draws its journey before the rerun, and the server then
    draws the same."""
    box = tab.locator(QUERY_BOX).first
    choose(box)
    tab.wait_for_function(
        "(q) => window.atlasLiveDrawn && window.atlasLiveDrawn.query === q", arg=want, timeout=TIMEOUT_MS
    )
    live = tab.evaluate(SHOWN_JS, "steps_journey")
    terms = tab.evaluate(SHOWN_JS, "steps_neuron")  # the followed query's q · k, term by term
    # drawn by the browser (the rerun may have drawn them again since: their numbers are compared below)
    took = tab.evaluate("() => window.atlasLiveDrawn.took")
    assert {"steps_journey", "steps_neuron", "steps_pattern", "steps_mask"} <= set(took), took
    assert live["title"].startswith(f"Query {name}:") and terms["title"].startswith(f"Query {name}:")
    frames = tab.evaluate(FRAMES_JS)
    assert frames == {k: [want - 0.5] for k in frames}, frames
    tab.wait_for_timeout(1500)  # the rerun started by the box
    tab.wait_for_function(SETTLED_JS, timeout=TIMEOUT_MS)
    tab.wait_for_timeout(500)
    server = tab.evaluate(SHOWN_JS, "steps_journey")
    assert server["ours"] is None  # drawn again by the server
    assert (server["title"], server["drawn"]) == (live["title"], live["drawn"])
    server_terms = tab.evaluate(SHOWN_JS, "steps_neuron")
    assert server_terms["title"] == terms["title"]
    assert flat(server_terms["values"]) == pytest.approx(flat(terms["values"]), rel=1e-5, abs=1e-6)
    assert tab.evaluate(FRAMES_JS) == frames
    assert f"q={want}" in tab.url


def pick_token_and_compare(tab, name: str, want: int) -> None:
    """The multi-head page's Query token box: the head view's lines for token `want` (0-based, named
    `name`) drawn by the browser before the rerun, and the same drawn by the server after it."""
    before = tab.evaluate(SHOWN_JS, "mh_head_view")
    click_option(name)(tab.locator(".st-key-mh_token input[role=combobox]").first)
    tab.wait_for_function(
        "(q) => window.atlasLiveDrawn && window.atlasLiveDrawn.query === q", arg=want, timeout=TIMEOUT_MS
    )
    assert "mh_head_view" in tab.evaluate("() => window.atlasLiveDrawn.took")
    live = tab.evaluate(SHOWN_JS, "mh_head_view")
    assert live["drawn"] != before["drawn"]
    tab.wait_for_timeout(1500)  # the rerun started by the box
    tab.wait_for_function(SETTLED_JS, timeout=TIMEOUT_MS)
    tab.wait_for_timeout(500)
    server = tab.evaluate(SHOWN_JS, "mh_head_view")
    assert (server["title"], server["drawn"]) == (live["title"], live["drawn"])
    assert f"tok={want}" in tab.url


def click_option(name: str):
    def choose(box) -> None:
        box.click()
        box.page.locator("[role=option]", has_text=name).first.click()

    return choose


def arrows_to(name: str):
    """Down arrows in the box until its option `name` is the active one, then Enter."""

    def choose(box) -> None:
        box.focus()
        active = "() => document.getElementById(document.querySelector(\"" + QUERY_BOX + "\")" \
            ".getAttribute('aria-activedescendant') || '')?.textContent.trim() ?? null"
        for _ in range(30):
            box.press("ArrowDown")
            if tab_eval(box, active) == name:
                break
        box.press("Enter")

    return choose


def tab_eval(locator, js: str):
    return locator.page.evaluate(js)


GRID_JS = "document.querySelector('.st-key-mh_grid .js-plotly-plot')"  # the heads grid's plot


def hover_a_heads_grid(tab) -> None:
    """Hovering a cell of head 2's panel of the heads grid (one heatmap, a panel per head) names its
    query and key within the panel, and lights that row and column in every head's panel."""
    tab.locator(".st-key-mh_grid .js-plotly-plot").first.scroll_into_view_if_needed()
    panels = tab.evaluate(f"() => {GRID_JS}.layout.meta.panels")
    step_q, step_k = panels["step"]
    # head 2 (the second panel of the first row): query 1, key 2, at its cell's centre on the page
    x, y = tab.evaluate(
        f"""([row, col]) => {{ const gd = {GRID_JS};
        const [xa, ya, box] = [gd._fullLayout.xaxis, gd._fullLayout.yaxis, gd.getBoundingClientRect()];
        return [box.left + xa._offset + xa.l2p(col), box.top + ya._offset + ya.l2p(row)]; }}""",
        [1, step_k + 2],
    )
    tab.mouse.move(x, y)
    tab.wait_for_function(
        "() => window.atlasLiveHover && window.atlasLiveHover.query === 1 && window.atlasLiveHover.key === 2",
        timeout=30_000,
    )
    label = tab.locator(".st-key-mh_grid .hoverlayer .hovertext").first
    label.wait_for(state="attached", timeout=30_000)
    assert label.text_content().startswith("head 2")  # the head's number travels as one byte a cell
    shapes = tab.evaluate(f"() => {GRID_JS}.layout.shapes")
    lit = [[s["x0"], s["x1"], s["y0"], s["y1"]] for s in shapes if s.get("name") == "atlas-hover"]
    (n_q, n_k), cols = panels["size"], panels["grid"][1]
    want = []
    for h in range(len(panels["heads"])):
        top, left = h // cols * step_q, h % cols * step_k
        want.append([left - 0.5, left + n_k - 0.5, top + 0.5, top + 1.5])  # the query's row in the panel
        want.append([left + 1.5, left + 2.5, top - 0.5, top + n_q - 0.5])  # the key's column
    assert sorted(lit) == sorted(want)
    tab.mouse.move(5, 5)  # off the figure: the lights go out
    tab.wait_for_function("() => window.atlasLiveHover.query === null", timeout=30_000)


# What the multi-head page's typed arrays decode to in the browser: the heads grid's head numbers (its
# hover text), the model view's thumbnails without token labels (a long sentence), W^O in 10⁻⁴ units
TYPED_JS = """() => { const fig = (k) => document.querySelector(`.st-key-${k} .js-plotly-plot`)._fullData;
  const grid = fig('mh_grid')[0], views = fig('mh_model_view'), wo = fig('mh_concat')[1];
  return {first: Number(grid.text[0][0]), views: views.length, rows: views[0].z.length,
          hover: views[0].hovertemplate, wo: Array.from(wo.z[0]).slice(0, 4)}; }"""


def test_a_long_sentence_draws_the_multi_head_page_from_typed_arrays(browser):
    from urllib.parse import quote

    from server import CAP_SENTENCE

    with streamlit_server() as server:
        context = browser.new_context(viewport={"width": 1440, "height": 9000})  # every figure drawn
        tab = context.new_page()
        tab.js_errors, tab.dialogs = [], []
        tab.on("pageerror", lambda err: tab.js_errors.append(str(err)))
        open_page(tab, f"{server.url}/Multi_head_attention?s={quote(CAP_SENTENCE)}")
        for key in ("mh_grid", "mh_model_view", "mh_concat"):
            tab.locator(f".st-key-{key} .js-plotly-plot").first.wait_for(state="visible", timeout=TIMEOUT_MS)
        got = tab.evaluate(TYPED_JS)
        assert got["first"] == 1  # head 1's panel: its number, decoded from uint8
        assert got["views"] == 48 and got["rows"] == 61 and "query at %{y}" in got["hover"]  # 60 pieces, </s>
        assert all(isinstance(v, int) and abs(v) < 32768 for v in got["wo"]) and any(got["wo"])
        assert_clean(tab, "a sentence at the cap")
        context.close()


def test_heads_layers_and_hover_switch_in_the_browser(browser):
    with streamlit_server() as server:
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        tab = context.new_page()
        tab.js_errors, tab.dialogs = [], []
        tab.on("pageerror", lambda err: tab.js_errors.append(str(err)))

        open_page(tab, f"{server.url}/Attention_step_by_step?layer=2&head=1")  # 1-based in the URL
        # drawn by the browser: the figure was changed by ui/live.js, not (yet) by the server
        assert "steps_qk" in step_and_compare(tab, "Head", "ArrowRight", "steps_qk", "1,1")
        step_and_compare(tab, "Layer", "ArrowRight", "steps_pattern", "2,1")
        assert "layer=3" in tab.url and "head=2" in tab.url  # the server heard the final choice

        # hovering a softmax cell lights its query row and key column in the figures around it
        area = tab.locator(".st-key-steps_pattern .js-plotly-plot .nsewdrag").first
        area.scroll_into_view_if_needed()
        box = area.bounding_box()
        n = tab.evaluate(
            "() => document.querySelector('.st-key-steps_pattern .js-plotly-plot')._fullData[0].z.length"
        )
        tab.mouse.move(
            box["x"] + 2.5 * box["width"] / n, box["y"] + 1.5 * box["height"] / n
        )  # query 1, key 2
        tab.wait_for_function(
            "() => window.atlasLiveHover && window.atlasLiveHover.query === 1", timeout=30_000
        )
        assert tab.evaluate("() => [window.atlasLiveHover.query, window.atlasLiveHover.key]") == [1, 2]
        lit = tab.evaluate("""() => Object.fromEntries(['steps_qk', 'steps_qkv', 'steps_z'].map(k => [k,
            (document.querySelector(`.st-key-${k} .js-plotly-plot`).layout.shapes || [])
              .filter(s => s.name === 'atlas-hover').map(s => [s.yref, s.y0 ?? null, s.x0 ?? null])]))""")
        assert ["y", 0.5, 0] in lit["steps_qk"] and ["y domain", 0, 1.5] in lit["steps_qk"]  # row 1, column 2
        assert ["y2", 1.5, 0] in lit["steps_qkv"]  # K's row of key 2
        assert lit["steps_z"] == [["y", 0.5, 0]]  # Z: the query's row only
        tab.mouse.move(box["x"] - 60, box["y"] - 60)
        tab.wait_for_function("() => window.atlasLiveHover.query === null", timeout=30_000)

        # another followed query: its frame and its journey drawn in the browser, by a click or the keys
        # (every figure in view: all are drawn in the browser at once, before the rerun can draw any)
        tab.set_viewport_size({"width": 1440, "height": 9000})
        open_page(tab, f"{server.url}/Attention_step_by_step?q=2&layer=1&head=2")
        assert tab.evaluate(FRAMES_JS)["steps_qk"] == [1.5]
        follow_and_compare(tab, click_option("animal"), 1, "animal")
        follow_and_compare(tab, arrows_to("didn"), 2, "didn")
        # another head, with a query followed: its terms multiplied out in the browser
        took = step_and_compare(tab, "Head", "ArrowRight", "steps_qk", "0,2", also=("steps_neuron",))
        assert "steps_neuron" in took
        tab.set_viewport_size({"width": 1440, "height": 900})

        open_page(tab, f"{server.url}/Multi_head_attention?layer=1")
        step_and_compare(tab, "Layer", "ArrowRight", "mh_grid", "1")
        step_and_compare(tab, "Layer", "ArrowRight", "mh_head_view", "2")
        hover_a_heads_grid(tab)
        # another query token (every figure in view: drawn at once, before the rerun can draw any)
        tab.set_viewport_size({"width": 1440, "height": 9000})
        pick_token_and_compare(tab, "animal", 1)
        tab.set_viewport_size({"width": 1440, "height": 900})

        # the decoder: its masked self-attention follows the head, its cross-attention the layer only
        open_page(tab, f"{server.url}/Decoder_and_generation?layer=1&head=1")
        assert "dec_self" in step_and_compare(tab, "Head", "ArrowRight", "dec_self", "0,1")
        cross = tab.evaluate(SHOWN_JS, "dec_cross_avg")
        assert cross["ours"] is None  # the head does not change it: left as the server drew it
        assert "dec_cross_avg" in step_and_compare(tab, "Decoder layer", "ArrowRight", "dec_cross_avg", "1,1")
        assert "layer=2" in tab.url and "head=2" in tab.url

        # the head inspector: the map's frame moves to the new head before the rerun, and the head beside
        # its layer's mean and rollout (in a closed tab) is changed too, as the server then draws it
        open_page(tab, f"{server.url}/Head_inspector?layer=1&head=1")
        frame_js = "() => document.querySelector('.st-key-hi_map .js-plotly-plot').layout.shapes[0].y0"
        assert tab.evaluate(frame_js) == -0.5
        step_and_compare(tab, "Layer", "ArrowRight", "hi_rollout", "1,0")
        assert tab.evaluate(frame_js) == 0.5  # layer 2 (0-based 1), drawn by the browser and then the server
        assert "layer=2" in tab.url
        assert_clean(tab, "live switching")
        context.close()
