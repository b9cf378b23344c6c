"""The decoder page's sections below its prose: the layer and head, the decoder input (the sidebar's choice
or a forcing built on it, `ui.forcing`) and the figures drawn on it, "Next token" and its candidates, and
the beam search. Figures come from `ui.generation`; the page keeps its words and its order."""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from analysis.decoding import step_from_trace, step_limit
from attention_atlas.decoder_input import DecoderInput
from transformer.trace import Trace
from ui import decoder_live, decoder_reads, forcing, generation, sampling, state, url_state
from ui import model as model_io
from ui.forcing import Forcing
from ui.generation import TOP_K
from ui.page import Page, fresh
from ui.render import markdown_table, show_figure
from ui.rows import WRITES_NOTE
from ui.state import Selection
from ui.uniform import uniform_note
from viz import decoding as dec_viz

# The newest query's rows, tab by tab: figure name, attention kind, whether it shows the chosen layer.
ROW_TABS = {
    "Cross-attention, this layer": ("cross", "cross", True),
    "Self-attention, this layer": ("self", "self", True),
    "Cross-attention, layer by layer": ("layers", "cross", False),
}


@dataclass(frozen=True)
class View:
    """One run of the page's decoder part: the selection, what the decoder reads and its trace."""

    p: Page
    sel: Selection
    chosen: DecoderInput  # after the forcing, if any
    context: tuple  # (model id, sentence, the sidebar's decoder choice): what a forcing belongs to
    forcing: Forcing | None
    base: tuple[int, ...]  # where "Next token" starts without the forcing
    trace: Trace

    @property
    def shown(self) -> Selection:
        """What the figures depend on."""
        return replace(self.sel, kind="self", chosen=frozenset())

    @property
    def numbering(self) -> str:
        return f"Layers and heads are numbered {self.sel.numbering}."

    @property
    def start(self) -> tuple[int, ...]:
        """Where "Next token" starts: after an own or forced prefix, else after `<s>` alone."""
        return self.chosen.ids if self.chosen.used in ("own", "forced") else ()


def view(page: Page) -> View:
    """The layer and head sliders, and the decoder input every figure below them is drawn on."""
    p = fresh(page)
    sel = p.sel
    cols = st.columns(2)
    layer = sel.index(cols[0].slider(f"Decoder layer ({sel.numbering})", *sel.shown_range(p.n_layers),
                                     sel.show_layer(), key="atlas_layer"))  # fmt: skip
    head = sel.index(cols[1].slider(f"Head ({sel.numbering})", *sel.shown_range(p.n_heads), sel.show_head(),
                                    key="atlas_head"))  # fmt: skip
    if (layer, head, sel.stack) != (sel.layer, sel.head, "decoder"):
        kind = sel.kind if sel.stack == "decoder" else "self"
        sel = state.update(layer=layer, head=head, stack="decoder", kind=kind)
    chosen = model_io.decoder_input(p.lm.model_id, p.src.text, sel.decoder_choice)  # as on every page
    context = (p.lm.model_id, p.src.text, sel.decoder_choice)
    forced = forcing.current(context, p.lm)
    base = chosen.ids if chosen.used == "own" else ()
    chosen = forcing.applied(chosen, forced)
    return View(p, sel, chosen, context, forced, base, model_io.trace(p.lm.model_id, p.src.text, chosen.ids))


def self_attention(v: View) -> None:
    show_figure(
        generation.self_figure(v.p.lm.model_id, v.p.src.text, v.shown, v.chosen.ids),
        key="dec_self",
        caption=f"Grey cells are blocked (a future position). {decoder_reads.words(v.chosen)} {v.numbering}",
        displayed=True,
    )
    uniform_note(v.trace, "decoder", "self", v.sel.layer, v.sel.head)


def cross_attention(v: View) -> None:
    cross, right, why_not = generation.cross_figures(v.p.lm.model_id, v.p.src.text, replace(v.shown, head=0),
                                                     v.chosen.ids)  # fmt: skip
    if why_not:  # the numbers model did not write the right answer: no gold to draw
        st.caption(why_not)
    show_figure(
        cross["average"],
        key="dec_cross_avg",
        caption=f"Rows = queries (German, decoder), columns = keys (English, encoder). {WRITES_NOTE} "
        f"{v.numbering}" + (f" {right}" if right else ""),
        displayed=True,
    )
    uniform_note(v.trace, "decoder", "cross", v.sel.layer)
    # Figures a reader opens are drawn when opened (`on_change="rerun"`): a closed expander or tab would
    # still draw its figure, and every figure drawn makes a new browser session wait for it.
    with st.expander("Cross-attention head by head", key="dec_heads_open", on_change="rerun") as box:
        if box.open:
            show_figure(cross["heads"], key="dec_cross_heads", caption=f"{WRITES_NOTE} {v.numbering}",
                        displayed=True)  # fmt: skip


RESET_HELP = {None: "Takes back every token Next token appended: the decoder reads <s> alone again.",
              "own": "Takes back the tokens Next token appended after your own German prefix.",
              "forced": "Takes back the tokens Next token appended after the last token you forced (the "
                        "forced ones stay: Clear the forcing takes them back)."}
STARTS_AFTER = {"own": "of your own German prefix", "forced": "up to the last one you forced"}


def input_line(steps: int, started: int, used: str, pieces: list[str]) -> str:
    """The decoder input "Next token" has reached (`pieces`, `<s>` first) and how: `steps` tokens it
    appended after `started` tokens that an own prefix or a forcing put there (`used`)."""
    how = ""
    if started and used in STARTS_AFTER:  # "after 0 step(s)" alone read wrong beside four tokens read
        how = f" of Next token from {started} token(s) {STARTS_AFTER[used]}"
    return f"Decoder input after {steps} step(s){how}: " + " ".join(pieces)


