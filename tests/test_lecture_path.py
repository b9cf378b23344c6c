"""The lecture path: Home's "Start here" opens its first page, and every page on it ends with Back and
Next to its neighbours in app.py's `LECTURE_PATH` order and its step number, in links that keep the
reader's sentence and shared selection (`ui.lecture`).

The Back and Next of every page are checked with the page itself not run (app.py draws them after it):
cheap, and the same links. One real page checks that they come last and carry what the reader typed,
one emptied page that a page which stops early still has them, and Home runs for real.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
import streamlit as st
from server import ROOT, lecture_path, navigation
from streamlit.testing.v1 import AppTest

from ui import lecture, state

TIMEOUT = 300
pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py: the app's model runs in-process


def _steps() -> tuple[lecture.Step, ...]:
    """The path as app.py builds it (a KeyError here: the path names a page the navigation lacks)."""
    return lecture.steps(navigation(), lecture_path())


def test_the_path_and_the_navigation_list_the_same_pages():
    """Every page of the sidebar but Home is on the path once, and the path names no other page."""
    path = lecture_path()
    listed = [url for entries in navigation().values() for _file, _title, _icon, url in entries if url]
    assert len(path) == len(set(path)), f"a page is on the path twice: {path}"
    assert sorted(path) == sorted(listed), {"not on the path": set(listed) - set(path),
                                            "not in the navigation": set(path) - set(listed)}
    assert "" not in path  # Home is where the path starts from, not a step of it


def test_the_path_follows_the_paper():
    """Inputs (§3.4, §3.5), then attention (§3.2.1, §3.2.2), the layers, the decoder, and so on."""
    assert lecture_path()[:6] == ["Tokens_and_embeddings", "Positional_encoding", "Attention_step_by_step",
                                  "Multi_head_attention", "Encoder_layer", "Decoder_and_generation"]


def test_neighbours_stop_at_either_end_and_off_the_path():
    steps = _steps()
    first, second, last = (lecture.Place(steps, steps[i].url) for i in (0, 1, -1))
    assert first.neighbours() == (None, steps[1]) and first.index == 0
    assert second.neighbours() == (steps[0], steps[2])
    assert last.neighbours() == (steps[-2], None) and last.index == len(steps) - 1
    assert lecture.Place(steps, "").neighbours() == (None, None)  # Home


class _Skipped:
    """The page st.navigation chose, not run (app.py still draws Back and Next after it)."""

    def __init__(self, page) -> None:
        self.url_path = page.url_path

    def run(self) -> None:
        pass


def _app(monkeypatch, **params: str) -> AppTest:
    real = st.navigation
    monkeypatch.setattr(st, "navigation", lambda pages, **options: _Skipped(real(pages, **options)))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(params)
    return at


def _links(at: AppTest) -> dict[str, tuple[str, dict]]:
    """The main column's page links: label -> (URL path, query parameters)."""
    return {link.value: (link.proto.page, parse_qs(link.proto.query_string))
            for link in at.main.get("page_link")}  # fmt: skip


def _walk(node):
    """The elements under `node`, in the order the page drew them."""
    children = getattr(node, "children", None)
    if children is None:
        yield node
        return
    for key in sorted(children):
        yield from _walk(children[key])


def _expected(index: int) -> dict[str, str]:
    """label -> URL path of the Back and Next links of the page at `index`."""
    steps = _steps()
    links = {}
    if index > 0:
        links[f"← Back: {steps[index - 1].title}"] = steps[index - 1].url
    if index + 1 < len(steps):
        links[f"Next: {steps[index + 1].title} →"] = steps[index + 1].url
    return links


def test_every_page_on_the_path_links_back_and_next_to_its_neighbours(monkeypatch):
    steps = _steps()
    at = _app(monkeypatch)
    for index, step in enumerate(steps):
        at.switch_page(step.file)
        at.run()
        assert not at.exception, (step.url, [e.message for e in at.exception])
        found = {label: url for label, (url, _params) in _links(at).items()}
        assert found == _expected(index), step.url
        assert [c.value for c in at.main.caption if c.value.startswith("Step ")] == [
            f"Step {index + 1} of {len(steps)} on the lecture path (the paper's order)"
        ], step.url


def test_the_links_keep_the_shared_view_and_leave_the_pages_own_state(monkeypatch):
    """A link opened in a new tab shows the same sentence, head, model; a page's own `tokens` stays."""
    at = _app(monkeypatch, s="A cat sat.", head="3", model="numbers", tokens="2")
    at.switch_page("pages/Encoder_layer.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    for label, (_url, params) in _links(at).items():
        assert params == {"s": ["A cat sat."], "head": ["3"], "model": ["numbers"]}, label


def test_a_real_page_ends_with_the_links_and_they_carry_the_typed_sentence():
    steps = _steps()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/Tokens_and_embeddings.py")
    at.run()
    at.sidebar.text_area(key="atlas_sentence_box").input("The dog slept.").run()
    assert not at.exception, [e.message for e in at.exception]
    links = _links(at)
    assert {label: url for label, (url, _p) in links.items()} == _expected(0)
    assert all(params["s"] == ["The dog slept."] for _url, params in links.values())
    last = [e.type for e in _walk(at.main)][-3:]  # the foot of the page: the first has no Back
    assert last == ["divider", "caption", "page_link"], last
    assert list(_walk(at.main))[-1].value == f"Next: {steps[1].title} →"


def test_a_page_that_stops_for_an_empty_sentence_still_has_back_and_next():
    steps = _steps()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["s"] = " "
    index = lecture_path().index("Positional_encoding")
    at.switch_page(steps[index].file)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Type an English sentence" in i.value for i in at.info)
    assert {label: url for label, (url, _p) in _links(at).items()} == _expected(index)


def test_home_starts_the_path_and_has_a_sentence_box_in_its_main_column():
    steps = _steps()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.message for e in at.exception]
    start = [link for link in at.main.get("page_link") if "Start here" in link.value]
    assert len(start) == 1 and start[0].proto.page == steps[0].url, list(_links(at))
    assert steps[0].title in start[0].value
    assert not any(label.startswith(("← Back", "Next:")) for label in _links(at))  # Home is no step
    main_box = at.main.text_area(key="atlas_home_sentence")
    main_box.input("The dog slept.").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.text_area(key="atlas_sentence_box").value == "The dog slept."  # one shared sentence
    assert at.session_state[state.KEY].sentence == "The dog slept."
