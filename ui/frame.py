"""What a page draws before the model exists: page config, title, the shipped config and model card.

Nothing here imports PyTorch, which takes ~1.5 s on a cold server (and longer while a browser shares
its CPU). A page draws its header with these first, so the reader sees the page while the model loads;
the home page also draws Figure 1 from `config.json` alone.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import numpy  # noqa: F401  (see HEAVY_IMPORTS)
import streamlit as st

from transformer.config import TransformerConfig
from ui import legacy_pages, state

MODEL_DIR = Path(os.environ.get("ATLAS_MODEL_DIR", Path(__file__).resolve().parents[1] / "pretrained"))
SHIPPED_MODELS = {
    "translation": ("English → German (general)", MODEL_DIR),
    "numbers": ("Numbers and dates (known right answers)", MODEL_DIR / "numbers"),
}
DEFAULT_MODEL = "translation"
ACTIVATION_NAMES = {"relu": "ReLU", "silu": "SiLU"}  # TransformerConfig.activation, as a page writes it


def discover_models(base: Path = MODEL_DIR, extra: str = "") -> dict[str, tuple[str, Path]]:
    """The models the app can show: name -> (label, directory). The shipped translation model (the
    default) and numbers model first, then every other folder with a `config.json` under `base` (e.g.
    a checkpoint imported with `transformer.import_marian`) and in `extra`: folders separated by
    `os.pathsep` (ATLAS_MODEL_DIRS), each a model folder or a folder of them. The name, used in links,
    is the folder's name; the label is the first heading of its MODEL_CARD.md."""
    models = dict(SHIPPED_MODELS)
    seen = {d.resolve() for _, d in models.values()}
    folders = [base, *(Path(entry).expanduser() for entry in extra.split(os.pathsep) if entry)]
    for folder in folders:
        if folder is not base and (folder / "config.json").is_file():
            candidates = [folder]
        else:
            candidates = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        for d in candidates:
            if not (d / "config.json").is_file() or d.resolve() in seen:
                continue
            seen.add(d.resolve())
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", d.name).strip("-") or "model"
            while name in models:
                name += "-2"
            models[name] = (_card_title(d) or d.name, d)
    return models


