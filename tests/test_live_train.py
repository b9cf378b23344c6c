"""Train it yourself: the server-wide coordinator, the page, and two real tabs.

- The coordinator's rules (one run at a time, a queue with positions, caps in steps and seconds, a
  heartbeat that stops the run of a tab that went away) are tested with a fake trainer and a fake
  clock, so each rule is checked exactly and fast.
- The real trainer (`ui.live_train_run.train_toy_run`, the project's `toy.ToyTrainer`) runs a few steps.
- The page runs under AppTest: before training it shows the untrained model's near-uniform attention;
  Train starts a run that redraws; Stop ends it; two sessions pressing Train get one run and one queue
  message.
- In headless Chromium, two tabs press Train at once: one trains, the other is told its place in the
  queue, and gets its turn when the first tab is closed.
"""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path

import pytest
import torch
from charts import page_charts
from streamlit.testing.v1 import AppTest

from tasks import toy
from ui import live_train, live_train_run, live_train_views
from ui.live_train import (
    FINISHED,
    FULL,
    GONE,
    IDLE,
    QUEUED,
    RUNNING,
    SOLVED,
    STEP_CAP,
    STOPPED,
    TIME_CAP,
    Caps,
    Coordinator,
)

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "Train_it_yourself.py")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stepping(run, coordinator) -> None:
    """A fake trainer: one 'step' per millisecond until the coordinator says stop."""
    while coordinator.stop_reason(run) is None:
        coordinator.publish(run, step=run.step + 1, loss=1.0)
        time.sleep(0.001)


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def finished(coordinator, owner):
    wait_until(lambda: coordinator.status(owner, heartbeat=False).state == FINISHED)
    return coordinator.status(owner, heartbeat=False)


@pytest.fixture
def clock():
    return Clock()


def make(clock, train=stepping, **caps) -> Coordinator:
    return Coordinator(Caps(**{"steps": 10**9, "seconds": 10**9, **caps}), train=train, clock=clock)


def test_one_run_at_a_time_and_a_queue_in_order(clock):
    c = make(clock)
    assert c.submit("a", "reverse").state == RUNNING
    second, third = c.submit("b", "copy"), c.submit("c", "reverse")
    assert (second.state, second.position, second.busy) == (QUEUED, 1, True)
    assert (third.state, third.position, third.queued) == (QUEUED, 2, 2)
    assert c.submit("b", "copy").position == 1  # pressing Train again keeps the place, adds nothing
    assert c.status("a").busy is False and c.status("nobody").busy is True
    c.cancel("a")  # the first run ends: the next in line starts, the rest move up
    assert finished(c, "a").reason == STOPPED
    wait_until(lambda: c.status("b").state == RUNNING)
    assert c.status("b").kind == "copy"
    assert (c.status("c").state, c.status("c").position) == (QUEUED, 1)
    c.cancel("c")  # leaving the queue
    assert c.status("c", heartbeat=False).reason == STOPPED
    c.cancel("b")
    finished(c, "b")


