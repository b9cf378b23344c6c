"""Page frame shared by every page: config, the sentence box and settings, and render helpers."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import streamlit as st

from transformer.inputs import MAX_CHARS, Source
from transformer.pretrained import LoadedModel
from ui import decoder_reads, state
from ui import model as model_io
from ui.export import export_buttons
from ui.frame import HEAVY_IMPORTS, header
from ui.state import Selection
from viz.heatmap import relative_to_uniform
from viz.palette import palette
from viz.present import presenter_fonts

# Imported before any session builds a figure, under the lock that the home page's Figure 1 takes:
# Plotly looks pandas up in sys.modules, and a session could otherwise find it half-imported by
# another (seen under concurrent load). See ui.frame.HEAVY_IMPORTS.
with HEAVY_IMPORTS:
    import pandas  # noqa: F401

PRESETS = {
    "The animal … too tired": "The animal didn't cross the street because it was too tired.",
    "The animal … too wide": "The animal didn't cross the street because it was too wide.",
    "River bank": "I swam across the river to get to the other bank.",
    "Paper Figure 3 (making … more difficult)": (
        "It is in this spirit that a majority of American governments have passed new laws since 2009 "
        "making the registration or voting process more difficult."
    ),
    "Paper Figures 4–5 (The Law will never be perfect)": (
        "The Law will never be perfect, but its application should be just - this is what we are "
        "missing, in my opinion."
    ),
}

# Human reference translations of presets, written for this project (the paper's sentences are from
# WMT newstest2014; these are our own translations of them, not the WMT references).
REFERENCES = {
    PRESETS["The animal … too tired"]: "Das Tier überquerte die Straße nicht, weil es zu müde war.",
    PRESETS["The animal … too wide"]: "Das Tier überquerte die Straße nicht, weil sie zu breit war.",
    PRESETS["River bank"]: "Ich bin über den Fluss geschwommen, um ans andere Ufer zu gelangen.",
    PRESETS["Paper Figure 3 (making … more difficult)"]: (
        "In diesem Sinne hat eine Mehrheit der amerikanischen Regierungen seit 2009 neue Gesetze "
        "verabschiedet, die die Registrierung oder das Wahlverfahren erschweren."
    ),
    PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]: (
        "Das Gesetz wird nie perfekt sein, aber seine Anwendung sollte gerecht sein – das ist es, was "
        "uns meiner Meinung nach fehlt."
    ),
}


# The numbers model's presets: each has one right answer (`training.numbers.grammar`).
NUMBER_PRESETS = {
    "forty-two (the crossing)": "forty-two",
    "three hundred forty-two": "three hundred forty-two",
    "twenty-one apples": "twenty-one apples",
    "a date": "on the fifth of March two thousand twenty-one",
    "half past three (halb vier)": "at half past three",
    "quarter to four": "at quarter to four",
    "a big number": "seven hundred eighty-five thousand nine hundred sixty-three",
}
NUMBERS_DEFAULT = NUMBER_PRESETS["three hundred forty-two"]


def presets() -> dict[str, str]:
    """The presets that suit the chosen model."""
    return NUMBER_PRESETS if model_io.is_numbers() else PRESETS


def _model_switched(name: str) -> None:
    """Give the newly chosen model a sentence it was made for, unless the current one already is."""
    from training.numbers import grammar

    sentence = st.session_state[state.KEY].sentence
    in_grammar = grammar.parse(sentence) is not None
    if name == "numbers" and not in_grammar:
        state.update(sentence=NUMBERS_DEFAULT)
    elif name != "numbers" and in_grammar:
        state.update(sentence=state.DEFAULT_SENTENCE)
    st.session_state["atlas_preset"] = "—"


def reference_for(sentence: str) -> str | None:
    """The human reference translation of a preset sentence (spacing aside), or None; for the numbers
    model, the right answer of any phrase in its grammar."""
    if model_io.is_numbers():
        from training.numbers import grammar

        example = grammar.parse(sentence)
        return example.target if example else None
    by_words = {" ".join(english.split()): german for english, german in REFERENCES.items()}
    return by_words.get(" ".join(sentence.split()))


# Static styling only (no user text ever goes through HTML): larger type for projection.
# The root font size stays as it is: Streamlit sizes its layout (paddings, the sidebar) in rem, and a
# larger root made the sidebar half of a 1024-px screen and squeezed the page into a strip. The sidebar
# widens a little (in px, for the same reason) and its page names wrap instead of being cut.
PRESENTER_CSS = """
<style>
.stMarkdown, .stText, .stCaption, p, li, label { font-size: 1.35rem !important; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 2.6rem !important; }
h1 { font-size: 2.6rem !important; } h2 { font-size: 2.1rem !important; }
h3 { font-size: 1.7rem !important; }
[data-testid="stSidebarNav"] span, [data-testid="stSidebarNavLink"] span {
  font-size: 1.2rem !important; white-space: normal !important; overflow: visible !important;
}
[data-testid="stTable"] td, [data-testid="stTable"] th,
.stMarkdown td, .stMarkdown th { font-size: 1.35rem !important; }
[data-baseweb="select"] *, [data-baseweb="popover"] li, [data-tag] span,
input, textarea { font-size: 1.35rem !important; }
[data-testid="stSliderThumbValue"], [data-testid="stSliderTickBarMin"],
[data-testid="stSliderTickBarMax"] { font-size: 1.2rem !important; }
</style>
"""
# Static styling on every page (no user text ever goes through HTML). A tab bar and a multiselect's
# chips wrap onto another line instead of scrolling sideways (the head inspector's last tab was cut
# after "Pr" at 1024 px, "Heads to draw" showed 4½ of its 8 chips). On a screen narrower than 1280 px,
# columns that hold figures stand one under another: each figure then has the main column's width
# (about 560 px at 1024 with the sidebar open) instead of half of it, where figures built for half of
# the 980-px column at 1440 (`column_width`) were squeezed, their labels run together, titles cut.
LAYOUT_CSS = """
<style>
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap !important; row-gap: 0.3rem; }
[data-testid="stMultiSelectTagsContainer"] { flex-wrap: wrap !important; }
@media (max-width: 1279px) {
  [data-testid="stHorizontalBlock"]:has([data-testid="stPlotlyChart"]) { flex-wrap: wrap !important; }
  [data-testid="stHorizontalBlock"]:has([data-testid="stPlotlyChart"]) > [data-testid="stColumn"] {
    flex: 1 1 100% !important; min-width: 100% !important;
  }
}
</style>
"""
PRESENTER_FONT = 1.5  # figure text in presenter mode, relative to Plotly's default sizes
PRESENTER_WIDTH = 860  # px: the main column at 1024 px wide with the sidebar folded (presenter mode)


@dataclass(frozen=True)
class Page:
    """What a page needs: the shared model, the selection, the cleaned source sentence."""

    lm: LoadedModel
    sel: Selection
    src: Source

    @property
    def colors(self) -> dict:
        return palette(self.sel.palette)

    @property
    def n_layers(self) -> int:
        return self.lm.model.config.n_layers

    @property
    def n_heads(self) -> int:
        return self.lm.model.config.n_heads


def page(title: str, icon: str = ":material/search:", snapshots: bool = False) -> Page:
    """Set up a page: config and title, then model, selection, sidebar. Stops with a clear message on
    bad input. `snapshots`: the page has a training-step slider (`ui.model.step_slider`)."""
    header(title, icon)
    return setup(snapshots)


def setup(snapshots: bool = False) -> Page:
    """The model, the selection and the sidebar, for a page whose header is drawn (`ui.frame.header`)."""
    lm = model_io.loaded(snapshots_allowed=snapshots)
    cfg = lm.model.config
    sel = state.current(cfg.n_layers, cfg.n_heads)
    if sel.layer >= cfg.n_layers or sel.head >= cfg.n_heads:  # chosen on a model with more of them
        sel = replace(sel, layer=min(sel.layer, cfg.n_layers - 1), head=min(sel.head, cfg.n_heads - 1))
        st.session_state[state.KEY] = sel
    sel = _sidebar(sel, lm)
    st.html(LAYOUT_CSS)
    if sel.presenter:
        st.html(PRESENTER_CSS)
    state.sync_url(sel)
    src = model_io.source(sel.sentence)
    if CUT_KEY in st.session_state:
        st.warning(st.session_state[CUT_KEY])
    for notice in src.notices:
        st.warning(notice)
    if model_io.is_numbers() and not src.empty:
        from training.numbers import grammar

        if grammar.parse(sel.sentence) is None:
            st.warning("The numbers model learned only number phrases, dates and clock times (such as "
                       "“forty-two”, “twenty-one apples”, “at half past three”). This sentence is "
                       "outside them: the model has no right answer for it, and its attention shows "
                       "what an untrained input does. Pick a preset in the sidebar, or switch models.")
    return Page(lm, sel, src)


def fresh(p: Page) -> Page:
    """The page with the selection as it is now. A fragment (`st.fragment`) reruns alone when its own
    sliders move, and their callbacks have just written the shared selection: read it again."""
    return replace(p, sel=st.session_state.get(state.KEY, p.sel))


def require_sentence(p: Page) -> None:
    """Stop the page with a clear message when there is nothing to show."""
    if p.src.empty:
        st.info("Type an English sentence in the sidebar (or pick a preset) to see the model at work.")
        st.stop()


def _seed(key: str, value) -> None:
    """Show the shared selection in a widget. Widgets are per page, the selection is per session:
    seeding every widget before it is drawn keeps all pages in step (and survives page switches)."""
    st.session_state[key] = value


def _on_change(field: str, key: str, convert=lambda value: value):
    """A widget callback that writes the widget's value into the shared selection (and the URL)."""

    def callback() -> None:
        state.update(**{field: convert(st.session_state[key])})

    return callback


