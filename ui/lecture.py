"""The lecture path: the pages in the paper's order, with "Start here" on Home (`start_here`) and Back,
Next and the step number at the foot of every page on it (`footer`).

app.py holds the order (`LECTURE_PATH`, beside its navigation) and, on every run, says which page the
reader is on (`arrive`). A page run on its own (an AppTest of one page file) is on no path and draws no
links: they would name pages that its navigation does not have.

The links carry the reader's sentence, the shared selection and the model in their query string, so a
link opened in a new tab shows the same view (in the same tab the session keeps them anyway). A page's
own parameters (the token it follows, its toggles) stay behind: they mean nothing on another page.

Light on purpose (Streamlit, `ui.state` and `ui.navigation` only): app.py imports it, and runs before
every page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import streamlit as st

from ui import navigation, state

KEY = "atlas_lecture"  # session state: the reader's Place, written by app.py before each page runs
CARRIED = (*state.SELECTION_PARAMS, "model", "snapshot")  # the URL parameters every link keeps


@dataclass(frozen=True)
class Step:
    """One page on the path, as app.py's navigation names it."""

    file: str
    title: str
    url: str


@dataclass(frozen=True)
class Place:
    """The path, and the URL path of the page being run ("" for Home)."""

    steps: tuple[Step, ...]
    here: str

    @property
    def index(self) -> int | None:
        """The page's 0-based place on the path, or None when it is not on it (Home)."""
        return next((i for i, step in enumerate(self.steps) if step.url == self.here), None)

    def neighbours(self) -> tuple[Step | None, Step | None]:
        """(the page before this one, the page after it); None past either end, or off the path."""
        i = self.index
        if i is None:
            return None, None
        before = self.steps[i - 1] if i > 0 else None
        return before, self.steps[i + 1] if i + 1 < len(self.steps) else None


def steps(sections: dict, order: list[str]) -> tuple[Step, ...]:
    """The pages of app.py's `SECTIONS` (section -> [(file, title, icon, URL path)]) in `order` (URL
    paths). tests/test_lecture_path.py checks that the two name the same pages."""
    pages = {url: Step(file, title, url)
             for entries in sections.values() for file, title, _icon, url in entries}  # fmt: skip
    return tuple(pages[url] for url in order)


def arrive(here: str, path: tuple[Step, ...]) -> None:
    """Remember, for this run, where the reader is: app.py calls it before running the page."""
    st.session_state[KEY] = Place(path, here)


def carried() -> dict[str, str]:
    """The shared part of the current URL (sentence, selection, model), for a link to another page."""
    try:
        return {k: v for k, v in st.query_params.to_dict().items() if k in CARRIED}
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        return {}


def start_here() -> None:
    """Home's way in: the first page of the path, in the main column (the sidebar's list is long)."""
    place = st.session_state.get(KEY)
    if place is None or not place.steps:
        return
    first = place.steps[0]
    navigation.link(first.file, label=f"**Start here: {first.title} →**", icon=":material/play_circle:",
                    query_params=carried())
    st.caption(f"Then follow **Next** at the foot of each page: {len(place.steps)} pages in the order of "
               "the paper, from its inputs to its figures. The sidebar opens any page directly.")


def footer() -> None:
    """Back, the step number and Next, at the foot of a page on the path; nothing elsewhere. Drawn by
    app.py after the page, or by a page that stops early (`stop`)."""
    place = st.session_state.get(KEY)
    index = None if place is None else place.index
    if index is None:
        return
    (back_step, next_step), params = place.neighbours(), carried()
    with st.container(key="atlas_lecture_footer"):
        st.divider()
        back, middle, forward = st.columns(3, vertical_alignment="center")
        if back_step:
            with back:
                navigation.link(back_step.file, label=f"← Back: {back_step.title}", query_params=params)
        middle.caption(f"Step {index + 1} of {len(place.steps)} on the lecture path (the paper's order)",
                       text_alignment="center")
        if next_step:
            with forward, st.container(horizontal=True, horizontal_alignment="right"):
                navigation.link(next_step.file, label=f"Next: {next_step.title} →", query_params=params)


def stop() -> NoReturn:
    """`st.stop()` for a page that has nothing more to show, keeping its Back and Next: app.py draws
    them after the page, which a stopped page never reaches."""
    footer()
    st.stop()
