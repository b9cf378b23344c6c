"""Helpers for the real-server tests (not a test module).

The server, the browser and the app's pages come from tools/real_server.py (the benchmarks and tools/
use them too; a test file imports them from here). What only the tests need is here:
- `page_url()`: a page's address on a running server;
- `type_sentence()`: type into the sentence box and wait for the rerun;
- `screenshot_path()`, `full_screenshot()`: a failing test's screenshot under artifacts/.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from real_server import (  # noqa: E402
    APP,
    APP_IDLE,
    ARTIFACTS,
    CAP_SENTENCE,
    DRAWN,
    EXCEPTION,
    FIGURE,
    PLOTLY_CHART,
    ROOT,
    SENTENCE_BOX,
    TABS_ARGS,
    AppPage,
    Server,
    Tabs,
    chromium,
    discover_pages,
    figure_elements,
    free_port,
    lecture_path,
    navigation,
    server_rss_mb,
    streamlit_command,
    streamlit_server,
    wait_idle,
)

__all__ = [
    "APP", "APP_IDLE", "ARTIFACTS", "CAP_SENTENCE", "DRAWN", "EXCEPTION", "FIGURE", "PLOTLY_CHART", "ROOT",
    "SENTENCE_BOX",
    "AppPage", "Server", "Tabs", "chromium", "TABS_ARGS", "discover_pages", "figure_elements",
    "free_port", "full_screenshot", "lecture_path", "navigation", "page_url", "screenshot_path",
    "server_rss_mb", "streamlit_command", "streamlit_server", "type_sentence", "wait_idle",
]  # fmt: skip


def page_url(server: Server, page: AppPage, query: str = "") -> str:
    url = f"{server.url}/{page.url_path}"
    return f"{url}?{query}" if query else url


def type_sentence(tab, text: str, timeout_ms: float = 180_000) -> None:
    """Replace the sidebar sentence, commit it (Ctrl+Enter) and wait for the rerun to finish."""
    box = tab.locator(SENTENCE_BOX)
    box.wait_for(state="visible", timeout=timeout_ms)
    box.fill(text)
    box.press("Control+Enter")
    wait_idle(tab, timeout_ms)


def screenshot_path(name: str) -> Path:
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"


def full_screenshot(tab, name: str) -> Path:
    """Screenshot the whole page: Streamlit scrolls inside its main block, so grow the viewport first."""
    height = tab.evaluate(
        "() => Math.max(...['[data-testid=\"stMain\"]', '[data-testid=\"stSidebarContent\"]']"
        ".map(s => document.querySelector(s)?.scrollHeight || 0), document.body.scrollHeight)"
    )
    size = tab.viewport_size or {"width": 1400, "height": 1000}
    tab.set_viewport_size({"width": size["width"], "height": int(min(max(height, 600), 16_000))})
    tab.wait_for_timeout(500)  # let Plotly re-lay out its figures to the new size
    path = screenshot_path(name)
    tab.screenshot(path=str(path), full_page=True)
    tab.set_viewport_size(size)
    return path