CUT_KEY = "atlas_cut_notice"  # session state: what the sentence box cut, until the next edit


def cut_to_limit(text: str, limit: int, box: str = "the sentence box") -> tuple[str, str | None]:
    """(`text` cut to `limit` characters, what to tell the reader about it, or None when it fits).

    A text box gets no `max_chars` of its own: with one, a browser paste longer than the limit left the
    box empty (or unchanged) without a word. Its callback cuts the text with this and shows the message.
    """
    if len(text) <= limit:
        return text, None
    return text[:limit], (f"Your text had {len(text):,} characters, more than the limit of {limit:,}: it "
                          f"was cut after character {limit:,}, and {box} now holds what is kept.")


def _on_sentence() -> None:
    """The sentence box's callback: text over MAX_CHARS is cut there, and the page says so."""
    text, notice = cut_to_limit(st.session_state["atlas_sentence_box"], MAX_CHARS)
    if notice:
        st.session_state[CUT_KEY] = notice
    else:
        st.session_state.pop(CUT_KEY, None)
    state.update(sentence=text)


def _pick_preset() -> None:
    st.session_state.pop(CUT_KEY, None)
    name = st.session_state.get("atlas_preset", "—")
    if name in presets():
        state.update(sentence=presets()[name])


def _sidebar(sel: Selection, lm: LoadedModel) -> Selection:
    with st.sidebar:
        model_io.picker(on_switch=_model_switched)
        st.subheader("Your sentence")
        st.selectbox("Presets", ["—", *presets()], key="atlas_preset", on_change=_pick_preset)
        _seed("atlas_sentence_box", sel.sentence)
        st.text_area(
            "English sentence", key="atlas_sentence_box", height=100, on_change=_on_sentence,
            help=f"Shared by every page and kept in the link, so a copied URL shows the same view. Up "
                 f"to {MAX_CHARS:,} characters: longer text is cut, and the page says so.",
        )
        decoder_reads.sidebar(sel, lm)
        with st.expander("Display", expanded=False):
            _seed("atlas_one_based", sel.one_based)
            st.toggle("Number layers and heads from 1 (as in the paper)", key="atlas_one_based",
                      on_change=_on_change("one_based", "atlas_one_based"))
            _seed("atlas_palette", sel.palette)
            st.radio("Palette", ["default", "colour-blind safe"], key="atlas_palette", horizontal=True,
                     on_change=_on_change("palette", "atlas_palette"))
            _seed("atlas_pieces", sel.pieces)
            st.toggle("Show pieces and positions", key="atlas_pieces",
                      on_change=_on_change("pieces", "atlas_pieces"),
                      help="Label tokens as the tokenizer sees them, e.g. `3:▁cat` (position 3, piece "
                           "`▁cat`; `▁` marks the start of a word) instead of the word as written.")
            _seed("atlas_contrast", sel.contrast)
            st.toggle("Contrast: relative to uniform (1/T)", key="atlas_contrast",
                      on_change=_on_change("contrast", "atlas_contrast"),
                      help="Colour attention weights by how far they are from an even spread over the "
                           "T keys a row may see: white = 1/T (even), red = more, blue = less. Off: the "
                           "fixed scale 0 to 1, on which an even spread looks evenly pale.")
            _seed("atlas_presenter", sel.presenter)
            st.toggle("Presenter mode (large type)", key="atlas_presenter",
                      on_change=_on_change("presenter", "atlas_presenter"))
        device = lm.model.device
        st.caption(f"Model `{lm.model_id}` on **{device.type.upper()}** · "
                   f"layers and heads are numbered {sel.numbering}.")
    return sel


