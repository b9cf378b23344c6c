"""The shared, shareable selection: sentence, what the decoder reads, stack, kind, layer, head, and display
settings.

Lives in `st.session_state` (kept when moving between pages) and is mirrored to the URL
(`st.query_params`) so a link reproduces the view. URL values are parsed defensively: anything
malformed, out of range or of the wrong type falls back to a default; nothing here ever raises.
Layers and heads are stored 0-based; `Selection.show_layer/show_head` give the displayed number.

Page state (the query token a page follows, the decoder step, the heads switched off, a page's
toggles) lives in the page's own widgets and is mirrored to the URL too, by `url_widget`: a shared link
reproduces the exact view, not only the sentence and the head.

A layer or head is the reader's own (`Selection.chosen`) when the URL names it or a slider moved it;
otherwise it is a default that a page may replace with a better one for the sentence, as the head
inspector does with the sentence's most focused head (`ui.uniform.focus_default`). Such a default is
the page's own: it never goes into the shared selection, so it never becomes another page's default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired."
MAX_URL_SENTENCE = 1000
# What the decoder reads after <s> on every page that draws it (`ui.model.decoder_input`): the beam
# translation Home shows, the greedy one, or the reader's own German prefix.
DECODER_INPUTS = ("beam", "greedy", "own")
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
    contrast: bool = False  # attention weights coloured relative to uniform (1/T), not on 0..1
    decoder: str = "beam"  # one of DECODER_INPUTS
    prefix: str = ""  # the reader's German prefix, read when `decoder` is "own"
    chosen: frozenset[str] = frozenset()  # which of PICKS the URL named or the reader moved

    def show_layer(self, layer: int | None = None) -> int:
        return (self.layer if layer is None else layer) + int(self.one_based)

    def show_head(self, head: int | None = None) -> int:
        return (self.head if head is None else head) + int(self.one_based)

    @property
    def numbering(self) -> str:
        return "1-based" if self.one_based else "0-based"

    @property
    def decoder_choice(self) -> tuple[str, str]:
        """(what the decoder reads, the own prefix or ""), as `ui.model.decoder_input` takes it."""
        return self.decoder, self.prefix if self.decoder == "own" else ""


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
    decoder = params.get("dec", d.decoder)
    prefix = params.get("prefix", d.prefix)
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
        contrast=params.get("contrast") == "uniform",
        decoder=decoder if decoder in DECODER_INPUTS else d.decoder,
        prefix=prefix[:MAX_URL_SENTENCE] if isinstance(prefix, str) else d.prefix,
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
    if sel.contrast:
        params["contrast"] = "uniform"
    if sel.decoder != "beam":
        params["dec"] = sel.decoder
    if sel.decoder == "own" and sel.prefix:
        params["prefix"] = sel.prefix
    return params


def presenter() -> bool:
    """Whether this session is in presenter mode, known before the selection is (the home page draws
    Figure 1 before the model loads): the selection's setting, else the link's `present`."""
    sel = st.session_state.get(KEY)
    return sel.presenter if sel is not None else _flag(st.query_params.get("present", "0"), False)


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


def _store(sel: Selection) -> Selection:
    st.session_state[KEY] = sel
    sync_url(sel)
    return sel


# Every URL parameter the Selection owns (`to_params` leaves out those at their default); the page
# state's parameters (`url_widget`) and any others are left alone by `sync_url`.
SELECTION_PARAMS = ("s", "stack", "kind", "layer", "head", "zero", "palette", "present", "pieces", "contrast",
                    "dec", "prefix")  # fmt: skip


def sync_url(sel: Selection) -> None:
    """Write the selection to the URL, keeping the page's own parameters."""
    try:
        current = st.query_params.to_dict()
        params = {k: v for k, v in current.items() if k not in SELECTION_PARAMS} | to_params(sel)
        if current != params:
            st.query_params.from_dict(params)
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass


# ---- page state in the URL -------------------------------------------------------------------------

NONE = "all"  # how an option None ("all tokens") is written in the URL
EMPTY = "none"  # an empty multiselect


def encode(value, offset: int = 0) -> str:
    """A widget value as URL text: ints shifted by `offset` (numbered as shown), lists comma-joined."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value + offset)
    if isinstance(value, (list, tuple)):
        return ",".join(encode(v, offset) for v in value) or EMPTY
    return str(value)


def decode(text, default, options=None, offset: int = 0, low: int | None = None, high: int | None = None):
    """The widget value that URL text stands for, or `default` when it is malformed or not offered.

    The value's type follows `default` (bool, int, str, list); list items and single values must be
    among `options` when given; ints are clamped to [low, high]. Never raises.
    """
    if not isinstance(text, str):
        return default
    text = text.strip()[:MAX_URL_SENTENCE]
    if isinstance(default, list):
        if text == EMPTY:
            return []
        sample = next((o for o in (options or default) if o is not None), 0)
        items = [decode(part, None, options, offset, low, high) if not isinstance(sample, int) else
                 _option_int(part, options, offset, low, high) for part in text.split(",")]
        if any(item is None for item in items):
            return default
        return list(dict.fromkeys(items))  # a multiselect holds each option once
    if isinstance(default, bool):
        return _flag(text, default)
    if options is not None:
        if None in options and text == NONE:
            return None
        if any(isinstance(o, int) and not isinstance(o, bool) for o in options):
            value = _option_int(text, options, offset, low, high)
            return default if value is None else value
        return text if text in options else default
    if isinstance(default, int):
        value = _int(text, None, -(2**31), 2**31)
        if value is None:
            return default
        return _clamp(value - offset, low, high)
    return text


def _option_int(text: str, options, offset: int, low, high) -> int | None:
    value = _int(text, None, -(2**31), 2**31)
    if value is None:
        return None
    value = _clamp(value - offset, low, high)
    if options is not None and value not in options:
        return None
    return value


def url_widget(param: str, key: str, default, options=None, offset: int = 0, low: int | None = None,
               high: int | None = None, max_items: int | None = None):
    """Bind the widget `key` (drawn right after this call, with no default of its own) to `param`.

    The first time the page draws the widget in a session, it starts from the URL's value (parsed by
    `decode`; a bad one gives `default`); a value no longer offered (another sentence has fewer
    tokens) goes back to `default`. The widget's value is written to the URL on every run, and left
    out at its default, so a link is short and names only what the reader changed. A list or text keeps
    its first `max_items` (a multiselect's `max_selections`, a text box's `max_chars`). Returns the value.
    """
    state = st.session_state
    if key not in state:
        value = decode(st.query_params.get(param), default, options, offset, low, high)
        state[key] = value[:max_items] if isinstance(value, (list, str)) and max_items else value
    elif not _offered(state[key], options):
        state[key] = default
    elif isinstance(state[key], int) and _clamp(state[key], low, high) != state[key]:  # e.g. a shorter output
        state[key] = _clamp(state[key], low, high)
    url_value(param, state[key], default, offset)
    return state[key]


def url_value(param: str, value, default, offset: int = 0) -> None:
    """Mirror a page state that is not a widget (e.g. the decoder's step) to the URL."""
    try:
        if value == default:
            if param in st.query_params:
                del st.query_params[param]
        elif st.query_params.get(param) != encode(value, offset):
            st.query_params[param] = encode(value, offset)
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass


def _clamp(value: int, low: int | None, high: int | None) -> int:
    value = value if low is None else max(value, low)
    return value if high is None else min(value, high)


def _offered(value, options) -> bool:
    if options is None:
        return True
    if isinstance(value, list):
        return all(v in options for v in value)
    return value in options
