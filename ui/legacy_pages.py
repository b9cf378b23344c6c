"""Streamlit's legacy multipage mode, left on the first run of a deep link.

Streamlit (1.67) treats a `pages/` folder next to the entry script as a legacy multipage app until
some session has run `st.navigation`. So the first visitor of a freshly started server who opens a
shared deep link (e.g. /Head_inspector) gets that page run on its own, under a sidebar built from the
file names ("app", "home", no sections), and so does every deep-link visitor until someone opens the
home page. The URL paths are the same in both modes, so a rerun with the legacy mode switched off runs
app.py, whose navigation opens the same page. It costs one page header on that one run.

This reads and writes a private class attribute, `PagesManager.uses_pages_directory`: the flag
`st.navigation` itself clears on its first call. tests/test_legacy_pages.py fails if a Streamlit
upgrade removes it; the browser test of a deep link opened first on a fresh server checks the result.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def leave_legacy_mode() -> None:
    """Rerun through app.py when Streamlit ran this page the legacy `pages/` way."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False  # what st.navigation itself does on its first call
        st.rerun()