def _on_stack() -> None:
    stack = st.session_state["atlas_stack"]
    sel = st.session_state[state.KEY]
    kinds = state.STACK_KINDS[stack]
    state.update(stack=stack, kind=sel.kind if sel.kind in kinds else kinds[0])


def attention_picker(p: Page, stacks: tuple[str, ...] = ("encoder", "decoder"), head: bool = True,
                     where=None) -> Selection:
    """Stack / kind / layer / head controls, written back to the shared selection when moved.

    A page that offers fewer stacks shows the first one without changing the shared choice.
    """
    sel, off = p.sel, int(p.sel.one_based)
    stack = sel.stack if sel.stack in stacks else stacks[0]
    kinds = state.STACK_KINDS[stack]
    kind = sel.kind if sel.kind in kinds else kinds[0]
    cols = (where or st).columns(4 if head else 3)
    _seed("atlas_stack", stack)
    cols[0].selectbox("Stack", stacks, key="atlas_stack", on_change=_on_stack)
    _seed("atlas_kind", kind)
    cols[1].selectbox("Attention", kinds, key="atlas_kind", format_func=lambda k: f"{k}-attention",
                      on_change=_on_change("kind", "atlas_kind"))
    keys = {"layer": "atlas_layer", "head": "atlas_head"} if head else {"layer": "atlas_layer"}
    _seed("atlas_layer", sel.layer + off)
    cols[2].slider(f"Layer ({sel.numbering})", off, p.n_layers - 1 + off, key="atlas_layer",
                   on_change=_pin(keys, off))
    if head:
        _seed("atlas_head", sel.head + off)
        cols[3].slider(f"Head ({sel.numbering})", off, p.n_heads - 1 + off, key="atlas_head",
                       on_change=_pin(keys, off))
    return replace(sel, stack=stack, kind=kind)


