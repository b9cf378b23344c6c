"""The sidebar a newcomer sees: app.py's `st.navigation`, its sections, titles, icons and URL paths.

app.py runs in AppTest with `st.navigation` wrapped, so the test reads the very pages the app
registers; the page the navigation returns is not run (that would load the model: the home page has
its own tests).
"""

from __future__ import annotations

import ast
import tomllib

import pytest
import streamlit as st
from server import ROOT, discover_pages, navigation
from streamlit.source_util import page_icon_and_name
from streamlit.testing.v1 import AppTest

from ui.home import ARCHITECTURE
from viz.architecture import figure1_parts

SECTIONS = ["", "Inputs", "Attention", "The layers", "Generation", "Classroom"]


class _NotRun:
    """Stands in for the page st.navigation returns: app.py calls its run(), which does nothing."""

    url_path = ""  # app.py tells ui.lecture where the reader is: Home, on no step of the path

    def run(self) -> None:
        pass


@pytest.fixture(scope="module")
def registered():
    """Run app.py; return (AppTest, the sections and pages it passed to st.navigation, its options)."""
    seen = {}
    real = st.navigation

    def spy(pages, **options):
        seen.update(pages=pages, options=options)
        real(pages, **options)
        return _NotRun()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st, "navigation", spy)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, [e.message for e in at.exception]
    return at, seen["pages"], seen["options"]


def test_sidebar_has_home_then_the_sections(registered):
    _, pages, options = registered
    assert list(pages) == SECTIONS
    home = pages[""]
    assert [(p.title, p.url_path, p._default) for p in home] == [("Home", "", True)]
    assert options.get("position", "sidebar") == "sidebar"
    every = [p for section in pages.values() for p in section]
    assert sum(p._default for p in every) == 1
    assert all(p.title.strip() and p.icon for p in every), [(p.title, p.icon) for p in every]
    assert len({p.icon for p in every}) == len(every), "two pages share an icon"
    assert [p.title for p in pages["Attention"]] == [
        "Attention, step by step",
        "Multi-head attention",
        "Paper figures",
        "Head inspector",
    ]


def test_a_deep_link_opened_first_still_runs_through_app_py():
    """A fresh server's first visitor on a shared link (e.g. /Worked_examples) gets app.py's sidebar.

    Streamlit runs such a page the legacy `pages/` way until some session has called st.navigation;
    `ui.frame.header` then reruns through app.py (see `ui.frame._leave_legacy_pages_mode`).
    """
    calls = []
    real = st.navigation

    def spy(pages, **options):
        calls.append(list(pages))
        return real(pages, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st, "navigation", spy)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.switch_page("pages/Worked_examples.py")  # before any run: the URL path of a deep link
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert calls and calls[-1] == SECTIONS, calls
    assert [t.value for t in at.title] == ["Worked examples"]


def test_every_page_file_is_in_the_sidebar_once(registered):
    """With st.navigation, a file in pages/ that app.py does not list is unreachable."""
    listed = [file for entries in navigation().values() for file, *_ in entries]
    on_disk = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
    assert sorted(listed) == on_disk
    at, _, _ = registered
    for file in listed:
        at.switch_page(file)  # raises ValueError when the navigation did not register this file


def test_url_paths_are_the_ones_the_file_names_gave(registered):
    """Shared links made before st.navigation (e.g. /Head_inspector) still open the same page."""
    _, pages, _ = registered
    urls = {p.title: p.url_path for section in pages.values() for p in section}
    for page in discover_pages():
        assert urls[page.title] == page.url_path
        if page.url_path:  # the home page lives at the root
            assert page.url_path == page_icon_and_name(ROOT / page.file)[1]
    assert urls["Head inspector"] == "Head_inspector"
    assert urls["Tokens & embeddings"] == "Tokens_and_embeddings"
    # the URL paths of every link shared before the files lost their numbers (1_..., ..., 10_...)
    old_links = {
        "Tokens_and_embeddings", "Positional_encoding", "Attention_step_by_step", "Multi_head_attention",
        "Encoder_layer", "Decoder_and_generation", "Paper_figures", "Head_inspector", "Worked_examples",
        "Train_it_yourself",
    }
    assert set(urls.values()) - {""} == old_links | {"Why_these_choices"}
    assert not [p.name for p in (ROOT / "pages").glob("*.py") if p.name[0].isdigit()]


def test_home_page_links_lead_to_registered_pages():
    """Figure 1's boxes and the home page's list name pages by file: each must be in the sidebar."""
    listed = {file for entries in navigation().values() for file, *_ in entries}
    linked = {part.page for part in figure1_parts()} | {target for _, target, _ in ARCHITECTURE}
    assert linked <= listed, linked - listed
    # "Every page" on Home lists every page but Home itself (it left out "Why these choices?")
    assert {target for _, target, _ in ARCHITECTURE} == listed - {"pages/home.py"}


def test_sidebar_icons_match_the_pages_own():
    """The icon in the sidebar is the one the page puts in the browser tab (`page(title, icon=...)`)."""
    for entries in navigation().values():
        for file, _title, icon, _url in entries:
            tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
            own = [
                kw.value.value
                for node in ast.walk(tree)
                if isinstance(node, ast.Call)
                for kw in node.keywords
                if kw.arg == "icon" and isinstance(kw.value, ast.Constant)
            ]
            assert own == [icon], (file, own, icon)


def test_icons_are_material_icons_that_render_without_an_emoji_font(registered):
    """Emoji icons are empty boxes on a machine without an emoji font (Debian's Chromium); Streamlit
    draws its bundled Material icons everywhere. Every icon names one that exists."""
    from streamlit.material_icon_names import ALL_MATERIAL_ICONS

    _, pages, _ = registered
    icons = [p.icon for section in pages.values() for p in section]
    names = [icon.removeprefix(":material/").removesuffix(":") for icon in icons]
    assert all(icon.startswith(":material/") and icon.endswith(":") for icon in icons), icons
    assert set(names) <= ALL_MATERIAL_ICONS, set(names) - ALL_MATERIAL_ICONS


def test_streamlit_config_hides_the_deploy_button():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["toolbarMode"] == "minimal"


def test_make_run_starts_app_py():
    """`make run` is the `attention-atlas` command, which runs the repository's app.py."""
    from attention_atlas import cli

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(PY) -m attention_atlas --port $(PORT)" in makefile
    command = cli.streamlit_command([])
    assert command[2:5] == ["streamlit", "run", str(ROOT / "app.py")]
    assert not (ROOT / "Home.py").exists()


def test_every_run_navigates_its_own_copies_of_pages_made_once():
    """st.navigation marks the page it returns on the object itself, so two runs (two sessions) must not
    share one; but the files are looked up only once per process (ui.navigation)."""
    from ui import navigation as pages_of_the_app

    def run() -> dict:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(st, "navigation", lambda pages, **options: _NotRun())  # the page is not run
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
        assert not at.exception, [e.message for e in at.exception]
        return at.session_state[pages_of_the_app.KEY]

    pages_of_the_app._made.cache_clear()
    first, second = run(), run()
    assert pages_of_the_app._made.cache_info().misses == 1  # made once, for both runs
    listed = [file for entries in navigation().values() for file, *_ in entries]
    assert list(first) == list(second) == listed
    for file in listed:
        assert first[file] is not second[file], file
        assert first[file].url_path == second[file].url_path and first[file].title == second[file].title
