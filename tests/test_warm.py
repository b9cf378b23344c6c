"""ui.warm: the warm-up fills the very cache entries the pages read, once per server process.

Timing is bench/warm.py's; here only what is computed, and how often.
"""

from __future__ import annotations

import ast
import collections
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import streamlit as st
from charts import page_charts
from streamlit.testing.v1 import AppTest

from analysis import heads
from ui import model as model_io
from ui import warm
from ui.presets import PRESETS
from ui.turns import Turns, queued

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py: one PyTorch thread
PRESET = PRESETS["River bank"]


@pytest.fixture
def computed(monkeypatch) -> collections.Counter:
    """Counts of the model's real work from here on: traces, greedy and beam searches, head statistics."""
    counts: collections.Counter = collections.Counter()

    def counting(owner, name: str) -> None:
        real = getattr(owner, name)

        def call(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, call)

    for name in ("run_trace", "greedy_decode", "beam_search"):
        counting(model_io, name)
    counting(heads, "sentence_statistics")
    return counts


@pytest.fixture
def cold_caches():
    """Empty caches before the test (a fresh server) and after it."""
    st.cache_resource.clear()
    st.cache_data.clear()
    yield
    st.cache_resource.clear()
    st.cache_data.clear()


@pytest.mark.usefixtures("cold_caches")
def test_after_the_warm_up_the_head_inspector_computes_nothing_for_a_preset(computed):
    status = warm.warm_up(models=("translation",), sentences={"translation": (PRESET,)})
    assert status.state == "done" and not status.failed, status.failed
    assert computed["run_trace"] and computed["beam_search"]  # the warm-up did the work...
    computed.clear()
    at = AppTest.from_file("../pages/Head_inspector.py", default_timeout=120)
    at.query_params["s"] = PRESET
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert page_charts(at)  # the page drew its figures
    assert not +computed, dict(computed)  # ... and the page found all of it in the caches


@pytest.mark.usefixtures("cold_caches")
def test_the_warm_up_also_covers_home_and_the_attention_pages(computed):
    warm.warm_up(models=("translation",), sentences={"translation": (PRESET,)})
    computed.clear()
    for page in ("../app.py", "../pages/Attention_step_by_step.py", "../pages/Encoder_layer.py"):
        at = AppTest.from_file(page, default_timeout=120)
        at.query_params["s"] = PRESET
        at.run()
        assert not at.exception, (page, [e.message for e in at.exception])
    assert not +computed, dict(computed)


def test_the_warm_up_waits_while_a_session_works_with_the_model():
    """The server's warm-up takes spare turns only: while a session holds the model, it does nothing."""
    turns, status = Turns(slots=1), warm.Status()
    gate, entered = threading.Event(), threading.Event()

    def session() -> None:
        with turns.turn():
            entered.set()
            gate.wait(30)

    holder = threading.Thread(target=session)
    holder.start()
    entered.wait(10)
    worker = threading.Thread(target=warm.warm_up, kwargs={
        "models": ("numbers",), "sentences": {"numbers": ("forty-two",)}, "turns": turns, "status": status})
    worker.start()
    try:
        worker.join(1.0)
        assert status.state == "warming" and status.done == 0
    finally:
        gate.set()
        holder.join(10)
    worker.join(120)
    assert status.state == "done" and status.done > 10 and not status.failed, status
    assert turns.idle


def test_a_call_is_one_cache_entry_however_it_is_spelt(computed):
    mid = model_io.loaded_or_none().model_id
    sentence = "The window of room 417 was left open by the warm-up test."
    first = model_io.greedy(mid, sentence)
    assert model_io.greedy(mid, sentence, ()) == first == model_io.greedy(mid, sentence, ablate=())
    assert computed["greedy_decode"] == 1
    ids = tuple(first["ids"])
    full = model_io.trace(mid, sentence, ids)
    assert model_io.trace(mid, sentence, ids, keep=()) is full  # how decoder_trace spells it
    assert model_io.trace(mid, sentence, target_ids=ids, ablate=()) is full
    assert computed["run_trace"] == 1