def test_two_tabs_pressing_train_at_once_get_one_run_and_one_queue_place(clock):
    c = make(clock)
    barrier, answers = threading.Barrier(2), {}

    def press(owner: str) -> None:
        barrier.wait()
        answers[owner] = c.submit(owner, "reverse")

    threads = [threading.Thread(target=press, args=(o,)) for o in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted((s.state, s.position) for s in answers.values()) == [(QUEUED, 1), (RUNNING, 0)]
    for owner in ("a", "b"):
        c.cancel(owner)
    wait_until(lambda: all(c.status(o, heartbeat=False).state == FINISHED for o in "ab"))


def test_a_full_queue_says_so(clock):
    c = make(clock, queue=1)
    c.submit("a", "reverse")
    assert c.submit("b", "reverse").state == QUEUED
    full = c.submit("c", "reverse")
    assert (full.state, full.queued) == (FULL, 1)
    assert c.status("c").state == IDLE  # nothing was kept for it
    for owner in ("b", "a"):
        c.cancel(owner)
    finished(c, "a")


def test_a_tab_that_goes_quiet_loses_its_run_and_its_queue_place(clock):
    c = make(clock, heartbeat=8.0)  # here a tab stays connected, it only stops calling
    c.submit("a", "reverse")
    c.submit("b", "reverse")
    c.submit("c", "reverse")
    clock.now += 5
    c.status("b")  # b's tab is still open; a and c say nothing
    clock.now += 5  # 10 s since a and c were last heard from, 5 s for b
    assert finished(c, "a").reason == GONE
    wait_until(lambda: c.status("b").state == RUNNING)  # c was dropped from the queue on the way
    assert (c.status("c", heartbeat=False).state, c.status("c", heartbeat=False).reason) == (FINISHED, GONE)
    clock.now += 7
    assert c.status("b").state == RUNNING  # a heartbeat every few seconds keeps a run going
    clock.now += 9
    assert finished(c, "b").reason == GONE


def test_a_closed_tab_stops_its_run_and_loses_its_place_at_once(clock):
    open_tabs = {"a", "b", "c"}
    c = Coordinator(Caps(steps=10**9, seconds=10**9), train=stepping, clock=clock,
                    alive=lambda owner: owner in open_tabs)
    for owner in ("a", "b", "c"):
        c.submit(owner, "reverse")
    open_tabs -= {"a", "b"}  # two tabs closed; no time passes, so no heartbeat is missed
    assert finished(c, "a").reason == GONE
    assert c.status("b", heartbeat=False).reason == GONE
    wait_until(lambda: c.status("c").state == RUNNING)
    c.cancel("c")
    finished(c, "c")


def test_caps_in_steps_and_seconds(clock):
    c = make(clock, steps=40)
    c.submit("a", "reverse")
    done = finished(c, "a")
    assert (done.reason, done.step, len(done.losses)) == (STEP_CAP, 40, 40)

    c = make(clock, seconds=90.0, heartbeat=1e9)
    c.submit("a", "reverse")
    wait_until(lambda: c.status("a").step > 3)
    clock.now += 90
    done = finished(c, "a")
    assert done.reason == TIME_CAP and done.seconds >= 90


def test_a_solved_run_ends_early_and_reports_when_it_passed_95_percent(clock):
    def learns(run, coordinator):
        for step, exact in ((50, 0.4), (100, 0.96), (150, 0.995), (200, 1.0)):
            if coordinator.stop_reason(run) is not None:
                return
            clock.now += 10
            coordinator.publish(run, step=step, loss=1.0, exact=exact, alignment=[0.5, 0.9])

    c = make(clock, train=learns, solved=0.99, heartbeat=1e9)
    c.submit("a", "reverse")
    done = finished(c, "a")
    assert (done.reason, done.step, done.exact_match) == (SOLVED, 150, 0.995)
    assert done.first_above == (100, 0.96, 20.0)
    assert done.alignment == (0.5, 0.9)
    assert "Solved" in live_train_views.ending(done)


def test_a_failing_trainer_is_reported_and_the_next_run_still_starts(clock):
    calls = []

    def fails_once(run, coordinator):
        calls.append(run.owner)
        if len(calls) == 1:
            raise RuntimeError("boom")
        stepping(run, coordinator)

    c = make(clock, train=fails_once)
    c.submit("a", "reverse")
    c.submit("b", "reverse")
    assert finished(c, "a").reason.startswith("failed (RuntimeError: boom")
    wait_until(lambda: c.status("b").state == RUNNING)
    c.cancel("b")
    finished(c, "b")


def test_the_worker_warms_up_before_any_run_and_survives_a_failed_warm_up(clock):
    calls = []

    def warm_up():
        calls.append("warm")
        raise RuntimeError("no head start today")

    c = Coordinator(Caps(steps=3), train=stepping, clock=clock, warm_up=warm_up)
    wait_until(lambda: calls == ["warm"])  # before anyone pressed Train
    c.submit("a", "reverse")
    assert finished(c, "a").reason == STEP_CAP
    assert calls == ["warm"]


def test_finished_runs_are_forgotten_after_a_while(clock):
    c = make(clock, steps=5, keep_finished=60.0)
    c.submit("a", "reverse")
    finished(c, "a")
    clock.now += 61
    assert c.status("a").state == IDLE
    with pytest.raises(ValueError):
        c.submit("a", "sort")


def test_the_real_trainer_runs_the_project_loop_for_a_few_steps():
    """`train_toy_run` on the real clock: losses every step, evaluations and snapshots on schedule."""
    c = Coordinator(Caps(steps=20, eval_every=10, attention_every=5))
    c.submit("a", "reverse")
    wait_until(lambda: c.status("a").state == FINISHED, timeout=120)
    done = c.status("a")
    assert (done.reason, done.step, len(done.losses)) == (STEP_CAP, 20, 20)
    assert [row[0] for row in done.evals] == [10, 20] and all(0 <= row[1] <= 1 for row in done.evals)
    assert done.attention_step == 20 and len(done.attention) == live_train_run.RECIPE.n_layers
    for layer in done.attention:  # (T, S) = (8 letters + end) × (8 letters + end); rows sum to 1
        assert len(layer) == 9
        assert all(len(row) == 9 and math.isclose(sum(row), 1, rel_tol=1e-4) for row in layer)
    assert len(done.alignment) == len(done.broadness) == live_train_run.RECIPE.n_layers


def test_before_training_the_attention_is_near_uniform():
    for kind in toy.KINDS:
        start = live_train_views.untrained(kind)
        assert min(start.broadness) > 0.9, start.broadness  # what the page says: no alignment yet
        assert max(w for layer in start.attention for row in layer for w in row) < 0.5
        rows, columns = live_train_run.labels(kind)
        assert len(start.attention[0]) == len(rows) and len(start.attention[0][0]) == len(columns)
    assert live_train_run.labels("reverse") == (list("OGNIMALF") + ["EOS"], list("FLAMINGO") + ["EOS"])


def test_toy_trainer_is_the_loop_of_train_toy():
    """The step-by-step trainer the page uses gives exactly the losses of `train_toy` (same seed)."""
    task = toy.ToyTask("reverse")
    run = toy.train_toy(task, steps=5, seed=3)
    trainer = toy.ToyTrainer(task, seed=3)
    assert [trainer.step() for _ in range(5)] == run.losses
    fresh = toy.fresh_model(task, seed=3)
    assert all(torch.equal(a, b) for a, b in zip(fresh.state_dict().values(),
                                                 toy.ToyTrainer(task, seed=3).model.state_dict().values()))


def test_loss_floor_is_the_entropy_of_the_smoothed_target():
    vocab, eps = 20, 0.1
    assert toy.loss_floor(vocab, 0.0) == 0.0
    target = torch.full((vocab,), eps / vocab)
    target[0] += 1 - eps
    assert math.isclose(toy.loss_floor(vocab, eps), float(-(target * target.log()).sum()), rel_tol=1e-6)
    # and PyTorch's own loss agrees: a model that puts exactly the smoothed target on the gold token
    logits = target.log().unsqueeze(0)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0]), label_smoothing=eps)
    assert math.isclose(float(loss), toy.loss_floor(vocab, eps), rel_tol=1e-5)


