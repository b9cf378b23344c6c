"""ui.turns: the model's heavy work is served first come, first served, in a bounded pool."""

from __future__ import annotations

import threading
import time

import pytest

from ui import model as model_io
from ui.turns import TURNS, Turns, queued


def _wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)


def _line_length(turns: Turns) -> int:
    return len(turns._line)


def test_a_burst_finishes_in_arrival_order():
    turns = Turns(slots=1)
    finished: list[int] = []
    gate = threading.Event()

    def work(i: int) -> None:
        with turns.turn():
            if i == 0:
                gate.wait(10)  # the first holds its turn until all the others are in line
            finished.append(i)

    threads = []
    for i in range(8):
        threads.append(threading.Thread(target=work, args=(i,)))
        threads[-1].start()
        # arrival order is the order the tickets were taken: wait for each before the next arrives
        _wait_until(lambda i=i: turns._running + _line_length(turns) == i + 1)
    gate.set()
    for t in threads:
        t.join(10)
    assert finished == list(range(8))


def test_never_more_holders_than_slots():
    turns = Turns(slots=2)
    now, most, lock = [0], [0], threading.Lock()

    def work() -> None:
        with turns.turn():
            with lock:
                now[0] += 1
                most[0] = max(most[0], now[0])
            time.sleep(0.02)
            with lock:
                now[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most[0] == 2


def test_a_waiter_sees_its_place_go_down_to_zero():
    turns = Turns(slots=1)
    seen: list[int] = []
    gate = threading.Event()

    def hold() -> None:
        with turns.turn():
            gate.wait(10)

    holders = [threading.Thread(target=hold) for _ in range(2)]
    for i, h in enumerate(holders):
        h.start()
        _wait_until(lambda i=i: turns._running + _line_length(turns) == i + 1)

    def wait() -> None:
        with turns.turn(on_wait=seen.append):
            pass

    waiter = threading.Thread(target=wait)
    waiter.start()
    _wait_until(lambda: bool(seen))
    assert seen == [2]  # one working, one waiting ahead
    gate.set()
    waiter.join(10)
    assert seen[-1] == 0 and seen == sorted(seen, reverse=True)


def test_a_waiter_leaves_the_line_when_its_work_is_done_by_another():
    turns = Turns(slots=1)
    gate, took = threading.Event(), []

    def hold() -> None:
        with turns.turn("key"):
            gate.wait(10)
        turns.mark_done("key")

    holder = threading.Thread(target=hold)
    holder.start()
    _wait_until(lambda: turns._running == 1)

    def wait_for_same() -> None:
        with turns.turn("key") as got:
            took.append(got)

    waiter = threading.Thread(target=wait_for_same)
    waiter.start()
    _wait_until(lambda: _line_length(turns) == 1)
    gate.set()
    waiter.join(10)
    assert took == [False]  # no turn taken: the answer is already computed


def test_work_started_inside_a_turn_does_not_wait_for_another():
    turns = Turns(slots=1)
    calls: list[str] = []

    @queued(turns)
    def inner(x: int) -> int:
        calls.append("inner")
        return x + 1

    @queued(turns)
    def outer(x: int) -> int:
        calls.append("outer")
        return inner(x) * 2

    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(outer(1)))
    t.start()
    t.join(5)
    assert result == [4] and calls == ["outer", "inner"]


def test_a_failure_gives_the_turn_back():
    turns = Turns(slots=1)
    with pytest.raises(RuntimeError), turns.turn():
        raise RuntimeError("boom")
    assert turns._running == 0 and not turns._line
    with turns.turn() as got:  # the slot is free again
        assert got


def test_done_work_skips_the_line():
    turns = Turns(slots=1)
    runs: list[int] = []

    @queued(turns)
    def work(x: int) -> int:
        runs.append(x)
        return x

    assert work(3) == 3
    assert turns.is_done(("work", (3,), ()))
    gate = threading.Event()

    def hold() -> None:
        with turns.turn():
            gate.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    _wait_until(lambda: turns._running == 1)
    try:
        start = time.monotonic()
        assert work(3) == 3  # done before: not queued behind the holder
        assert time.monotonic() - start < 1
    finally:
        gate.set()
        holder.join(10)
    assert runs == [3, 3]


def test_the_models_heavy_work_goes_through_the_servers_turns():
    """The app's translations and traces are queued, and what they computed is known as done."""
    model_id = model_io.loaded_or_none().model_id
    sentence = "The teacher opened the window."
    model_io.translate(model_id, sentence)
    model_io.trace(model_id, sentence)
    # keyed by the arguments spelt one way (`ui.cache_keys.one_spelling`): all positional, defaults filled in
    assert TURNS.is_done(("translate", (model_id, sentence, None, None, ()), ()))
    assert TURNS.is_done(("trace", (model_id, sentence, None, (), ()), ()))
    assert TURNS.is_done(("greedy", (model_id, sentence, ()), ()))  # computed inside translate's turn
    assert TURNS._running == 0 and not TURNS._line
