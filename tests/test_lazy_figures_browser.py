"""The decoder page draws what a new session sees and the rest when opened (a shorter cold wait), in
headless Chromium: a closed expander or tab draws no figure, and opening one draws its figure."""

from __future__ import annotations

from server import DRAWN, PLOTLY_CHART, wait_idle

TIMEOUT_MS = 300_000
CHART = PLOTLY_CHART  # not the hidden chart under the title (ui.frame.load_plotly)


def test_decoder_page_draws_closed_figures_only_when_opened(app_server, tabs):
    server = app_server  # the session's shared server (conftest.py); this test's own tab
    tab = tabs.new_page({"width": 1440, "height": 900})
    try:
        tab.goto(f"{server.url}/Decoder_and_generation?model=numbers", wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        tab.wait_for_selector(DRAWN, state="visible", timeout=TIMEOUT_MS)
        main = tab.locator('[data-testid="stMain"]')
        charts = main.locator(CHART)
        # on a loaded machine the page can be idle between the first deep link's run and its rerun
        tab.wait_for_function(f"() => document.querySelectorAll('{CHART}').length >= 4", timeout=TIMEOUT_MS)
        wait_idle(tab, TIMEOUT_MS)
        assert charts.count() == 4  # masked self, cross average, next-token bars, the newest cross row

        main.get_by_text("Cross-attention head by head").click()  # an expander: opened, its grid drawn
        tab.wait_for_function(f"() => document.querySelectorAll('{CHART}').length === 5", timeout=TIMEOUT_MS)
        wait_idle(tab, TIMEOUT_MS)
        tab.get_by_role("tab", name="Self-attention, this layer").click()  # one tab's figure at a time
        wait_idle(tab, TIMEOUT_MS)
        tab.wait_for_function(
            f"() => [...document.querySelectorAll('{CHART} .gtitle')].some(t => "
            "t.textContent.includes('new self-attention row'))", timeout=TIMEOUT_MS)
        assert charts.count() == 5
        assert not tab.locator('[data-testid="stException"]').count()
    finally:
        tab.close()
