"""User text is never HTML: a source check over the whole repository, and a real-browser check.

1. No `unsafe_allow_html` anywhere; `st.html(...)` only ever renders a module-level constant string
   (static styling), never something built at run time; no `components.html` at all.
2. In headless Chromium, on every page, a hostile sentence typed in the box (and one arriving in a
   shared link) is shown as text: the box holds it literally, no element or handler from it exists in
   the page, and no dialog ever opens.
"""

from __future__ import annotations

import ast
import urllib.parse
from pathlib import Path

import pytest
from server import (
    EXCEPTION,
    SENTENCE_BOX,
    discover_pages,
    page_url,
    type_sentence,
    wait_idle,
)

pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {".venv", ".git", "data", "runs", "artifacts", "node_modules", "__pycache__"}
UNSAFE = "unsafe_allow" + "_html"  # spelled in two parts so this file does not match itself
PAGES = discover_pages()
TIMEOUT_MS = 300_000

TYPED = "<script>alert(1)</script><img src=x onerror=alert(2)>"
LINKED = '"><svg/onload=alert(3)><iframe src="javascript:alert(4)"></iframe> [click](javascript:alert(5))'


def python_files() -> list[Path]:
    found = []
    for path in ROOT.rglob("*.py"):
        if not SKIP_DIRS & set(path.relative_to(ROOT).parts):
            found.append(path)
    return sorted(found)


def test_the_scan_sees_the_app():
    names = {str(p.relative_to(ROOT)) for p in python_files()}
    assert {"app.py", "pages/home.py", "ui/render.py", "tests/test_security.py"} <= names


def test_no_unsafe_allow_html_anywhere():
    hits = []
    for path in python_files():
        if path == Path(__file__).resolve():
            continue  # this checker names the flag in its own docs
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if UNSAFE in line:
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "user text must never be rendered as HTML:\n" + "\n".join(hits)


def _module_string_constants(tree: ast.Module) -> set[str]:
    """Names assigned exactly once at module level, to a plain string literal (or a concatenation)."""
    assigned: dict[str, int] = {}
    literal: set[str] = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                assigned[target.id] = assigned.get(target.id, 0) + 1
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _is_static_string(node.value):
                literal.add(node.targets[0].id)
    return {name for name in literal if assigned.get(name) == 1 and name.isupper()}


def _is_static_string(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_static_string(node.left) and _is_static_string(node.right)
    return False  # f-strings (JoinedStr), calls, names, formatting: all could carry user text


def html_calls(source: str, filename: str = "<src>") -> list[tuple[int, str]]:
    """Problems with HTML sinks in `source`: (line, why)."""
    tree = ast.parse(source, filename=filename)
    constants = _module_string_constants(tree)
    problems = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
        if node.func.attr == "html" and owner_name in ("st", "streamlit"):
            keywords = (k.value for k in node.keywords if k.arg == "body")
            arg = node.args[0] if node.args else next(keywords, None)
            if not (isinstance(arg, ast.Name) and arg.id in constants):
                problems.append((node.lineno, "st.html argument is not a module-level string constant"))
        elif node.func.attr in ("html", "iframe") and owner_name in ("components", "v1"):
            problems.append((node.lineno, f"components.{node.func.attr} renders arbitrary HTML"))
    return problems


def test_html_check_catches_dynamic_html():
    """The checker itself: constants pass, anything built at run time fails."""
    good = 'import streamlit as st\nCSS = "<style>p {}</style>"\nst.html(CSS)\n'
    assert html_calls(good) == []
    bad_sources = [
        "import streamlit as st\nst.html(f'<b>{name}</b>')\n",
        "import streamlit as st\nCSS = '<b>'\nCSS = user\nst.html(CSS)\n",
        "import streamlit as st\ndef f(x):\n    st.html(x)\n",
        "import streamlit as st\nst.html('<b>' + name)\n",
        "import streamlit as st\nlower = '<b>'\nst.html(lower)\n",
        "import streamlit.components.v1 as components\ncomponents.html('<b>')\n",
    ]
    for source in bad_sources:
        assert html_calls(source), source


def test_st_html_only_renders_static_constants():
    problems = []
    for path in python_files():
        if path.name == "test_security.py":
            continue
        for line, why in html_calls(path.read_text(encoding="utf-8"), str(path)):
            problems.append(f"{path.relative_to(ROOT)}:{line}: {why}")
    assert not problems, "\n".join(problems)


# --- in a real browser ------------------------------------------------------------------------------

INJECTED = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    if (el.closest('textarea')) continue;
    for (const attr of el.attributes) {
      const value = attr.value || '';
      if (attr.name.startsWith('on') && /alert\\(/.test(value)) found.push(el.tagName + ' ' + attr.name);
      if (/^\\s*javascript:.*alert/i.test(value)) found.push(el.tagName + ' ' + attr.name + '=' + value);
    }
    if (el.tagName === 'SCRIPT' && /alert\\(/.test(el.textContent)) found.push('SCRIPT ' + el.textContent);
    if (el.tagName === 'IMG' && el.getAttribute('src') === 'x') found.push('IMG src=x');
  }
  return found;
}"""


@pytest.fixture(scope="module")
def server(app_server):
    """The session's shared server (conftest.py)."""
    return app_server


def check_page(tab, dialogs: list, expected: str, what: str) -> None:
    box = tab.locator(SENTENCE_BOX)
    box.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert box.input_value() == expected, f"{what}: the sentence box does not hold the text literally"
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(tab.url).query))
    assert query.get("s") == expected, f"{what}: the link does not carry the text literally"
    tab.wait_for_timeout(1500)  # give any injected handler (onerror, onload) the chance to fire
    assert dialogs == [], f"{what}: a dialog opened: {dialogs}"
    injected = tab.evaluate(INJECTED)
    assert injected == [], f"{what}: markup from the sentence reached the page: {injected}"
    assert tab.locator(EXCEPTION).count() == 0, f"{what}: exception shown"
    assert "Traceback" not in tab.inner_text("body"), f"{what}: traceback text shown"


@pytest.mark.parametrize("app_page", PAGES, ids=[p.name for p in PAGES])
def test_hostile_sentence_is_text_in_the_browser(server, tabs, app_page):
    tab = tabs.new_page({"width": 1400, "height": 1000})
    dialogs: list[str] = []
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        # A shared link carrying markup.
        link = page_url(server, app_page, urllib.parse.urlencode({"s": LINKED}))
        tab.goto(link, wait_until="domcontentloaded")
        wait_idle(tab, TIMEOUT_MS)
        check_page(tab, dialogs, LINKED, f"{app_page.script} (link)")
        # The same session, typing a script and an onerror image.
        type_sentence(tab, TYPED, TIMEOUT_MS)
        check_page(tab, dialogs, TYPED, f"{app_page.script} (typed)")
    finally:
        tab.close()
    assert dialogs == []