# --- the page under AppTest ---------------------------------------------------------------------
def _texts(at: AppTest, kind: str) -> list[str]:
    return [str(e.value) for e in at.get(kind)]


def _open() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _status(at: AppTest, heartbeat: bool = True) -> live_train.Status:
    return live_train_views.coordinator().status(at.session_state[live_train_views.OWNER_KEY], heartbeat)


def _stop_everything(*tabs: AppTest) -> None:
    for at in tabs:
        live_train_views.coordinator().cancel(at.session_state[live_train_views.OWNER_KEY])
    wait_until(lambda: not any(_status(at, heartbeat=False).active for at in tabs), timeout=60)


def test_page_before_training_shows_the_untrained_model_and_says_it_is_near_uniform():
    at = _open()
    assert [t.value for t in at.title] == ["Train it yourself"]
    assert len(page_charts(at)) == 1 + live_train_run.RECIPE.n_layers  # loss curve + one per layer
    text = " ".join(_texts(at, "markdown"))
    assert "Step 0, before any training" in text and "no alignment to read yet" in text
    assert any("Near-uniform" in c for c in _texts(at, "caption"))  # reverse, its default task
    assert not at.button(key="lt_train").disabled and at.button(key="lt_stop").disabled


def test_page_trains_a_few_steps_and_stops():
    at = _open()
    try:
        at.radio(key="lt_kind").set_value("copy").run()  # not the default task: the page must keep it
        at.button(key="lt_train").click().run()
        assert not at.exception, [e.message for e in at.exception]
        assert at.button(key="lt_train").disabled and not at.button(key="lt_stop").disabled
        assert any("Training on the server's CPU" in t for t in _texts(at, "info")), _texts(at, "info")
        deadline = time.monotonic() + 120
        while _status(at).step < 12:
            assert time.monotonic() < deadline, "no steps"
            time.sleep(0.5)
            at.run()  # each run is also this session's heartbeat
        at.run()
        metrics = {m.label: m.value for m in at.metric}
        assert int(metrics["Step"].replace(",", "")) >= 10, metrics
        assert metrics["Loss"] != "–"
        loss = page_charts(at)[0].proto.spec
        assert "training loss" in loss
        assert any(t.startswith("**Step ") and "before any training" not in t for t in _texts(at, "markdown"))
        at.button(key="lt_stop").click().run()
        wait_until(lambda: not _status(at).active, 60)
        at.run()
        assert any("You stopped the run" in t for t in _texts(at, "info")), _texts(at, "info")
        assert not at.button(key="lt_train").disabled
        assert not at.exception, [e.message for e in at.exception]
        # the other task shows its untrained model, and no word of this run beside it
        at.radio(key="lt_kind").set_value("reverse").run()
        assert not any("You stopped the run" in t for t in _texts(at, "info")), _texts(at, "info")
        assert {m.label: m.value for m in at.metric}["Step"] == "0"
        # the tab leaves the page and comes back: its session, but no widget state (Streamlit forgets the
        # widgets of a page not drawn); the task shown is its run's, with the run's ending
        back = AppTest.from_file(PAGE, default_timeout=120)
        back.session_state[live_train_views.OWNER_KEY] = at.session_state[live_train_views.OWNER_KEY]
        back.run()
        assert back.radio(key="lt_kind").value == "copy"
        assert any("You stopped the run" in t for t in _texts(back, "info")), _texts(back, "info")
    finally:
        _stop_everything(at)


