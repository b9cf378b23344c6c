"""The encoder layer page's activations and figures (§3.1, §3.3, §5.4): one layer's stages, its
feed-forward network's hidden units, and each token's vector from layer to layer.

Read from the trace by hook name (`docs/HOOKS.md`); the figures are drawn anew on every run, as the
page drew them."""

from __future__ import annotations

from functools import partial

import streamlit as st
import torch

from transformer.trace import Trace, layer_hook
from ui import state
from ui.page import Page
from ui.state import Selection
from viz import layers as layer_viz


def layer_slider(p: Page, where=None) -> tuple[Selection, int]:
    """The page's encoder-layer slider (in `where`, default the page): the selection (with the layer moved
    there) and the layer, 0-based."""
    sel = p.sel
    number = (where or st).slider(
        f"Encoder layer ({sel.numbering})", *sel.shown_range(p.n_layers), sel.show_layer(), key="atlas_layer"
    )
    layer = sel.index(number)
    if layer != sel.layer:
        sel = state.update(layer=layer)
    return sel, layer


def stages(tr: Trace, layer: int, sel: Selection) -> list[tuple[str, torch.Tensor]]:
    """(name, activations (S, d_model)) at every stage of encoder layer `layer`, its input first."""
    name = partial(layer_hook, "encoder", layer)  # (what, part) -> this layer's hook name
    layer_input = tr.get("src_pos_enc.hook_sum") if layer == 0 else tr.layer_output("encoder", layer - 1)
    input_name = "embedding + PE" if layer == 0 else f"output of layer {sel.show_layer(layer - 1)}"
    return [
        (f"input x ({input_name})", layer_input),
        ("self-attention output", tr.get(name("out", "self_attn"))),
        ("x + attention (residual)", tr.get(name("resid_attn"))),
        ("LayerNorm 1", tr.get(name("norm1"))),
        ("FFN output", tr.get(name("out", "ffn"))),
        ("LayerNorm 1 + FFN (residual)", tr.get(name("resid_ffn"))),
        ("LayerNorm 2 = layer output", tr.get(name("norm2"))),
    ]


def stage_figure(values: torch.Tensor, labels: list[str], title: str, colors: dict):
    """One stage's vectors, a row per token."""
    return layer_viz.activation_heatmap(values, labels, title, colorscale=colors["diverging"])


def norms_figure(stages: list[tuple[str, torch.Tensor]], labels: list[str], title: str, colors: dict):
    """The length of each token's vector at each stage."""
    return layer_viz.stage_norms(stages, labels, title, colors=colors["categorical"])


def ffn_hidden(tr: Trace, layer: int) -> torch.Tensor:
    """The feed-forward network's hidden units of encoder layer `layer`, after its activation: (S, d_ff)."""
    return tr.get(layer_hook("encoder", layer, "hidden", "ffn"))


def zero_share(hidden: torch.Tensor, activation: str) -> float:
    """The share of hidden units switched off (ReLU: exactly 0; SiLU: at or below 0), over every token."""
    return float(layer_viz.ffn_zero_fraction(hidden, activation).mean())


def ffn_figure(hidden: torch.Tensor, labels: list[str], title: str, colors: dict, activation: str):
    """The hidden units (rows = tokens) beside each token's share of units that are 0."""
    return layer_viz.ffn_hidden_figure(
        hidden, labels, title, colorscale=colors["sequential"], activation=activation
    )


def changes_figure(tr: Trace, labels: list[str], sel: Selection, n_layers: int, colors: dict):
    """Each token's vector through the encoder: its cosine with the layer before, and its length."""
    reps = [tr.get("src_pos_enc.hook_sum"), *(tr.layer_output("encoder", i) for i in range(n_layers))]
    names = ["input", *(f"layer {sel.show_layer(i)}" for i in range(n_layers))]
    return layer_viz.layer_changes(
        reps, labels, names, "Each token's vector through the encoder", colors=colors["categorical"]
    )