def start_words(v: View) -> str:
    """Where "Next token" starts, when not at `<s>`."""
    return {"own": " Here it starts after your own German prefix and continues it.",
            "forced": " Here it starts after the last token you forced."}.get(v.chosen.used, "")  # fmt: skip


def generating(v: View) -> None:
    """The "Next token" button, the candidates to force, and the newest query's probabilities and rows."""
    p, start = v.p, v.start
    key = forcing.steps_key(v.context, start)
    if key not in st.session_state:  # a link names how many tokens were generated ("tokens")
        asked = url_state.decode(st.query_params.get("tokens"), 0, low=0)
        st.session_state[key] = generation.greedy_prefix(p.lm.model_id, p.src.text, asked, start)
    prefix = list(st.session_state[key])
    url_state.url_value("tokens", len(prefix) - len(start), 0)
    step_tr = model_io.trace(p.lm.model_id, p.src.text, target_ids=tuple(prefix))
    step = step_from_trace(step_tr, TOP_K)
    finished = bool(prefix) and prefix[-1] == p.lm.tokenizer.eos_id
    at_limit = len(prefix) >= step_limit(p.lm.model, len(p.src.ids))

    settings = sampling.controls()  # None: greedy
    drawn = sampling.draw(step_tr, settings) if settings and not (finished or at_limit) else None

    def _append(token_id: int) -> None:
        st.session_state[key] = [*st.session_state.get(key, []), token_id]
        if drawn is not None:
            sampling.taken()

    def _reset() -> None:
        st.session_state[key] = list(start)

    # A row of buttons each as wide as its label: in a sixth of the 560-px column (1024 px wide, the
    # sidebar open) "Next token" was cut to "Next to…".
    buttons = st.container(horizontal=True)
    next_id = drawn.token_id if drawn else step.next_id
    buttons.button("Next token", key="dec_next", on_click=_append, args=(next_id,),
                   disabled=finished or at_limit, type="primary")  # fmt: skip
    buttons.button("Reset", key="dec_reset", on_click=_reset, disabled=len(prefix) == len(start),
                   help=RESET_HELP.get(v.chosen.used, RESET_HELP[None]))
    st.text(input_line(len(prefix) - len(start), len(start), v.chosen.used, step_tr.tgt_pieces))
    forcing.controls(p.lm, v.context, v.forcing, v.base)
    if finished:
        by_you = v.forcing is not None and v.forcing.ids == tuple(prefix)  # the last forced token ends it
        st.success(f"{'You' if by_you else 'The model'} produced `</s>`: the translation is finished.")
        st.text(p.lm.tokenizer.decode(prefix))
    elif at_limit:
        st.warning("Reached the maximum output length (input length + 50) without `</s>`.")
    figs = generation.step_figures(p.lm.model_id, p.src.text, tuple(prefix), replace(v.shown, head=0))
    if not finished:
        st.markdown(
            "Or **force** one of the candidates (teacher forcing): the decoder reads it next, whatever the "
            "model prefers, and every figure on this page is drawn with it."
        )
        forcing.candidates(p.lm, v.context, v.forcing, tuple(prefix), (step.top_ids, step.top_probs),
                           v.sel.pieces, at_limit)  # fmt: skip
        show_figure(
            figs["topk"],
            key="dec_topk",
            caption=f"Together these {TOP_K} tokens hold {sum(step.top_probs):.1%} of the probability; "
            f"the rest is spread over the other {p.lm.model.config.vocab_size - TOP_K:,} tokens of the "
            "vocabulary. The highlighted bar is the one greedy decoding appends.",
            displayed=True,
        )
        if drawn is not None:
            pieces = [p.lm.tokenizer.id_to_piece(i) for i in drawn.dist.ids]
            sampling.show(drawn, pieces, p.colors, v.sel.pieces)
    st.markdown("The newest query's new row in each attention (one tab at a time):")
    tabs = st.tabs(list(ROW_TABS), key="dec_rows", on_change="rerun")
    for tab, (name, kind, one_layer) in zip(tabs, ROW_TABS.values()):
        if tab.open:
            with tab:
                show_figure(figs[name], key=f"dec_step_{name}", caption=v.numbering, displayed=True)
                uniform_note(step_tr, "decoder", kind, v.sel.layer if one_layer else None)
    # a layer or head is drawn in the browser first; the rerun the slider starts keeps the URL in step
    this_layer = {name: f"dec_step_{name}" for name, _, one_layer in ROW_TABS.values() if one_layer}
    decoder_live.switch_in_browser(p.lm.model_id, p.src.text, v.shown, v.chosen.ids, tuple(prefix),
                                   this_layer)  # fmt: skip


def beam_search(page: Page) -> None:
    """The beam's candidates as a table (and as bars when opened), and the greedy translation."""
    result = model_io.translate(page.lm.model_id, page.src.text)
    if result["beam"]:
        # A Markdown table: a few rows need no grid, and st.table or st.dataframe would load Arrow's script
        # in a new session. The model's own text shows as written (markdown_table escapes every cell).
        st.markdown(markdown_table(dec_viz.beam_rows(result["beam"])))
        with st.expander("The same scores as bars", key="dec_beam_open", on_change="rerun") as box:
            if box.open:
                show_figure(
                    dec_viz.beam_figure(
                        result["beam"],
                        "Beam candidates (higher is better)",
                        color=page.colors["categorical"][0],
                    ),
                    key="dec_beam",
                )
    st.caption("Greedy translation, for comparison:")
    st.text(result["greedy"]["text"] if result["greedy"] else "")
