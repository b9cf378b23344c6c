"""Train it yourself: one small training run at a time on the server, watched live from a browser tab.

Every browser session shares one `Coordinator` (`coordinator()`, an `st.cache_resource`). It owns a
worker thread that trains a tiny model of `training.toy` (copy or reverse a sequence of
letters) with the project's own loop (`toy.ToyTrainer`, which calls `training.train.train_step`),
and publishes the loss, the exact match and the cross-attention of one example as it goes.

The rules, all enforced here and unit-tested with a fake trainer and a fake clock:
- one run at a time; a tab that presses Train while another trains joins a first-come queue and is
  told its place; at most `Caps.queue` tabs wait;
- a run stops at `Caps.steps` updates or `Caps.seconds`, when it is solved (exact match ≥
  `Caps.solved` on fresh sequences), when its tab presses Stop, or when its tab has not been heard
  from for `Caps.heartbeat` seconds, or its websocket has closed (`connected`): closing the tab
  stops its run at once; the page's fragment calls `status()` every `Caps.redraw` seconds, which is
  the heartbeat, so leaving the page stops it too; a queued place is given up the same ways;
- every run builds its own fresh model: the shipped models are never touched;
- the worker starts when the page is first opened and builds one throwaway trainer (`warm_up`):
  PyTorch's first optimiser imports `torch._dynamo`, which took from 7 s to over two minutes inside a
  busy server; after that a run starts at once;
- the worker runs PyTorch on `Caps.threads` thread(s) (`torch.set_num_threads` is per thread with
  this PyTorch build), so the pages keep the other cores.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import streamlit as st
import torch
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from analysis.heads import NEAR_UNIFORM
from training import toy

KINDS = toy.KINDS
LETTERS = "ABCDEFGHIJKLMNOP"  # the task's 16 symbols, written as letters
EXAMPLE = "FLAMINGO"  # the example whose cross-attention is drawn: 8 different letters
END = "EOS"  # the end-of-sequence token, as the figures label it
RECIPE = toy.ToyRecipe()  # d_model 64, 4 heads, 2 layers: learns `reverse` in well under a minute here
SEED = 0
OWNER_KEY = "lt_owner"

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
    """The server-wide queue, caps and worker thread of the live training (see the module docstring).

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


def example_symbols() -> list[int]:
    return [toy.FIRST_SYMBOL + LETTERS.index(c) for c in EXAMPLE]


def labels(kind: str) -> tuple[list[str], list[str]]:
    """(rows, columns) of the example's cross-attention: the letter each decoder position writes, and
    the source letters (both ending with the end token)."""
    task = toy.ToyTask(kind)
    written = [LETTERS[s - toy.FIRST_SYMBOL] for s in task.answer(example_symbols())]
    return [*written, END], [*EXAMPLE, END]


def _snapshot(model, task: toy.ToyTask) -> tuple[list, list[float]]:
    attention = toy.cross_attention(model, task, example_symbols())  # (L, T, S)
    return [layer.tolist() for layer in attention], toy.broadness(attention)


def train_toy_run(run: Run, coordinator: Coordinator) -> None:
    """The real trainer: a fresh toy model, one update at a time, until the coordinator says stop."""
    caps = coordinator.caps
    task = toy.ToyTask(run.kind)
    trainer = toy.ToyTrainer(task, RECIPE, SEED)
    attention, spread = _snapshot(trainer.model, task)
    coordinator.publish(run, attention=attention, broadness=spread)
    while coordinator.stop_reason(run) is None:
        loss = trainer.step()
        step = trainer.steps
        coordinator.publish(run, step=step, loss=loss)
        if step % caps.attention_every == 0:
            attention, spread = _snapshot(trainer.model, task)
            coordinator.publish(run, attention=attention, broadness=spread)
        if step % caps.eval_every == 0:
            exact = toy.exact_match(trainer.model, task, n=200)
            coordinator.publish(run, exact=exact, alignment=toy.alignment_accuracy(trainer.model, task, n=50))


# --- Streamlit side -------------------------------------------------------------------------
def warm_up() -> None:
    """Build a trainer once and throw it away: PyTorch imports `torch._dynamo` (seconds; minutes on a
    busy 2-core server, where it competes with the pages for the interpreter) the first time any
    optimiser is made, and no other page makes one."""
    toy.ToyTrainer(toy.ToyTask(), RECIPE, SEED)


@st.cache_resource(show_spinner=False)
def coordinator() -> Coordinator:
    """The one coordinator of this server process, shared by every session (its worker warms up at once)."""
    return Coordinator(warm_up=warm_up, alive=connected)


def _active(session_id: str) -> bool | None:
    """The server's answer to "is this session's websocket open?", or None where no server can say
    (AppTest runs pages with a stand-in runtime)."""
    if not runtime.exists():
        return None
    answer = runtime.get_instance().is_active_session(session_id)
    return answer if isinstance(answer, bool) else None