def _pin(keys: dict[str, str], off: int):
    """A layer/head slider callback: the layer and head on screen become the reader's choice together,
    so moving the head does not let a page's default move the layer under it (`state.pin`)."""

    def callback() -> None:
        state.pin(**{field: int(st.session_state[key]) - off for field, key in keys.items()})

    return callback


def layer_slider(p: Page, label: str, key: str, where=None) -> int:
    """A layer slider (no head) showing the selection's layer; moving it pins the layer. 0-based."""
    off = int(p.sel.one_based)
    _seed(key, p.sel.layer + off)
    value = (where or st).slider(label, off, p.n_layers - 1 + off, key=key,
                                 on_change=_pin({"layer": key}, off))
    return int(value) - off


# The page's main column at 1440 × 900 with the sidebar open (px), and the gap between columns: a
# heatmap of square cells in one of n columns is built no wider than its share (`heatmap(max_width=)`).
MAIN_WIDTH = 980
COLUMN_GAP = 16


def column_width(columns: float, sel: Selection | None = None) -> int | None:
    """px of one of `columns` side-by-side columns (`figure_columns`) on a 1440-px-wide screen (a
    fraction for a column of another share: 2.5 is the first of `figure_columns([2, 3])`); None in
    presenter mode, where figures stand one under another. `sel`: default, this session's selection."""
    sel = sel if sel is not None else st.session_state.get(state.KEY)
    if sel is not None and sel.presenter:
        return None
    return int((MAIN_WIDTH - COLUMN_GAP * (math.ceil(columns) - 1)) / columns)


def grid_columns(sel: Selection, kind: str) -> int:
    """Heads to a row of a heads grid (`viz.grids.heads_grid`): two in presenter mode (four would leave
    each too narrow for its larger labels); three for cross-attention, whose rows are labelled
    "reads → writes" and whose cells would be a few px with four; else four."""
    if sel.presenter:
        return 2
    return 3 if kind == "cross" else 4


def figure_columns(spec: int | list) -> list:
    """Places for figures side by side (`st.columns(spec)`); in presenter mode one under another, since
    two figures with projector-sized type do not fit next to each other on a 1024-px screen."""
    sel = st.session_state.get(state.KEY)
    if sel is not None and sel.presenter:
        return [st.container() for _ in range(spec if isinstance(spec, int) else len(spec))]
    return st.columns(spec)


