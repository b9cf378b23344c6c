"""Train it yourself's server-wide coordinator: one run at a time, a first-come queue, caps, and the
worker thread that trains (no Streamlit here: `ui.live_train_views` is the page's side)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from tasks import toy
from ui.live_train_run import train_toy_run

KINDS = toy.KINDS
IDLE, QUEUED, RUNNING, FINISHED, FULL = "idle", "queued", "running", "finished", "full"
SOLVED, STEP_CAP, TIME_CAP, STOPPED, GONE = "solved", "step cap", "time cap", "stopped", "tab closed"


@dataclass(frozen=True)
class Caps:
    """Limits of the live training, shared by every session."""

    steps: int = 1500
    seconds: float = 120.0
    redraw: float = 1.5  # seconds between redraws of a training tab's figures (each one is its heartbeat)
    heartbeat: float = 15.0  # seconds without word from its tab before a run (or a queued place) is given up
    queue: int = 20
    solved: float = 0.99  # exact match on fresh sequences that ends a run early
    eval_every: int = 50  # steps between exact-match evaluations
    attention_every: int = 10  # steps between redrawn cross-attention snapshots
    threads: int = 1
    keep_finished: float = 900.0  # seconds a finished run stays visible to its tab


@dataclass(frozen=True)
class Status:
    """What one tab sees: its own run (or place in the queue) and whether the server is busy."""

    state: str = IDLE  # idle, queued, running, finished, or full (the queue had no room)
    kind: str = "reverse"
    position: int = 0  # place in the queue, 1 = next
    queued: int = 0  # tabs waiting in all
    busy: bool = False  # another tab's run is training now
    step: int = 0
    seconds: float = 0.0
    losses: tuple[float, ...] = ()
    evals: tuple[tuple[int, float, float], ...] = ()  # (step, exact match, seconds into the run)
    alignment: tuple[float, ...] = ()  # per decoder layer, at the last evaluation
    attention: tuple = ()  # per decoder layer: rows (output written) × columns (source letter)
    attention_step: int = 0
    broadness: tuple[float, ...] = ()  # per decoder layer: entropy ÷ its maximum, 1 = uniform
    reason: str = ""  # why a finished run ended
    caps: Caps = Caps()

    @property
    def active(self) -> bool:
        """Whether this tab has a run going or waiting (its page then redraws every `Caps.redraw` s)."""
        return self.state in (QUEUED, RUNNING)

    @property
    def exact_match(self) -> float | None:
        return self.evals[-1][1] if self.evals else None

    @property
    def first_above(self) -> tuple[int, float, float] | None:
        """(step, exact match, seconds) of the first evaluation at or above 95%, if any."""
        return next((row for row in self.evals if row[1] >= 0.95), None)


@dataclass(eq=False)
class Run:
    """One tab's run, from its place in the queue to its end (mutated under the coordinator's lock)."""

    owner: str
    kind: str
    last_seen: float
    started: float = 0.0
    state: str = QUEUED
    step: int = 0
    seconds: float = 0.0
    losses: list[float] = field(default_factory=list)
    evals: list[tuple[int, float, float]] = field(default_factory=list)
    alignment: tuple[float, ...] = ()
    attention: tuple = ()
    attention_step: int = 0
    broadness: tuple[float, ...] = ()
    reason: str = ""
    ended: float = 0.0
    cancelled: bool = False


Trainer = Callable[[Run, "Coordinator"], None]


class Coordinator:
    """The server-wide queue, caps and worker thread of the live training.

    The rules, all enforced here and unit-tested with a fake trainer and a fake clock:
    - one run at a time; a tab that presses Train while another trains joins a first-come queue and is
      told its place; at most `Caps.queue` tabs wait;
    - a run stops at `Caps.steps` updates or `Caps.seconds`, when it is solved (exact match ≥
      `Caps.solved` on fresh sequences), when its tab presses Stop, or when its tab has not been heard
      from for `Caps.heartbeat` seconds, or its websocket has closed (`ui.live_train_views.connected`):
      closing the tab stops its run at once; the page's fragment calls `status()` every `Caps.redraw`
      seconds, which is the heartbeat, so leaving the page stops it too; a queued place is given up the
      same ways;
    - every run builds its own fresh model: the shipped models are never touched;
    - the worker starts when the page is first opened and builds one throwaway trainer
      (`ui.live_train_run.warm_up`): PyTorch's first optimiser imports `torch._dynamo`, which took from
      7 s to over two minutes inside a busy server; after that a run starts at once;
    - the worker runs PyTorch on `Caps.threads` thread(s) (`torch.set_num_threads` is per thread with
      this PyTorch build), so the pages keep the other cores.

    `train(run, coordinator)` does the work: it loops until `coordinator.stop_reason(run)` says why
    to stop, and publishes its progress with `coordinator.publish(run, ...)`.
    """

    def __init__(self, caps: Caps = Caps(), train: Trainer | None = None, clock=time.monotonic,
                 warm_up: Callable[[], None] | None = None,
                 alive: Callable[[str], bool] = lambda owner: True) -> None:
        self.caps = caps
        self._alive = alive
        self._train = train or train_toy_run
        self._clock = clock
        self._warm_up = warm_up
        self._cond = threading.Condition()
        self._current: Run | None = None
        self._queue: list[Run] = []
        self._finished: dict[str, Run] = {}
        self._worker: threading.Thread | None = None
        if warm_up is not None:  # start the worker now: it warms up while the first tab reads the page
            with self._cond:
                self._ensure_worker()

    # --- what a tab calls -------------------------------------------------------------------
    def submit(self, owner: str, kind: str) -> Status:
        """Start a run for this tab now if the server is free, else queue it (once per tab)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        with self._cond:
            now = self._clock()
            self._prune(now)
            if self._mine(owner) is None:
                if self._current is not None and len(self._queue) >= self.caps.queue:
                    return self._status(owner, full=True)
                self._finished.pop(owner, None)
                run = Run(owner, kind, last_seen=now)
                if self._current is None:
                    self._start(run, now)
                else:
                    self._queue.append(run)
                self._ensure_worker()
                self._cond.notify_all()
            return self._status(owner)

    def status(self, owner: str, heartbeat: bool = True) -> Status:
        """This tab's status; by default also its heartbeat (the tab is still there)."""
        with self._cond:
            now = self._clock()
            mine = self._mine(owner)
            if heartbeat and mine is not None:
                mine.last_seen = now
            self._prune(now)
            return self._status(owner)

    def cancel(self, owner: str) -> None:
        """Stop this tab's run, or give up its place in the queue."""
        with self._cond:
            if self._current is not None and self._current.owner == owner:
                self._current.cancelled = True
            for run in [r for r in self._queue if r.owner == owner]:
                self._queue.remove(run)
                self._end(run, STOPPED, self._clock())

    # --- what the trainer calls -------------------------------------------------------------
    def stop_reason(self, run: Run) -> str | None:
        """Why `run` must stop now (also kept as the run's reason), or None to go on."""
        with self._cond:
            now = self._clock()
            if run.cancelled:
                reason = STOPPED
            elif self._gone(run, now):
                reason = GONE
            elif run.evals and run.evals[-1][1] >= self.caps.solved:
                reason = SOLVED
            elif run.step >= self.caps.steps:
                reason = STEP_CAP
            elif now - run.started >= self.caps.seconds:
                reason = TIME_CAP
            else:
                return None
            run.reason = run.reason or reason
            return reason

    def publish(self, run: Run, step: int | None = None, loss: float | None = None,
                exact: float | None = None, alignment=None, attention=None, broadness=None) -> None:
        """Record progress: the step just made and its loss, an evaluation, an attention snapshot."""
        with self._cond:
            run.seconds = self._clock() - run.started
            if step is not None:
                run.step = step
            if loss is not None:
                run.losses.append(loss)
            if exact is not None:
                run.evals.append((run.step, exact, run.seconds))
            if alignment is not None:
                run.alignment = tuple(alignment)
            if attention is not None:
                run.attention, run.attention_step = tuple(attention), run.step
            if broadness is not None:
                run.broadness = tuple(broadness)

    # --- inside -------------------------------------------------------------------------------
    def _mine(self, owner: str) -> Run | None:
        if self._current is not None and self._current.owner == owner:
            return self._current
        return next((r for r in self._queue if r.owner == owner), None)

    def _start(self, run: Run, now: float) -> None:
        run.state, run.started = RUNNING, now
        self._current = run

    def _end(self, run: Run, reason: str, now: float) -> None:
        run.state, run.reason, run.ended = FINISHED, run.reason or reason, now
        self._finished[run.owner] = run

    def _gone(self, run: Run, now: float) -> bool:
        """Whether the tab of `run` has closed or gone quiet."""
        return now - run.last_seen > self.caps.heartbeat or not self._alive(run.owner)

    def _prune(self, now: float) -> None:
        """Drop queued places whose tab has gone quiet, and finished runs nobody looks at any more."""
        for run in [r for r in self._queue if self._gone(r, now)]:
            self._queue.remove(run)
            self._end(run, GONE, now)
        for owner, run in list(self._finished.items()):
            if now - run.ended > self.caps.keep_finished:
                del self._finished[owner]

    def _status(self, owner: str, full: bool = False) -> Status:
        run = self._mine(owner) or self._finished.get(owner)
        busy = self._current is not None and self._current.owner != owner
        common = dict(queued=len(self._queue), busy=busy, caps=self.caps)
        if full:
            return Status(FULL, **common)
        if run is None:
            return Status(IDLE, **common)
        position = self._queue.index(run) + 1 if run in self._queue else 0
        return Status(
            run.state, run.kind, position, step=run.step, seconds=run.seconds,
            losses=tuple(run.losses), evals=tuple(run.evals), alignment=run.alignment,
            attention=run.attention, attention_step=run.attention_step, broadness=run.broadness,
            reason=run.reason, **common,
        )  # fmt: skip

    def _ensure_worker(self) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._work, name="live-train", daemon=True)
            self._worker.start()

    def _work(self) -> None:
        torch.set_num_threads(self.caps.threads)
        if self._warm_up is not None:
            with contextlib.suppress(Exception):  # only a head start: the first run would do the same
                self._warm_up()
        while True:
            with self._cond:
                while self._current is None:
                    self._cond.wait()
                run = self._current
                run.started = self._clock()  # the caps count from the first step, not from the queue
            failure = ""
            try:
                self._train(run, self)
            except Exception as err:  # noqa: BLE001  (shown to the tab; the worker must survive)
                failure = f"failed ({type(err).__name__}: {err})"
            with self._cond:
                now = self._clock()
                run.seconds = now - run.started
                self._end(run, failure or STOPPED, now)
                self._current = None
                self._prune(now)
                if self._queue:
                    self._start(self._queue.pop(0), now)