def test_two_sessions_pressing_train_get_one_run_and_one_queue_message():
    first, second = _open(), _open()
    try:
        first.button(key="lt_train").click()
        second.button(key="lt_train").click()
        first.run()
        second.run()
        infos = [" ".join(_texts(at, "info")) for at in (first, second)]
        assert "Training on the server's CPU" in infos[0], infos
        assert "You are number 1 in the queue" in infos[1], infos
        assert second.button(key="lt_stop").disabled is False  # it may leave the queue
        second.button(key="lt_stop").click().run()
        second.run()
        assert any("You stopped the run" in t for t in _texts(second, "info")), _texts(second, "info")
    finally:
        _stop_everything(first, second)


# --- two real tabs in Chromium ---------------------------------------------------------------------
EITHER = "texts => texts.some(t => document.body.innerText.includes(t))"
TRAINING, QUEUE = "Training on the server's CPU", "You are number 1 in the queue"


def _wait_text(tab, what: str, *texts: str, timeout_ms: float = 180_000) -> None:
    """Wait until the tab shows one of `texts`; on timeout, fail with what it shows instead."""
    try:
        tab.wait_for_function(EITHER, arg=list(texts), timeout=timeout_ms)
    except Exception as err:  # noqa: BLE001  (Playwright's TimeoutError: say what the page showed)
        body = tab.inner_text("body")[-1500:]
        seconds = timeout_ms / 1000
        raise AssertionError(f"{what}: none of {texts} shown within {seconds:.0f} s:\n{body}") from err


@pytest.mark.timeout(900)
def test_two_browser_tabs_pressing_train_at_once(browser):
    from server import EXCEPTION, streamlit_server, wait_idle

    timeout = 240_000
    with streamlit_server() as server:
        contexts = [browser.new_context(viewport={"width": 1300, "height": 1000}) for _ in range(2)]
        tabs = [c.new_page() for c in contexts]
        try:
            for tab in tabs:
                tab.goto(f"{server.url}/Train_it_yourself", wait_until="domcontentloaded", timeout=timeout)
            for i, tab in enumerate(tabs):
                wait_idle(tab, timeout)
                _wait_text(tab, f"tab {i} opening", "Step 0, before any training", timeout_ms=timeout)
            buttons = [tab.get_by_role("button", name="Train", exact=True) for tab in tabs]
            for button in buttons:
                button.wait_for(state="visible", timeout=timeout)
            for button in buttons:  # both clicks go out before either tab is waited on
                button.click(no_wait_after=True)
            for i, tab in enumerate(tabs):
                _wait_text(tab, f"tab {i} after Train", TRAINING, QUEUE)
            bodies = [tab.inner_text("body") for tab in tabs]
            queued = [i for i, body in enumerate(bodies) if QUEUE in body]
            training = [i for i, body in enumerate(bodies) if TRAINING in body]
            assert len(queued) == 1 and len(training) == 1 and queued != training, (queued, training)
            waiting = tabs[queued[0]]
            # The training tab goes away: its heartbeat stops, its run ends, and the queue moves on.
            contexts[training[0]].close()
            _wait_text(waiting, "the queued tab after the other closed", TRAINING)
            waiting.get_by_role("button", name="Stop", exact=True).click()
            _wait_text(waiting, "after Stop", "You stopped the run")
            assert waiting.locator(EXCEPTION).count() == 0
            assert "Traceback" not in waiting.inner_text("body")
        finally:
            for context in contexts:
                context.close()
