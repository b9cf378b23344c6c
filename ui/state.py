"""The shared selection (sentence, decoder input, stack, kind, layer, head, display settings): kept in the
session across pages and mirrored to the URL, so that a link reproduces the view.

Layers and heads are 0-based in the code and numbered for the reader on screen and in links: the widgets,
labels and links of ui/ convert between the two through `shown` and `index_of`."""

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


def shown(index: int, one_based: bool | int) -> int:
    """The number the reader sees for a 0-based layer or head: counted from 1 as in the paper, from 0 when
    the reader asks (`one_based` may be the 0-or-1 offset that widgets and notes are given)."""
    return index + int(one_based)


def index_of(number: int, one_based: bool | int) -> int:
    """The 0-based layer or head behind a number as the reader sees it (a slider's value, a link's)."""
    return number - int(one_based)


def shown_range(count: int, one_based: bool | int) -> tuple[int, int]:
    """The first and last numbers the reader sees for `count` layers or heads (a slider's bounds)."""
    return shown(0, one_based), shown(count - 1, one_based)


@dataclass(frozen=True)
class Selection:
    """What every page shows. Layers and heads are 0-based (`show_layer`/`show_head` give the displayed
    number). A layer or head is the reader's own (`chosen`) when the URL names it or a slider moved it;
    otherwise a page may show a better default for the sentence (`ui.uniform.focus_default`), which stays
    the page's own and never goes into the shared selection."""

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
        return shown(self.layer if layer is None else layer, self.one_based)

    def show_head(self, head: int | None = None) -> int:
        return shown(self.head if head is None else head, self.one_based)

    def shown_range(self, count: int) -> tuple[int, int]:
        """A layer or head slider's bounds, in the reader's numbering."""
        return shown_range(count, self.one_based)

    def index(self, number: int) -> int:
        """The 0-based layer or head behind a number in the reader's numbering."""
        return index_of(number, self.one_based)

    @property
    def numbering(self) -> str:
        return "1-based" if self.one_based else "0-based"

    @property
    def decoder_choice(self) -> tuple[str, str]:
        """(what the decoder reads, the own prefix or ""), as `ui.model.decoder_input` takes it."""
        return self.decoder, self.prefix if self.decoder == "own" else ""


def parse_int(value, default: int, low: int, high: int) -> int:
    """URL text as an int clamped to [low, high], or `default` when it is not one."""
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


def parse_flag(value, default: bool) -> bool:
    """URL text as yes or no ("1", "true", "yes", "on" / "0", "false", "no", "off"), else `default`."""
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
    one_based = not parse_flag(params.get("zero", "0"), False)
    sentence = params.get("s", d.sentence)
    sentence = sentence[:MAX_URL_SENTENCE] if isinstance(sentence, str) else d.sentence
    stack = params.get("stack", d.stack)
    stack = stack if stack in STACK_KINDS else d.stack
    kind = params.get("kind", d.kind)
    kind = kind if kind in STACK_KINDS[stack] else STACK_KINDS[stack][0]
    layer = parse_int(params.get("layer"), shown(min(d.layer, n_layers - 1), one_based),
                      *shown_range(n_layers, one_based))  # fmt: skip
    head = parse_int(params.get("head"), shown(d.head, one_based), *shown_range(n_heads, one_based))
    palette = params.get("palette", d.palette)
    palette = palette if palette in ("default", "colour-blind safe") else d.palette
    decoder = params.get("dec", d.decoder)
    prefix = params.get("prefix", d.prefix)
    return Selection(
        sentence=sentence,
        stack=stack,
        kind=kind,
        layer=index_of(layer, one_based),
        head=index_of(head, one_based),
        one_based=one_based,
        palette=palette,
        presenter=parse_flag(params.get("present", "0"), False),
        pieces=parse_flag(params.get("pieces", "0"), False),
        contrast=params.get("contrast") == "uniform",
        decoder=decoder if decoder in DECODER_INPUTS else d.decoder,
        prefix=prefix[:MAX_URL_SENTENCE] if isinstance(prefix, str) else d.prefix,
        chosen=frozenset(name for name in PICKS if name in params),
    )


def to_params(sel: Selection) -> dict[str, str]:
    params = {
        "s": sel.sentence,
        "stack": sel.stack,
        "kind": sel.kind,
        "layer": str(sel.show_layer()),
        "head": str(sel.show_head()),
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
    return sel.presenter if sel is not None else parse_flag(st.query_params.get("present", "0"), False)


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
# state's parameters (`ui.url_state.url_widget`) and any others are left alone by `sync_url`.
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