def _card_title(directory: Path) -> str | None:
    try:
        first = (directory / "MODEL_CARD.md").read_text(encoding="utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return None
    return first.lstrip("# ").strip()[:80] or None


# Read once, when the server starts: a model folder added later shows after a restart.
MODELS = discover_models(MODEL_DIR, os.environ.get("ATLAS_MODEL_DIRS", ""))
CHOICE_KEY = "atlas_model_choice"  # session state: (model name, snapshot step or None)


def chosen_dir() -> Path:
    """The directory of this session's model, read without PyTorch (the home page draws Figure 1 from
    its config before the model loads). `ui.model.choice` validates the choice fully."""
    if CHOICE_KEY in st.session_state:
        name = st.session_state[CHOICE_KEY][0]
    else:
        name = st.query_params.get("model", DEFAULT_MODEL)
    directory = MODELS.get(name, MODELS[DEFAULT_MODEL])[1]
    return directory if (directory / "config.json").is_file() else MODEL_DIR

# Chart code (Plotly's above all) checks whether numpy and pandas are loaded by looking in
# `sys.modules`, where a module that another session is still importing sits half-built (no
# `pandas.Series` yet) and fails its checks. The home page draws Figure 1 before PyTorch and pandas
# are imported, so that figure and the first import of pandas (ui.render) both take this lock and
# never overlap; once imported it costs nothing.
# numpy (~0.1 s) is imported right here instead: an `import` of a module that another thread is still
# importing waits for it, so no page can meet a half-built numpy.
HEAVY_IMPORTS = threading.Lock()


def header(title: str, icon: str, plotly_now: bool = True) -> None:
    """Page config (once per run, before any other element), the page's title and, with `plotly_now`,
    the hidden chart that has the browser load Plotly's script (`load_plotly`) while the page computes.
    `icon` is the page's Material icon as the navigation shows it (tests/test_navigation.py holds the two
    equal); the browser tab shows `ui.navigation.FAVICON`, which app.py sets before every page.

    Presenter mode starts with the sidebar folded away: on a 1024-px projector it took a third of the
    width, and the figures were drawn in what was left. Streamlit applies the setting when it changes
    (presenter mode switched on), so a sidebar the presenter opens again stays open.
    """
    legacy_pages.leave_legacy_mode()  # a deep link opened first on a fresh server
    st.set_page_config(page_title=f"{title} · Attention Atlas", layout="wide",
                       initial_sidebar_state="collapsed" if state.presenter() else "auto")
    st.title(title)
    if plotly_now:
        load_plotly()


# The key of a hidden Plotly chart (`load_plotly`), and its style: off screen and out of the page's
# flow, not display: none (a chart of zero width is never drawn, and its script never loaded).
PLOTLY_PRELOAD_KEY = "atlas_plotly_preload"
# A plain literal, as everything given to st.html is (tests/test_security.py): the key is spelt out.
PLOTLY_PRELOAD_CSS = ("<style>.st-key-atlas_plotly_preload { position: absolute !important; "
                      "left: -10000px; width: 300px; height: 1px; overflow: hidden; } "
                      # the block's wrapper too, or it keeps a gap of the page's flow under the title
                      "[data-testid='stLayoutWrapper']:has(> .st-key-atlas_plotly_preload) "
                      "{ position: absolute !important; }</style>")


def load_plotly() -> None:
    """A hidden, empty Plotly chart. Streamlit's browser side fetches and runs Plotly's 4.7 MB script
    only when a page first shows a Plotly chart: drawn under a page's title, the browser does that
    while the server imports PyTorch and computes (a link opened in a new browser drew its first
    figure about 1 s sooner); at the foot of the home page, whose Figure 1 is Vega-Lite, while the
    reader reads, so a click on Figure 1 does not wait for it."""
    with st.container(key=PLOTLY_PRELOAD_KEY):  # its style inside it: nothing of it in the page's flow
        st.html(PLOTLY_PRELOAD_CSS)
        with HEAVY_IMPORTS:  # a chart: it must not meet a half-imported pandas (above)
            st.plotly_chart({"data": [{"type": "scatter", "x": [], "y": []}]},
                            key=f"{PLOTLY_PRELOAD_KEY}_chart", config={"staticPlot": True})


PRESENTER_BOX = "atlas_presenter_sentence"  # the sentence box presenter mode puts under a page's title
ABOUT = "About this page"


def intro(text: str | None = None, note: str | None = None, sentence: bool = True) -> None:
    """A page's opening text (and an `st.info` `note`), drawn under its title.

    In presenter mode they fold into an expander (`ABOUT`): at 1024 × 768 they filled the first screen,
    and the page's figure came only after scrolling. Beside it, with `sentence`, a popover holds a box for
    the shared sentence (`PRESENTER_BOX`), since the sidebar that has one starts folded away there.
    """
    if not state.presenter():
        if text:
            st.markdown(text)
        if note:
            st.info(note)
        return
    about, edit = st.columns([3, 1], vertical_alignment="center") if sentence else (st.container(), None)
    if text or note:
        with about, st.expander(ABOUT):
            if text:
                st.markdown(text)
            if note:
                st.info(note)
    if edit is not None:
        from ui.sidebar import sentence_box  # imports PyTorch: after the text above is on screen

        sel = st.session_state.get(state.KEY) or state.parse_params(st.query_params.to_dict(), 1, 1)
        with edit, st.popover("Sentence", icon=":material/edit:", width="stretch",
                              help="The English sentence every page shows (the sidebar holds it too)."):
            sentence_box(sel, PRESENTER_BOX, "Your English sentence")


def shipped_config(directory: str | Path = MODEL_DIR) -> TransformerConfig | None:
    """The shipped model's hyper-parameters, or None when `config.json` is missing or unreadable.

    None draws nothing: loading the model comes next and names the broken file with its fix.
    """
    try:
        return TransformerConfig.load(Path(directory) / "config.json")
    except (OSError, ValueError, TypeError, UnicodeDecodeError):
        return None


@st.cache_data(show_spinner=False)
def model_card(directory: str = str(MODEL_DIR)) -> str | None:
    """The shipped model's card (our own Markdown, never user text), or None when it is missing."""
    try:
        return (Path(directory) / "MODEL_CARD.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