def test_it_starts_once_per_process(monkeypatch):
    runs, gate = [], threading.Event()
    monkeypatch.setattr(warm, "_thread", None)
    monkeypatch.setattr(warm, "_serving", lambda: True)
    monkeypatch.setattr(warm, "_main", lambda: (runs.append(1), gate.wait(10)))
    monkeypatch.setenv(warm.ENV, "1")
    started = []
    callers = [threading.Thread(target=lambda: started.append(warm.start())) for _ in range(8)]
    for t in callers:
        t.start()
    for t in callers:
        t.join(10)
    assert started.count(True) == 1 and warm.start() is False
    gate.set()
    warm._thread.join(10)
    assert runs == [1]


def test_it_is_off_under_apptest_and_with_the_switch(monkeypatch):
    monkeypatch.setattr(warm, "_thread", None)
    assert not warm._serving()  # AppTest and plain imports: no server runtime
    monkeypatch.setattr(warm, "_serving", lambda: True)
    monkeypatch.setenv(warm.ENV, "0")
    assert warm.start() is False and warm._thread is None


def test_a_spare_turn_is_taken_only_when_nobody_waits_or_works():
    turns = Turns(slots=1)
    with turns.spare() as got:
        assert got and not turns.idle
    assert turns.idle
    gate, entered = threading.Event(), threading.Event()

    def hold() -> None:
        with turns.turn():
            entered.set()
            gate.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    entered.wait(10)
    with turns.spare() as got:
        assert not got  # a session works: the warm-up stands aside
    gate.set()
    holder.join(10)
    assert turns.idle and turns._running == 0


def test_work_done_in_a_spare_turn_is_known_as_done():
    """A session asking later for what the warm-up computed goes straight to the cache, never in line."""
    turns = Turns(slots=1)

    @queued(turns)
    def work(x: int) -> int:
        return x * 2

    with turns.spare() as got:
        assert got and work(3) == 6
    assert turns.is_done(("work", (3,), ()))


def test_importing_it_imports_only_the_standard_library():
    """app.py imports ui.warm before every page, the home page's Figure 1 included."""
    code = ("import sys\nbefore = set(sys.modules)\nimport ui.warm\n"
            "print(sorted(m.split('.')[0] for m in set(sys.modules) - before))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)  # fmt: skip
    assert set(ast.literal_eval(out.stdout.strip())) - sys.stdlib_module_names <= {"ui"}, out.stdout


def test_a_page_run_by_apptest_starts_no_warm_up(monkeypatch):
    """AppTest's runtime is a mock that passes isinstance checks: the pages (and bench/marian.py, which
    runs them this way and measures the process's memory) must not start a warm-up under it."""
    monkeypatch.setattr(warm, "_thread", None)
    monkeypatch.setenv(warm.ENV, "1")
    at = AppTest.from_string("import streamlit as st\nfrom ui import warm\nst.text(str(warm.start()))")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.text[0].value == "False" and warm._thread is None


def test_a_real_server_warms_up_after_its_first_page(browser):
    """The other side of the check above: under `streamlit run`, as `make run` starts it, the first page
    starts the warm-up, and the server's log says when it is done."""
    from server import streamlit_server, wait_idle

    with streamlit_server(env_extra={warm.ENV: "1"}) as server:
        context = browser.new_context()
        try:
            tab = context.new_page()
            tab.goto(server.url, wait_until="domcontentloaded")
            wait_idle(tab, 300_000)
            deadline = time.monotonic() + 180
            while warm.DONE_LINE not in server.log() and time.monotonic() < deadline:
                time.sleep(0.5)
            assert warm.DONE_LINE in server.log(), server.log()[-2000:]
        finally:
            context.close()
