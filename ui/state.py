"""The shared, shareable selection: sentence, stack, kind, layer, head, and display settings.

Lives in `st.session_state` (kept when moving between pages) and is mirrored to the URL
(`st.query_params`) so a link reproduces the view. URL values are parsed defensively: anything
malformed, out of range or of the wrong type falls back to a default; nothing here ever raises.
Layers and heads are stored 0-based; `Selection.show_layer/show_head` give the displayed number.

A layer or head is the reader's own (`Selection.chosen`) when the URL names it or a slider moved it;
otherwise it is a default that a page may replace with a better one for the sentence (`suggest`), as
the head inspector does with the sentence's most focused head.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired."
MAX_URL_SENTENCE = 1000
STACK_KINDS = {"encoder": ("self",), "decoder": ("self", "cross")}
KEY = "atlas_selection"
PICKS = ("layer", "head")  # the fields a page may default for itself unless the reader chose them


@dataclass(frozen=True)
class Selection:
    sentence: str = DEFAULT_SENTENCE
    stack: str = "encoder"
    kind: str = "self"
    layer: int = 4  # 0-based: layer 5 of 6, as in the paper's figures
    head: int = 0
    one_based: bool = True
    palette: str = "default"  # or "colour-blind safe"
    presenter: bool = False
    pieces: bool = False  # label tokens with position and SentencePiece piece ("3:▁cat"), not the word
    chosen: frozenset[str] = frozenset()  # which of PICKS the URL named or the reader moved

    def show_layer(self, layer: int | None = None) -> int:
        return (self.layer if layer is None else layer) + int(self.one_based)

    def show_head(self, head: int | None = None) -> int:
        return (self.head if head is None else head) + int(self.one_based)

    @property
    def numbering(self) -> str:
        return "1-based" if self.one_based else "0-based"


def _int(value, default: int, low: int, high: int) -> int:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


def _flag(value, default: bool) -> bool:
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    return default


def parse_params(params: dict, n_layers: int, n_heads: int) -> Selection:
    """A Selection from URL parameters (strings); every bad value becomes the default.

    `layer` and `head` in the URL are as displayed (1-based unless `zero=1`). A `layer` or `head` the
    URL names counts as chosen even when its value is bad (it then falls back to the default).
    """
    d = Selection()
    one_based = not _flag(params.get("zero", "0"), False)
    offset = int(one_based)
    sentence = params.get("s", d.sentence)
    sentence = sentence[:MAX_URL_SENTENCE] if isinstance(sentence, str) else d.sentence
    stack = params.get("stack", d.stack)
    stack = stack if stack in STACK_KINDS else d.stack
    kind = params.get("kind", d.kind)
    kind = kind if kind in STACK_KINDS[stack] else STACK_KINDS[stack][0]
    layer = _int(params.get("layer"), min(d.layer, n_layers - 1) + offset, offset, n_layers - 1 + offset)
    head = _int(params.get("head"), d.head + offset, offset, n_heads - 1 + offset)
    palette = params.get("palette", d.palette)
    palette = palette if palette in ("default", "colour-blind safe") else d.palette
    return Selection(
        sentence=sentence,
        stack=stack,
        kind=kind,
        layer=layer - offset,
        head=head - offset,
        one_based=one_based,
        palette=palette,
        presenter=_flag(params.get("present", "0"), False),
        pieces=_flag(params.get("pieces", "0"), False),
        chosen=frozenset(name for name in PICKS if name in params),
    )


def to_params(sel: Selection) -> dict[str, str]:
    offset = int(sel.one_based)
    params = {
        "s": sel.sentence,
        "stack": sel.stack,
        "kind": sel.kind,
        "layer": str(sel.layer + offset),
        "head": str(sel.head + offset),
    }
    if not sel.one_based:
        params["zero"] = "1"
    if sel.palette != "default":
        params["palette"] = sel.palette
    if sel.presenter:
        params["present"] = "1"
    if sel.pieces:
        params["pieces"] = "1"
    return params


def current(n_layers: int, n_heads: int) -> Selection:
    """This session's selection: from session state, else from the URL the user opened."""
    if KEY not in st.session_state:
        st.session_state[KEY] = parse_params(st.query_params.to_dict(), n_layers, n_heads)
    return st.session_state[KEY]


def update(**changes) -> Selection:
    """Change the selection and mirror it to the URL; a layer or head that changes becomes chosen."""
    before = st.session_state[KEY]
    moved = {name for name in PICKS if name in changes and changes[name] != getattr(before, name)}
    return _store(replace(before, **changes, chosen=before.chosen | moved))


def pin(**changes) -> Selection:
    """Like `update`, and every layer or head given becomes chosen, changed or not (a slider the
    reader moved also pins the head or layer shown next to it)."""
    before = st.session_state[KEY]
    named = {name for name in PICKS if name in changes}
    return _store(replace(before, **changes, chosen=before.chosen | named))


def suggest(**defaults) -> Selection:
    """Set a page's own default layer / head, leaving alone any the reader chose (not marked chosen)."""
    before = st.session_state[KEY]
    kept = {name: value for name, value in defaults.items() if name in PICKS and name not in before.chosen}
    return _store(replace(before, **kept))


def _store(sel: Selection) -> Selection:
    st.session_state[KEY] = sel
    sync_url(sel)
    return sel


def sync_url(sel: Selection) -> None:
    params = to_params(sel)
    try:
        if st.query_params.to_dict() != params:
            st.query_params.from_dict(params)
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass
