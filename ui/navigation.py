"""The app's pages as `st.Page` objects for app.py's `st.navigation`, each made once per server process.

app.py runs before every page of every session, and `st.Page` looks up its file's real path when it is
made (`Path.resolve`: one `lstat` per part of the path, slow on some file systems); `st.page_link` to a
file name does the same. Thirty students opening the home page together made 12 × 30 Pages and 11 × 30
links, a third of the time their runs took. Here each Page is made once, and every run gets shallow
copies of them (`pages`): `st.navigation` marks the page it returns as the one to run on the object
itself, so two sessions must never share one. `link` draws a link through this run's copy, which needs
no lookup; a page file run on its own (an AppTest of one page) has no navigation and links by file name.

Light on purpose (Streamlit and the standard library): app.py imports it.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import streamlit as st

# The browser tab's icon (a 4 x 4 attention pattern in blues, 32 px). A Material icon as the tab's icon
# (a page's own, which the navigation draws from Streamlit's bundled font) is fetched from
# fonts.gstatic.com, and the app needs no network: app.py sets this before the navigation, whose page
# icons the browser would otherwise take for the tab.
FAVICON = str(Path(__file__).with_name("favicon.png"))

KEY = "atlas_pages"  # session state: file -> this run's Page, written by app.py before the page runs


@functools.cache
def _made(entries: tuple[tuple[str, str, str, str], ...]) -> dict:
    """file -> its Page, for (file, title, icon, URL path) entries ("" for the home page's path)."""
    return {file: st.Page(file, title=title, icon=icon, url_path=url or None, default=not url)
            for file, title, icon, url in entries}  # fmt: skip


def pages(sections: dict[str, list[tuple[str, str, str, str]]]) -> dict[str, list]:
    """app.py's sections (section -> [(file, title, icon, URL path)]) as `st.navigation` takes them, in
    copies of their Pages for this run alone, remembered for `link`."""
    made = _made(tuple(entry for entries in sections.values() for entry in entries))
    run = {file: copy.copy(page) for file, page in made.items()}
    st.session_state[KEY] = run
    return {section: [run[file] for file, *_ in entries] for section, entries in sections.items()}


def link(file: str, **kwargs) -> None:
    """`st.page_link` to the page in `file` (keyword arguments as st.page_link's)."""
    st.page_link(st.session_state.get(KEY, {}).get(file, file), **kwargs)
