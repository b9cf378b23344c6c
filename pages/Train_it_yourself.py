"""Train it yourself: a tiny Transformer learns to reverse (or copy) a row of letters while you watch
(paper §5, training; §3.2.3, encoder-decoder attention forming)."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro

header("Train it yourself", icon=":material/fitness_center:")  # on screen while PyTorch is imported
intro(
    "Press **Train** and a brand-new Transformer, with the same code as the big model (encoder, decoder, "
    "Adam with warm-up, label smoothing) but tiny (2 layers, 4 heads, d_model 64), learns one job on the "
    "server's CPU while you watch: write a row of letters backwards (or copy it). Every step shows it 64 "
    "new random rows. It starts knowing nothing; in well under a minute it gets nearly every row right, and "
    "its encoder-decoder attention turns from a grey fog into a sharp line: to write its first letter "
    "the decoder must look at the last letter of the source, then the one before, and so on.",
    sentence=False,  # this model reads letters: no box for the sentence
)
from ui import live_train  # noqa: E402
from ui import live_train_views as views  # noqa: E402
from ui.live_train_run import RECIPE, labels, loss_floor  # noqa: E402
from ui.page import setup  # noqa: E402
from ui.render import column_width, control_columns, figure_columns, show_figure  # noqa: E402
from viz.heatmap import attention_heatmap  # noqa: E402
from viz.training import loss_curve  # noqa: E402

TASKS = {"reverse": "Reverse the letters", "copy": "Copy the letters"}

p = setup()
coordinator = views.coordinator()
me = views.owner()

st.caption(
    "The sentence in the sidebar is not used here: this model reads letters, not English. One run trains "
    "on the server at a time: closing the tab stops yours at once, leaving this page within "
    f"{coordinator.caps.heartbeat:.0f} seconds."
)


def _train() -> None:
    coordinator.submit(me, st.session_state["lt_kind"])


def _stop() -> None:
    coordinator.cancel(me)


status = coordinator.status(me)
caps = status.caps
row = control_columns([4, 1, 1], vertical_alignment="bottom")  # presenter mode: one line, room for the loss
if "lt_kind" not in st.session_state and status.kind in TASKS:  # back on the page: the task of this tab's run
    st.session_state["lt_kind"] = status.kind
kind = row[0].radio("Task", list(TASKS), format_func=TASKS.get, horizontal=True, key="lt_kind",
                    disabled=status.active)
left, right = row[1:] if p.sel.presenter else st.columns([1, 1, 5])[:2]
left.button("Train", type="primary", key="lt_train", on_click=_train, disabled=status.active,
            help=f"At most {caps.steps:,} steps or {caps.seconds:.0f} s; it stops early once solved.")
right.button("Stop", key="lt_stop", on_click=_stop, disabled=not status.active)


def _message(now: live_train.Status) -> None:
    if now.state == live_train.FULL:
        st.warning(f"{now.queued} tabs are already waiting to train. Try again in a minute.")
    elif now.state == live_train.QUEUED:
        st.info(
            f"Another tab is training right now (one run at a time on this server). You are number "
            f"{now.position} in the queue: your run starts by itself when its turn comes (each run takes at "
            f"most {caps.seconds:.0f} s). Keep this tab open."
        )
    elif now.state == live_train.RUNNING:
        st.info(f"Training on the server's CPU: step {now.step:,}, {now.seconds:.0f} s.")
    elif now.state == live_train.FINISHED and now.kind == kind:  # the figures show this run
        text = views.ending(now)
        (st.success if now.reason == live_train.SOLVED else st.info)(text)
    elif now.busy:
        st.caption("Another tab is training right now: pressing Train puts you in the queue.")


@st.fragment(run_every=caps.redraw if status.active else None)
def live() -> None:
    """Everything that changes while a run goes: redrawn every `caps.redraw` seconds (the heartbeat)."""
    now = coordinator.status(me)
    if now.active != status.active:  # the run started or ended: redraw the buttons too
        st.rerun()
    _message(now)
    shown = views.shown(now, kind)
    cols = st.columns(4)
    cols[0].metric("Step", f"{shown.step:,}")
    cols[1].metric("Seconds", f"{shown.seconds:.0f}")
    cols[2].metric("Loss", f"{shown.losses[-1]:.3f}" if shown.losses else "–")
    cols[3].metric("Exact match", f"{shown.exact_match:.0%}" if shown.exact_match is not None else "–")
    floor = loss_floor()
    show_figure(
        loss_curve(shown.losses, shown.evals, floor, p.colors["categorical"], caps.steps),
        key="lt_loss", export=False,
        caption=f"Loss: the label-smoothed cross-entropy of each training batch (64 new random rows). It "
        f"cannot go below the dotted line (≈ {floor:.2f}): label smoothing keeps 10% of every target spread "
        f"over all tokens. Exact match: the share of 200 fresh rows answered exactly right (greedy "
        f"decoding), measured every {caps.eval_every} steps.",
    )  # fmt: skip
    st.subheader("Encoder-decoder attention on one example")
    rows, columns = labels(kind)
    st.markdown(views.attention_text(shown, kind))
    heads = RECIPE.n_heads
    for layer, col in enumerate(figure_columns(len(shown.attention))):
        with col:
            show_figure(
                attention_heatmap(shown.attention[layer], rows, columns,
                                  f"Decoder layer {p.sel.show_layer(layer)}, mean of its {heads} heads",
                                  colorscale=p.colors["sequential"],
                                  max_width=column_width(len(shown.attention), p.sel)),
                key=f"lt_attention_{layer}", export=False,
                caption=views.layer_caption(shown, layer),
            )  # fmt: skip


live()