def owner() -> str:
    """This browser tab's id: its Streamlit session id on a server (one session = one tab), so that
    `connected` sees the tab close; else a random "local-" id kept in the session (AppTest gives every
    session the same session id)."""
    ctx = get_script_run_ctx()
    if ctx is not None and _active(ctx.session_id):
        return ctx.session_id
    if OWNER_KEY not in st.session_state:
        st.session_state[OWNER_KEY] = f"local-{uuid.uuid4().hex}"
    return st.session_state[OWNER_KEY]


def connected(owner: str) -> bool:
    """Whether this tab's websocket is still open (closing the tab closes it at once). True where no
    server can say: the heartbeat alone then decides."""
    return owner.startswith("local-") or _active(owner) is not False


@st.cache_data(show_spinner=False, max_entries=4)
def untrained(kind: str) -> Status:
    """What a run starts from: the cross-attention of the fresh model every run begins with (step 0)."""
    task = toy.ToyTask(kind)
    with torch.no_grad():
        attention, spread = _snapshot(toy.fresh_model(task, RECIPE, SEED), task)
    return Status(IDLE, kind, attention=tuple(attention), broadness=tuple(spread))


def loss_floor() -> float:
    """The lowest loss the recipe's label smoothing allows (where a solved run levels off)."""
    return toy.loss_floor(toy.ToyTask().vocab_size, RECIPE.smoothing)



def shown(now: Status, kind: str) -> Status:
    """What the page draws: this tab's run of this task once it has started, else the untrained model."""
    start = untrained(kind)
    if now.state not in (RUNNING, FINISHED) or now.kind != kind:
        return start
    if not now.attention:  # the run's first snapshot is not published yet
        return replace(now, attention=start.attention, broadness=start.broadness)
    return now


def ending(now: Status) -> str:
    """One plain sentence on how a finished run ended."""
    caps, done = now.caps, f"{now.step:,} steps ({now.seconds:.0f} s)"
    exact = f"{now.exact_match:.0%} of 200 fresh rows exactly right" if now.exact_match is not None else ""
    first = now.first_above
    reached = f" It first passed 95% at step {first[0]:,}." if first and now.reason != SOLVED else ""
    if now.reason == SOLVED:
        return f"Solved: {exact} after {done}."
    if now.reason in (STEP_CAP, TIME_CAP):
        cap = f"{caps.steps:,} steps" if now.reason == STEP_CAP else f"{caps.seconds:.0f} seconds"
        return f"Stopped at the cap of {cap} after {done}" + (f": {exact}." if exact else ".") + reached
    if now.reason == STOPPED:
        return f"You stopped the run after {done}" + (f": {exact}." if exact else ".") + reached
    if now.reason == GONE:
        return (f"The run stopped after {done}: this tab was closed, or it was not heard from for "
                f"{caps.heartbeat:.0f} s (the page was left, or the connection dropped).")
    return f"The run stopped after {done}: {now.reason}."


def attention_text(now: Status, kind: str) -> str:
    """The paragraph above the attention figures, true for what they show."""
    rows, _ = labels(kind)
    target = "".join(rows[:-1])
    line = "anti-diagonal" if kind == "reverse" else "diagonal"
    how = ("to write its first letter the decoder must read the last source letter, then the one before"
           if kind == "reverse" else "to write its i-th letter the decoder must read the i-th source letter")
    intro = (f"The example is {EXAMPLE} → {target} (plus the end token). Rows are the letters the decoder "
             f"writes (queries), columns the source letters (keys); each row sums to 1. The right answer "
             f"is the {line}: {how}.")
    if not now.losses:
        spread = " and ".join(f"{b:.2f}" for b in now.broadness)
        weights = [w for layer in now.attention for row in layer for w in row]
        n = len(EXAMPLE) + 1
        return (f"**Step 0, before any training.** {intro} The untrained model spreads every row over all "
                f"{n} source tokens with no pattern: its weights lie between {min(weights):.2f} and "
                f"{max(weights):.2f}, where an even spread would give {1 / n:.2f} each (entropy {spread} of "
                "its maximum, where 1 is perfectly even). There is no alignment to read yet.")
    return f"**Step {now.attention_step:,}.** {intro}"


def layer_caption(now: Status, layer: int) -> str:
    """Under one layer's figure: how even its rows are and, after an evaluation, how often it aligns."""
    parts = []
    if layer < len(now.broadness):
        value = now.broadness[layer]
        parts.append(f"Entropy {value:.2f} of its maximum (1 = an even spread).")
        if value > NEAR_UNIFORM:
            parts.append("Near-uniform: no alignment to read here.")
    if layer < len(now.alignment) and now.evals:
        parts.append(f"At step {now.evals[-1][0]:,}, its largest weight fell on the right source letter for "
                     f"{now.alignment[layer]:.0%} of the letters of 50 fresh rows.")
    return " ".join(parts)
