"""Many users at once against one real `streamlit run` server (a class sharing one machine).

Six browser sessions (Playwright contexts in one headless Chromium), all six connected and working at
the same time, each typing its own sentence on the home page and then opening other pages from the
sidebar's page list, six pages at once, every page at least once (the sentence travels in the session;
shared links are tested in test_browser.py). Every session must see only its own sentence and no error; the
server's memory must stay bounded; and afterwards the shared model must still translate exactly like a freshly
loaded copy (nothing any session did changed it). RSS figures are written to
artifacts/load_test.json; the real memory targets are measured in bench/app.py.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from server import (
    APP_IDLE,
    ARTIFACTS,
    EXCEPTION,
    ROOT,
    SENTENCE_BOX,
    discover_pages,
    server_rss_mb,
    streamlit_server,
    wait_idle,
)

pytestmark = pytest.mark.timeout(1800)

PAGES = discover_pages()
WAVES, AT_ONCE = 1, 6  # 6 sessions at once, each on one page then another (bench/class_at_once.py times 30)
RSS_LIMIT_MB = 1500  # a generous sanity bound; bench/app.py measures the real target
TIMEOUT_MS = 900_000
SENTENCES = [
    "The teacher opened the window because the room was warm.",
    "My sister bought a red bicycle last summer.",
    "We will meet at the station tomorrow morning.",
    "The old man walked slowly across the bridge.",
    "Children like to play in the garden after school.",
    "The train to Berlin leaves at eight o'clock.",
    "She wrote a long letter to her grandmother.",
    "This book explains how computers store numbers.",
    "The museum is closed on Mondays.",
    "Please turn off the lights when you leave.",
    "The dog barked at the postman every day.",
    "Our neighbours planted three apple trees.",
    "He forgot his umbrella at the restaurant.",
    "The river flows through the middle of the city.",
    "I would like a cup of tea, please.",
    "The students asked many questions about the exam.",
    "A small boat crossed the lake at sunset.",
    "The doctor told him to rest for a week.",
    "They painted the kitchen walls yellow.",
    "The weather will be cold and windy tonight.",
]
LINK_HAS = "s => new URLSearchParams(location.search).get('s') === s"
CONTROL = "The farmer sold his cows at the market."


def _query(tab) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(tab.url).query))


def check_session(tab, own: str, others: list[str], where: str) -> None:
    box = tab.locator(SENTENCE_BOX)
    box.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert box.input_value() == own, f"{where}: the box shows {box.input_value()!r}, not its own sentence"
    assert _query(tab).get("s") == own, f"{where}: the link carries {_query(tab).get('s')!r}"
    exceptions = tab.locator(EXCEPTION)
    assert exceptions.count() == 0, f"{where}: exception: {exceptions.first.inner_text()}"
    body = tab.inner_text("body")
    assert "Traceback" not in body, f"{where}: traceback shown"
    leaked = [s for s in others if s in body]
    assert not leaked, f"{where}: another session's sentence is shown: {leaked}"


def greedy_text_on_home(tab) -> str:
    column = tab.locator('[data-testid="stColumn"]').filter(has_text="Greedy").first
    return column.locator('[data-testid="stText"]').first.inner_text().strip()


def reference_greedy(sentence: str) -> str:
    """The greedy translation by a freshly loaded copy of the shipped model, in this process."""
    import torch

    from transformer.decoding import greedy_decode
    from transformer.inputs import encode_source
    from transformer.pretrained import load_pretrained

    with torch.no_grad():
        lm = load_pretrained(ROOT / "pretrained")
        src = encode_source(lm.tokenizer, sentence)
        return lm.tokenizer.decode(greedy_decode(lm.model, src.ids).ids).strip()


def test_a_class_of_sessions_at_once(browser):
    assert len(PAGES) > 1, "only the home page exists: nothing to switch to"
    targets = PAGES[1:]
    assert WAVES * AT_ONCE <= len(SENTENCES), "each session its own sentence"
    report: dict = {"sessions": WAVES * AT_ONCE, "at_once": AT_ONCE}
    with streamlit_server() as server:
        # Warm up: one session loads the model; that is the baseline memory.
        warm = browser.new_context()
        tab = warm.new_page()
        tab.goto(server.url, wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        warm.close()
        report["rss_before_mb"] = round(server_rss_mb(server), 1)
        peak = report["rss_before_mb"]
        for wave in range(WAVES):
            mine = SENTENCES[wave * AT_ONCE : (wave + 1) * AT_ONCE]
            contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in mine]
            tabs = [c.new_page() for c in contexts]
            try:
                for t in tabs:  # all connect before any is waited on
                    t.goto(server.url, wait_until="domcontentloaded")
                for t in tabs:
                    wait_idle(t, TIMEOUT_MS)
                    t.locator(SENTENCE_BOX).wait_for(state="visible", timeout=TIMEOUT_MS)
                for t, sentence in zip(tabs, mine):  # all type before any is waited on
                    t.locator(SENTENCE_BOX).fill(sentence)
                    t.locator(SENTENCE_BOX).press("Control+Enter")
                for i, (t, sentence) in enumerate(zip(tabs, mine)):
                    t.wait_for_function(LINK_HAS, arg=sentence, timeout=TIMEOUT_MS)
                    # the link carries the sentence: the run it started is under way or over (no need
                    # for wait_idle's pause for a rerun that has yet to begin), wait for its end
                    t.wait_for_selector(APP_IDLE, state="attached", timeout=TIMEOUT_MS)
                    others = [s for s in SENTENCES if s != sentence]
                    check_session(t, sentence, others, f"session {wave}.{i} home")
                peak = max(peak, server_rss_mb(server))
                for first in range(0, len(targets), AT_ONCE):  # every page, AT_ONCE pages at once
                    going = list(zip(tabs, mine, targets[first : first + AT_ONCE]))
                    for t, _, target in going:  # switch pages as a student does: the sidebar's page list
                        link = t.locator(f'[data-testid="stSidebarNav"] a[href$="/{target.url_path}"]').first
                        link.click(timeout=TIMEOUT_MS)  # sessions at once on 2 cores: not Playwright's 30 s
                    for i, (t, sentence, target) in enumerate(going):
                        t.wait_for_url(f"**/{target.url_path}*", timeout=TIMEOUT_MS)
                        wait_idle(t, TIMEOUT_MS)
                        check_session(
                            t,
                            sentence,
                            [s for s in SENTENCES if s != sentence],
                            f"session {wave}.{i} on {target.script}",
                        )
                    peak = max(peak, server_rss_mb(server))
            finally:
                for c in contexts:
                    c.close()
        report["rss_peak_mb"] = round(peak, 1)
        report["rss_after_mb"] = round(server_rss_mb(server), 1)
        # The shared model after all that: same translation as a fresh copy, on a sentence no one typed.
        check = browser.new_context()
        tab = check.new_page()
        tab.goto(f"{server.url}/?{urllib.parse.urlencode({'s': CONTROL})}", wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        served = greedy_text_on_home(tab)
        check.close()
    expected = reference_greedy(CONTROL)
    report["control_translation_matches"] = served == expected
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "load_test.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(json.dumps(report))
    assert served == expected, f"the shared model changed: server says {served!r}, a fresh copy {expected!r}"
    assert report["rss_peak_mb"] < RSS_LIMIT_MB, report
    assert report["rss_after_mb"] < RSS_LIMIT_MB, report
