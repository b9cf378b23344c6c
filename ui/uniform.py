"""Saying so when a head spreads its weight evenly, and opening on the sentence's most focused head.

A head whose query rows have nearly the largest possible entropy (mean broadness, entropy ÷ ln of
the keys a row may attend to, above `heads.NEAR_UNIFORM`; see analysis.heads) draws a
picture with no structure in it. The shipped model's cross-attention is like that in every layer,
and so are many encoder heads: such a figure must not pass for an alignment.

- `note_text`: the plain-words note for one head, some heads, one layer or every layer (or None).
- `uniform_note`: shows that note next to a figure (`st.info`, plain text, never HTML).
- `focus_default`: the head inspector and the paper figures open on the sentence's most focused head
  (`heads.most_focused`) unless the URL or the reader named a layer or head (`Selection.chosen`).
- `focus_text`: the caption that says so, and that layer 5 is the paper's choice.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import streamlit as st
import torch

from analysis import heads
from transformer.trace import Trace
from ui import state
from ui.state import Selection
from viz.paper import PAPER_LAYER

if TYPE_CHECKING:
    from ui.page import Page

MAX_GRIDS = 256
_GRIDS: dict[tuple[int, str, str], tuple[weakref.ref, torch.Tensor]] = {}
_GRIDS_LOCK = threading.Lock()


def grid(trace: Trace, stack: str, kind: str) -> torch.Tensor:
    """`heads.broadness_grid` (L, H), computed once per trace object.

    The app's traces are shared cached objects that nothing writes to (tests/test_cache.py), so a
    page that notes several figures of one trace measures it once per trace, not once per figure. The
    weak reference makes sure a reused id() of a dropped trace never returns another trace's grid.
    """
    key = (id(trace), stack, kind)
    with _GRIDS_LOCK:
        hit = _GRIDS.get(key)
    if hit is not None and hit[0]() is trace:
        return hit[1]
    value = heads.broadness_grid(trace, stack, kind)  # (L, H)
    with _GRIDS_LOCK:
        if len(_GRIDS) >= MAX_GRIDS:
            _GRIDS.pop(next(iter(_GRIDS)))
        _GRIDS[key] = (weakref.ref(trace), value)
    return value


def _keys(trace: Trace, stack: str, kind: str) -> str:
    n = len(trace.key_pieces(stack, kind))
    if kind == "cross":
        return f"the {n} source tokens"
    if stack == "encoder":
        return f"the {n} tokens of the sentence"
    return f"the tokens each position may see (up to {n})"  # causal: row i sees i + 1 keys


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _entropy(values: list[float]) -> str:
    low, high = f"{min(values):.2f}", f"{max(values):.2f}"
    said = low if low == high else f"{low}–{high}"
    return f"evenness {said}, where 1 is a perfectly even spread"


def note_text(
    trace: Trace,
    stack: str,
    kind: str,
    layer: int | None = None,
    head: int | Sequence[int] | None = None,
    offset: int = 1,
) -> str | None:
    """What to say about near-uniform heads in a figure, or None when none of its heads is.

    Args:
        layer: 0-based; None for a figure of every layer (then `head` is ignored).
        head: one head (0-based), several (a figure of some heads), or None (every head of `layer`).
        offset: 1 to number layers and heads as the paper does, 0 for 0-based.
    """
    broadness = grid(trace, stack, kind)  # (L, H)
    n_layers, n_heads = broadness.shape
    keys = _keys(trace, stack, kind)
    nothing = "alignment" if kind == "cross" else "pattern"
    if layer is None:
        flat = [heads.uniform_heads(broadness[i]) for i in range(n_layers)]
        count = sum(len(f) for f in flat)
        if not count:
            return None
        values = [float(broadness[i, h]) for i, f in enumerate(flat) for h in f]
        if count == n_layers * n_heads:
            return (f"Every head of every layer spreads its weight almost evenly over {keys} "
                    f"({_entropy(values)}): there is no {nothing} to read here.")
        whole = [str(state.shown(i, offset)) for i, f in enumerate(flat) if len(f) == n_heads]
        among = f", among them every head of layer{'s' * (len(whole) > 1)} {_join(whole)}" if whole else ""
        spread = "spreads its weight" if count == 1 else "spread their weight"
        return (f"{count} of the {n_layers * n_heads} heads {spread} almost evenly over {keys} "
                f"(evenness above {heads.NEAR_UNIFORM:.2f}, where 1 is a perfectly even spread){among}: "
                f"there is no {nothing} to read in {'that head' if count == 1 else 'those heads'}.")
    shown = list(range(n_heads)) if head is None else [head] if isinstance(head, int) else list(head)
    flat = [h for h in heads.uniform_heads(broadness[layer]) if h in shown]
    if not flat:
        return None
    values = [float(broadness[layer, h]) for h in flat]
    where, numbers = f"layer {state.shown(layer, offset)}", [str(state.shown(h, offset)) for h in flat]
    if len(shown) == 1:
        return (f"Head {numbers[0]} of {where} spreads its weight almost evenly over {keys} "
                f"({_entropy(values)}): there is no {nothing} to read here.")
    if len(flat) == n_heads:
        return (f"Every head of {where} spreads its weight almost evenly over {keys} "
                f"({_entropy(values)}): there is no {nothing} to read here.")
    if len(flat) == 1:
        return (f"Head {numbers[0]} of {where} spreads its weight almost evenly over {keys} "
                f"({_entropy(values)}): there is no {nothing} to read in its picture.")
    return (f"Heads {_join(numbers)} of {where} spread their weight almost evenly over {keys} "
            f"({_entropy(values)}): there is no {nothing} to read in their pictures.")


def uniform_note(
    trace: Trace | None, stack: str, kind: str, layer: int | None, head: int | Sequence[int] | None = None
) -> str | None:
    """Show `note_text` under a figure (numbered as the sidebar says); returns what it showed."""
    if trace is None:
        return None
    sel = st.session_state.get(state.KEY)
    text = note_text(trace, stack, kind, layer, head, offset=int(sel.one_based) if sel is not None else 1)
    if text:
        st.info(text)
    return text


def default_pick(broadness: torch.Tensor, focus: tuple[int, int], sel: Selection) -> tuple[int, int]:
    """(layer, head) a page opens on: the reader's where chosen, else the most focused that fits.

    broadness: (L, H). Neither chosen: `focus`. Only the layer chosen: that layer's most focused head;
    only the head chosen: the layer where that head is most focused.
    """
    layer_chosen, head_chosen = "layer" in sel.chosen, "head" in sel.chosen
    if layer_chosen and head_chosen:
        return sel.layer, sel.head
    if layer_chosen:
        return sel.layer, heads.lowest(broadness[sel.layer][None])[1]
    if head_chosen:
        return heads.lowest(broadness[:, sel.head][:, None])[0], sel.head
    return focus


def heads_by_focus(trace: Trace, stack: str, kind: str, layer: int) -> list[int]:
    """The heads of one layer, most focused (lowest broadness) first."""
    row = torch.nan_to_num(grid(trace, stack, kind)[layer], nan=2.0)  # (H,)
    return [int(h) for h in row.argsort(stable=True)]


def focus_default(
    p: Page, trace: Trace | None, stack: str | None = None, kind: str | None = None
) -> tuple[Page, tuple[int, int] | None]:
    """Open on the sentence's most focused head unless the URL or the reader chose a layer / head.

    Returns (the page with its selection's layer and head set, the sentence's
    most focused (layer, head) or None when there is nothing to measure). The default is this page's
    own: it goes into the URL, so that a copied link shows this view, but never into the session's
    shared selection, so no other page opens on it (only what the reader picks is shared).
    """
    sel = p.sel
    stack, kind = stack or sel.stack, kind or sel.kind
    if trace is None:
        return p, None
    broadness = grid(trace, stack, kind)
    focus = heads.lowest(broadness)  # heads.most_focused, on the grid measured once
    if math.isnan(float(broadness[focus])):  # e.g. decoder self-attention of <s> alone: one key
        return p, None
    layer, head = default_pick(broadness, focus, sel)
    shown = replace(sel, layer=layer, head=head)
    if (layer, head) != (sel.layer, sel.head):
        state.sync_url(shown)
    return replace(p, sel=shown), focus


def focus_text(sel: Selection, trace: Trace, stack: str, kind: str, focus: tuple[int, int],
               whose: str = "this sentence's") -> str:
    """'Layer 5 is the paper's choice; this sentence's most focused head is layer L, head H …'."""
    layer, head = focus
    value = float(grid(trace, stack, kind)[layer, head])
    text = (f"Layer {sel.show_layer(PAPER_LAYER)} is the paper's choice; {whose} most focused head is layer "
            f"{sel.show_layer(layer)}, head {sel.show_head(head)} (evenness {value:.2f}: 0 = all weight on "
            f"one key, 1 = spread evenly over every key).")
    picked = {"layer", "head"} & sel.chosen
    if picked == {"layer", "head"}:
        return f"{text} Showing the layer and head that you (or your link) picked."
    if picked == {"layer"}:
        return f"{text} Showing the layer that you (or your link) picked, at its most focused head."
    if picked == {"head"}:
        return f"{text} Showing the head that you (or your link) picked, in its most focused layer."
    return f"{text} The page opens there; pick any other layer, the paper's included."