def for_display(fig, sel: Selection | None = None):
    """The figure as this session shows it (the given one is never modified): with "contrast: relative
    to uniform" on, attention-weight figures on that scale (`relative_to_uniform`); in presenter mode,
    larger text. `sel`: the selection to follow (default: this session's)."""
    sel = sel if sel is not None else st.session_state.get(state.KEY)
    if sel is not None and sel.contrast:
        fig = relative_to_uniform(fig, palette(sel.palette)["diverging"])
    if sel is not None and sel.presenter:
        fig = presenter_fonts(fig, PRESENTER_FONT, PRESENTER_WIDTH)
    return fig


# Text st.table would read as Markdown: any ASCII punctuation mark (CommonMark lets each be escaped with
# a backslash), and the starts of GFM's bare links (http://, www., name@host), which escaping does not
# stop: an invisible word joiner (U+2060) goes inside them.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_BARE_LINK = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")


def literal_markdown(text: str) -> str:
    """`text` as Markdown that shows exactly `text` (pieces such as `</s>`, `**`, `:red[x]`, a URL)."""
    return _PUNCTUATION.sub(r"\\\1", _BARE_LINK.sub("\u2060", " ".join(text.splitlines())))


def markdown_table(rows: list[dict]) -> str:
    """Rows (dicts with the same keys) as a GitHub Markdown table for `st.markdown`, every cell shown as
    typed (`literal_markdown`; a `|` in a cell is escaped too), numbers right-aligned, True/False as
    yes/no. Unlike `st.table` and `st.dataframe` it sends no Arrow table, so a new session does not
    load Arrow's ~0.9 MB of script for a few rows."""
    columns = list(rows[0]) if rows else []

    def cell(value) -> str:
        return "yes" if value is True else "no" if value is False else literal_markdown(str(value))

    def is_number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    numeric = [all(is_number(r[c]) for r in rows) for c in columns]
    lines = ["| " + " | ".join(cell(c) for c in columns) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]  # fmt: skip
    lines += ["| " + " | ".join(cell(r[c]) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def show_table(data, key: str, **dataframe_args) -> None:
    """A table (a dict of columns, or a list of row dicts, as `st.dataframe` takes them).

    An `st.dataframe` (sortable, scrolls), except in presenter mode: a data frame is drawn on a canvas
    whose small text no CSS reaches, so there it is an `st.table`, which the presenter CSS enlarges.
    `st.table` reads its cells as Markdown: text cells go through `literal_markdown`, so text from the
    reader or the model shows as typed, never as formatting, links or HTML. `dataframe_args`: for
    `st.dataframe` (e.g. `width="stretch"`).
    """
    sel = st.session_state.get(state.KEY)
    if not (sel is not None and sel.presenter):
        st.dataframe(data, hide_index=True, key=key, **dataframe_args)
        return
    st.table(literal_table(data), hide_index=True)


def literal_table(data):
    """`data` (as `st.dataframe` takes it) as a pandas DataFrame for `st.table`, whose text cells and
    column names show as typed (`literal_markdown`): `st.table` reads every cell as Markdown."""
    import pandas as pd

    frame = pd.DataFrame(data)
    frame = frame.map(lambda v: literal_markdown(v) if isinstance(v, str) else v)
    frame.columns = [literal_markdown(str(c)) for c in frame.columns]
    return frame


def show_figure(fig, key: str, caption: str | None = None, export: bool = True,
                displayed: bool = False) -> None:
    """Render a Plotly figure full width, with HTML and CSV downloads (PNG is in its toolbar).

    Presenter mode hides the download buttons: fewer controls on a projected screen. The figure is
    shown as `for_display` makes it, unless it comes from there already (`displayed`, e.g. from a
    cache of a page's figures).
    """
    sel = st.session_state.get(state.KEY)
    if not displayed:
        fig = for_display(fig, sel)
    # A figure with a width of its own (a heatmap of square cells, `viz.heatmap.square_width`) is shown
    # at that width, or the column's if narrower: stretched wider, its matrix would stand far from its
    # colour bar.
    st.plotly_chart(fig, key=key, width="content" if fig.layout.width else "stretch",
                    config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}})
    if caption:
        st.caption(caption)
    if export and not (sel is not None and sel.presenter):
        export_buttons(fig, key)
