"""The legacy-`pages/` workaround leans on a private Streamlit attribute: these tests fail if an upgrade
changes it (the browser tests check the deep link opened first on a fresh server end to end)."""

from __future__ import annotations

import pytest
from streamlit.runtime.pages_manager import PagesManager

from ui import legacy_pages


def test_streamlit_still_has_the_flag_the_workaround_clears():
    assert "uses_pages_directory" in vars(PagesManager), sorted(vars(PagesManager))
    assert PagesManager.uses_pages_directory in (None, True, False)


def test_the_workaround_clears_the_flag_and_reruns(monkeypatch):
    reruns = []
    monkeypatch.setattr(legacy_pages.st, "rerun", lambda: reruns.append(True))
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    legacy_pages.leave_legacy_mode()
    assert PagesManager.uses_pages_directory is False and reruns == [True]
    legacy_pages.leave_legacy_mode()  # navigation mode already: nothing to do
    assert reruns == [True]


@pytest.mark.parametrize("flag", [None, False])
def test_no_rerun_outside_legacy_mode(monkeypatch, flag):
    monkeypatch.setattr(legacy_pages.st, "rerun", lambda: pytest.fail("rerun outside legacy mode"))
    monkeypatch.setattr(PagesManager, "uses_pages_directory", flag)
    legacy_pages.leave_legacy_mode()
