"""First come, first served: the model's heavy work (translations, traces) takes turns.

When a class opens a link at once, thirty script runs that each translate a sentence would share the
CPU until all are done, and the first student would wait as long as the last. Here each piece of
heavy work waits for a free slot in arrival order (a ticket queue), so sessions finish in the order
they asked, and a page shows its place in line while it waits.

Work already done (the same model, function and inputs finished once on this server) skips the line:
its answer is in Streamlit's cache. A session waiting behind someone computing the very thing it
needs leaves the line as soon as that is done. Work started while holding a turn (a trace that first
needs the greedy translation) runs inside that turn: never a second ticket, so never a deadlock.

Slots: ATLAS_MODEL_SLOTS, else the cores divided by PyTorch's threads per call (at least one): on a
2-core machine PyTorch already spreads one call over both cores.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import os
import threading
from collections.abc import Callable, Hashable, Iterator

DONE_REMEMBERED = 4096  # keys of finished work remembered (the caches behind them hold fewer)
POLL_S = 0.25  # how often a waiting session looks at its place in line


def default_slots() -> int:
    configured = os.environ.get("ATLAS_MODEL_SLOTS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    import torch

    return max(1, (os.cpu_count() or 1) // max(1, torch.get_num_threads()))


class Turns:
    """A bounded first-come-first-served pool: at most `slots` holders at once, served in ticket order."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, not {slots}")
        self.slots = slots
        self._cond = threading.Condition()
        self._line: collections.deque[object] = collections.deque()  # waiting tickets, oldest first
        self._running = 0
        self._done: collections.OrderedDict[Hashable, None] = collections.OrderedDict()
        self._held = threading.local()

    @property
    def holding(self) -> bool:
        """Whether this thread holds a turn now (work it starts runs inside that turn)."""
        return getattr(self._held, "turn", False)

    def ahead(self, ticket: object) -> int:
        """How many are before this ticket: those waiting ahead of it and those working now."""
        with self._cond:
            return self._line.index(ticket) + self._running if ticket in self._line else 0

    def is_done(self, key: Hashable | None) -> bool:
        with self._cond:
            return key is not None and key in self._done

    def mark_done(self, key: Hashable) -> None:
        with self._cond:
            self._done[key] = None
            self._done.move_to_end(key)
            while len(self._done) > DONE_REMEMBERED:
                self._done.popitem(last=False)
            self._cond.notify_all()

    @property
    def idle(self) -> bool:
        """Whether no one is waiting for a turn and no one is working."""
        with self._cond:
            return not self._line and self._running == 0

    @contextlib.contextmanager
    def spare(self) -> Iterator[bool]:
        """A turn for work nobody is waiting for (the warm-up, `ui.warm`): taken at once when no one is
        in line or working (yields True), else not taken at all (yields False). Whoever arrives while it
        is held waits for that one piece of work only, as behind any other turn."""
        with self._cond:
            got = not self.holding and not self._line and self._running == 0
            if got:
                self._running += 1
        if not got:
            yield False
            return
        self._held.turn = True
        try:
            yield True
        finally:
            self._held.turn = False
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def turn(
        self, key: Hashable | None = None, on_wait: Callable[[int], None] | None = None
    ) -> Iterator[bool]:
        """Wait for a turn in arrival order; yields True when holding one, False when `key` was finished
        by someone else meanwhile (no turn taken: its result is cached). `on_wait(ahead)` is called in
        this thread whenever the number ahead changes, and with 0 once the wait is over."""
        if self.holding:
            yield True
            return
        ticket = object()
        told = None
        with self._cond:
            self._line.append(ticket)
        try:
            while True:
                with self._cond:
                    if key is not None and key in self._done:
                        self._line.remove(ticket)
                        got = False
                        break
                    if self._line[0] is ticket and self._running < self.slots:
                        self._line.popleft()
                        self._running += 1
                        got = True
                        break
                    ahead = self._line.index(ticket) + self._running
                if on_wait is not None and ahead != told:
                    on_wait(ahead)  # outside the lock: it may draw on the page
                    told = ahead
                with self._cond:
                    self._cond.wait(POLL_S)
        except BaseException:
            with self._cond:
                if ticket in self._line:
                    self._line.remove(ticket)
                self._cond.notify_all()
            raise
        if on_wait is not None and told:
            on_wait(0)
        if not got:
            yield False
            return
        self._held.turn = True
        try:
            yield True
        finally:
            self._held.turn = False
            with self._cond:
                self._running -= 1
                self._cond.notify_all()


def queued(turns: Turns, on_wait_factory: Callable[[], Callable[[int], None] | None] = lambda: None):
    """Decorate a (cached) function so that a call not yet done on this server waits for a turn.

    The key is the function's name and arguments (hashable: model id, sentence, tuples). A call whose
    key is done goes straight to the function (a cache hit, or, rarely, an evicted entry recomputed);
    so does one made inside a turn this thread holds, and its key is done afterwards.
    """

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            key = (fn.__name__, args, tuple(sorted(kwargs.items())))
            if turns.is_done(key):
                return fn(*args, **kwargs)
            if turns.holding:  # inside this thread's turn: done once computed, like work of its own turn
                result = fn(*args, **kwargs)
                turns.mark_done(key)
                return result
            with page_spinner(fn.__name__), turns.turn(key, on_wait_factory()):
                result = fn(*args, **kwargs)
            turns.mark_done(key)
            return result

        return call

    return wrap


def page_notice() -> Callable[[int], None] | None:
    """A callback that shows this session's place in line on its page (None outside a script run, and
    inside a cached function, whose drawing Streamlit would replay on every later cache hit)."""
    from streamlit.runtime.caching.cached_message_replay import in_cached_function
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx() is None or in_cached_function.get():
        return None
    import streamlit as st

    slot: list = []

    def show(ahead: int) -> None:
        if not slot:
            slot.append(st.empty())
        if ahead:
            slot[0].caption(
                f"In line for the model: {ahead} ahead of you. Requests are served in the order "
                "they arrive; this page goes on by itself."
            )
        else:
            slot[0].empty()

    return show


# What a page says while the model works for it, by the queued function's name: Streamlit's running
# icon sits in a corner that a projector may cut off. st.spinner shows the words only after half a
# second (its own delay), with the seconds elapsed, so a cache hit or a quick call shows nothing.
WORKING = {
    "greedy": "Translating…",
    "beam": "Translating (beam search)…",
    "translate": "Translating…",
    "trace": "Tracing the model: recording every step for this sentence…",
}


def page_spinner(name: str) -> contextlib.AbstractContextManager:
    """A spinner on the page where work named `name` was asked for, saying what is computed (`WORKING`);
    nothing outside a script run and inside a cached function (as `page_notice`)."""
    from streamlit.runtime.caching.cached_message_replay import in_cached_function
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx() is None or in_cached_function.get():
        return contextlib.nullcontext()
    import streamlit as st

    return st.spinner(WORKING.get(name, "Computing…"), show_time=True)


TURNS = Turns(default_slots())  # one line per server process, shared by every session
