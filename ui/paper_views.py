"""The paper figures page's sentences, controls and figures: the paper's Figures 3, 4 and 5 remade on our
model (`viz.paper`) for the encoder layer on screen; what the paper shows against what the model shows
is measured in `ui.paper`."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from analysis.decoding import HeadScore, find_word, rank_heads, words
from transformer.trace import Trace
from ui import model as model_io
from ui import paper as evidence
from ui.page import Page
from ui.presets import PRESETS
from ui.render import column_width, figure_columns, literal_markdown, show_figure
from ui.uniform import grid, heads_by_focus, uniform_note
from ui.url_state import url_widget
from viz import paper
from viz.labels import choices, token_labels

FIGURE3 = PRESETS["Paper Figure 3 (making … more difficult)"]
FIGURES45 = PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]


def encoder_trace(p: Page, sentence: str, use_own: bool) -> Trace:
    """The paper's `sentence`, or with `use_own` the reader's. Encoder self-attention does not depend on
    the decoder, so no translation is needed (decoder = <s>)."""
    return model_io.trace(p.lm.model_id, p.src.text if use_own else sentence, target_ids=())


@dataclass(frozen=True)
class Figures:
    """The page's figures for encoder self-attention in one layer, and the words they share."""

    p: Page
    layer: int  # 0-based: the layer on screen

    @property
    def head_names(self) -> list[str]:
        return [f"head {self.p.sel.show_head(h)}" for h in range(self.p.n_heads)]

    @property
    def numbering(self) -> str:
        return f"Layers and heads are numbered {self.p.sel.numbering}."

    @property
    def where(self) -> str:
        return f"encoder self-attention, layer {self.p.sel.show_layer(self.layer)} of {self.p.n_layers}"

    def _weights(self, trace: Trace, layer: int | None = None):
        return trace.attention("encoder", "self", self.layer if layer is None else layer)  # (H, S, S)

    def figure3(self, tr3: Trace, best3: HeadScore | None, where=None) -> None:
        """Figure 3: the lines leaving one query token in every head, as a heatmap too, and in the head
        of the whole encoder with the strongest evidence (`best3`; None: the sentence has not the paper's
        words, and no evidence to draw); the query token's picker in `where` (default: above the figures)."""
        p, sel, head_names, colors = self.p, self.p.sel, self.head_names, self.p.colors["categorical"]
        labels3 = token_labels(tr3.src_pieces, p.sel.pieces)
        weights3 = self._weights(tr3)
        url_widget(
            "q3", "paper_q3", evidence.default_position(tr3.src_pieces, "making"), list(range(len(labels3)))
        )
        names3 = choices(labels3)
        query3 = (where or st).selectbox(
            "Query token", range(len(labels3)), format_func=lambda i: names3[i], key="paper_q3"
        )
        show_figure(
            paper.figure3(
                weights3, labels3, query3, head_names, colors, f"Figure 3 on our model: {self.where}"
            ),
            key="paper_fig3",
            caption="Lines from the chosen query token to every key it gives at least 1% of its attention, "
            f"one colour per head. {self.numbering}",
        )
        show_figure(
            paper.query_rows_heatmap(
                weights3,
                labels3,
                query3,
                head_names,
                f"The same weights as a heatmap: {self.where}",
                colorscale=p.colors["sequential"],
                max_width=column_width(1),
            ),
            key="paper_fig3_heatmap",
            caption=self.numbering,
        )
        uniform_note(tr3, "encoder", "self", self.layer)
        if best3 is None:
            return
        show_figure(
            paper.figure3(
                self._weights(tr3, best3.layer),
                labels3,
                query3,
                head_names,
                colors,
                f"This model's strongest evidence, anywhere: encoder layer "
                f"{sel.show_layer(best3.layer)}, {head_names[best3.head]}",
                heads=[best3.head],
            ),
            key="paper_fig3_best",
            caption=f"The head of the whole encoder that gives the measured words the most weight (the "
            f"number above), drawn for the chosen query token. {self.numbering}",
        )

    def figure4(self, tr4: Trace) -> None:
        """Figure 4: every line of one head (top), and the lines leaving *its* in the heads that link it
        to *Law* most strongly (bottom), the heads to pick."""
        p, sel, head_names, colors = self.p, self.p.sel, self.head_names, self.p.colors["categorical"]
        pieces4 = tr4.src_pieces
        labels4 = token_labels(pieces4, p.sel.pieces)
        weights4 = self._weights(tr4)
        its = find_word(pieces4, "its") or words(pieces4)[0]
        law = find_word(pieces4, "Law") or words(pieces4)[min(1, len(words(pieces4)) - 1)]
        in_layer = [s.head for s in rank_heads(tr4, its.positions, law.positions) if s.layer == self.layer]
        cols = st.columns(2)
        all_heads, off = list(range(p.n_heads)), int(sel.one_based)
        url_widget("full", "paper_fig4_full", in_layer[0], all_heads, offset=off)
        full_head = cols[0].selectbox(
            "Head for the full picture (top)",
            all_heads,
            format_func=lambda h: head_names[h],
            key="paper_fig4_full",
        )
        url_widget("iso", "paper_fig4_iso", in_layer[:2], all_heads, offset=off)
        iso_heads = cols[1].multiselect(
            "Heads for the isolated picture (bottom)",
            all_heads,
            format_func=lambda h: head_names[h],
            key="paper_fig4_iso",
        )
        show_figure(
            paper.figure_full(
                weights4,
                labels4,
                [full_head],
                head_names,
                colors,
                f"Figure 4 (top) on our model: {self.where}, {head_names[full_head]}, all tokens",
            ),
            key="paper_fig4_top",
            caption=f"Lines of weight at least 0.05. {self.numbering}",
        )
        uniform_note(tr4, "encoder", "self", self.layer, full_head)
        its_query = its.positions[0]
        if iso_heads:
            show_figure(
                paper.figure3(
                    weights4,
                    labels4,
                    its_query,
                    head_names,
                    colors,
                    f"Figure 4 (bottom) on our model: {self.where}, lines from one token",
                    heads=iso_heads,
                ),
                key="paper_fig4_bottom",
                caption=f"Only the lines leaving “{literal_markdown(its.text)}” (position {its_query}, "
                f"counting from 0). {self.numbering}",
            )
            uniform_note(tr4, "encoder", "self", self.layer, iso_heads)
        else:
            st.info("Choose at least one head for the isolated picture.")

    def figure5_pair(self, tr4: Trace) -> list[int]:
        """Figure 5's two heads to compare, opening on the layer's two most focused."""
        sel, head_names, all_heads = self.p.sel, self.head_names, list(range(self.p.n_heads))
        focused = heads_by_focus(tr4, "encoder", "self", self.layer)
        pair_default = [sel.head, *(h for h in focused if h != sel.head)][:2]
        pair_key = f"paper_fig5_heads_{self.layer}"  # each layer starts from its own most focused heads
        url_widget("pair", pair_key, pair_default, all_heads, offset=int(sel.one_based), max_items=2)
        return st.multiselect(
            "Two heads to compare",
            all_heads,
            max_selections=2,
            format_func=lambda h: head_names[h],
            key=pair_key,
        )

    def evenness(self, tr4: Trace, pair: list[int]) -> str:
        """How evenly each head of `pair` spreads its weight, in words (`ui.uniform.grid`)."""
        broad = grid(tr4, "encoder", "self")[self.layer]  # (H,) entropy ÷ its maximum
        return "; ".join(f"{self.head_names[h]} has evenness {float(broad[h]):.2f}" for h in pair)

    def figure5(self, tr4: Trace, pair: list[int]) -> None:
        """Figure 5: every line of each head of `pair`, side by side."""
        labels4 = token_labels(tr4.src_pieces, self.p.sel.pieces)
        head_names, colors = self.head_names, self.p.colors["categorical"]
        fig5_cols = figure_columns(2)
        for i, h in enumerate(pair):
            with fig5_cols[i]:
                show_figure(
                    paper.figure_full(
                        self._weights(tr4),
                        labels4,
                        [h],
                        head_names,
                        colors,
                        f"Figure 5 on our model: {self.where}, {head_names[h]}",
                    ),
                    key=f"paper_fig5_{i}",
                    caption=self.numbering,
                )
                uniform_note(tr4, "encoder", "self", self.layer, h)
