"""Train it yourself's Streamlit side: the server's one coordinator, this tab's id and whether it is still
open, and what the page says about a run."""

from __future__ import annotations

import uuid
from dataclasses import replace

import streamlit as st
import torch
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from analysis.heads import NEAR_UNIFORM
from tasks import toy
from ui.live_train import (
    FINISHED,
    GONE,
    IDLE,
    RUNNING,
    SOLVED,
    STEP_CAP,
    STOPPED,
    TIME_CAP,
    Coordinator,
    Status,
)
from ui.live_train_run import EXAMPLE, RECIPE, SEED, labels, snapshot, warm_up

OWNER_KEY = "lt_owner"


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
        attention, spread = snapshot(toy.fresh_model(task, RECIPE, SEED), task)
    return Status(IDLE, kind, attention=tuple(attention), broadness=tuple(spread))


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
                f"{max(weights):.2f}, where an even spread would give {1 / n:.2f} each (evenness {spread}, "
                "where 1 is a perfectly even spread). There is no alignment to read yet.")
    return f"**Step {now.attention_step:,}.** {intro}"


def layer_caption(now: Status, layer: int) -> str:
    """Under one layer's figure: how even its rows are and, after an evaluation, how often it aligns."""
    parts = []
    if layer < len(now.broadness):
        value = now.broadness[layer]
        parts.append(f"Evenness {value:.2f} (0 = all weight on one key, 1 = an even spread).")
        if value > NEAR_UNIFORM:
            parts.append("Near-uniform: no alignment to read here.")
    if layer < len(now.alignment) and now.evals:
        parts.append(f"At step {now.evals[-1][0]:,}, its largest weight fell on the right source letter for "
                     f"{now.alignment[layer]:.0%} of the letters of 50 fresh rows.")
    return " ".join(parts)
