"""Every page draws its header before PyTorch is imported.

Importing PyTorch takes ~1.5 s on a cold server (longer while a browser shares the CPU). A page whose
title waits for it leaves the reader in front of an empty page: each page calls `ui.frame.header`
(page config and title) before importing anything that imports torch, and app.py, which runs before
every page, imports nothing heavy at all.

Checked on the pages' source (the statements before the header call may only be imports) and in a
fresh interpreter (those imports leave torch out of `sys.modules`), so a new import of `ui.page`
above a page's header fails here.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest
from server import APP, ROOT, discover_pages


def _header_index(tree: ast.Module) -> int | None:
    """Index of the first top-level statement that calls `ui.frame.header`, as `header(...)` (imported
    from ui.frame) or `frame.header(...)`; not Streamlit's `st.header`, a section heading."""
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if (isinstance(func, ast.Name) and func.id == "header") or (
                isinstance(func, ast.Attribute) and func.attr == "header"
                and isinstance(func.value, ast.Name) and func.value.id == "frame"
            ):  # fmt: skip
                return index
    return None


def _imports(nodes: list[ast.stmt], where: str) -> list[str]:
    """The modules (and `from` names, which may be submodules) these statements import; anything but an
    import or the docstring fails the test."""
    names: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.module != "__future__":
                names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # the docstring
            raise AssertionError(f"{where}: line {node.lineno} runs before the header (only imports may)")
    return names


def _loads_torch(modules: list[str]) -> bool:
    """Whether importing these modules (names that are not modules are skipped) in a fresh interpreter
    imports torch."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ModuleNotFoundError as err:\n"
        "        if not name.startswith(err.name or ''):\n"
        "            raise\n"
        "print(json.dumps('torch' in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


PAGES = [page.file for page in discover_pages()]


@pytest.mark.parametrize("file", PAGES)
def test_the_header_is_drawn_before_anything_imports_torch(file):
    tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
    index = _header_index(tree)
    assert index is not None, f"{file} draws no header at its top level (ui.frame.header)"
    modules = _imports(tree.body[:index], file)
    assert "ui.frame.header" in modules or "ui.frame" in modules, f"{file}: its header is not ui.frame's"
    assert not _loads_torch(modules), f"{file} imports PyTorch before its header: {modules}"


def test_app_py_imports_nothing_that_loads_torch():
    tree = ast.parse((ROOT / APP).read_text(encoding="utf-8"))
    modules = [name for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
               for name in _imports([node], APP)]  # fmt: skip
    assert not _loads_torch(modules), modules


def test_the_check_can_fail():
    """The fresh-interpreter check sees torch when a page imports the page frame (`ui.page`) first."""
    assert _loads_torch(["ui.page"])
    assert not _loads_torch(["streamlit", "ui.frame", "ui.frame.header"])
