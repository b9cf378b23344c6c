""""Why these choices?" in headless Chromium: every shipped variant drawn beside the paper's model,
with no exception, error box or JavaScript error, and the page's statement naming its numbers."""

from __future__ import annotations

import urllib.parse

import pytest
from server import DRAWN, wait_idle
from test_browser import assert_clean

from ui import ablations

pytestmark = pytest.mark.timeout(900)
TIMEOUT_MS = 240_000


def test_every_variant_renders_in_chromium(app_server, tabs):
    scores, _ = ablations.read_scores()
    pairs = [(key, v) for key, c in ablations.CHOICES.items() for v in c.variants if v in scores]
    assert len(pairs) >= 10
    server = app_server  # the session's shared server (conftest.py)
    tab = tabs.new_page({"width": 1400, "height": 1000})
    try:
        tab.js_errors, tab.dialogs = [], []
        tab.on("pageerror", lambda err: tab.js_errors.append(str(err)))
        for key, variant in pairs:
            query = urllib.parse.urlencode({"choice": key, "variant": variant})
            tab.goto(f"{server.url}/Why_these_choices?{query}", wait_until="domcontentloaded")
            wait_idle(tab, TIMEOUT_MS)
            # The page idle is not every figure drawn: Plotly draws after the script ends.
            tab.wait_for_function(
                "([selector, n]) => document.querySelectorAll(selector).length >= n",
                arg=[DRAWN, 4],
                timeout=TIMEOUT_MS,
            )
            assert tab.locator(DRAWN).count() >= 4, variant
            body = tab.inner_text("body")
            assert f"{scores[variant]['exact_match']['mean']:.1f}%" in body, variant
            assert_clean(tab, f"Why these choices? ({variant})")
    finally:
        tab.close()
