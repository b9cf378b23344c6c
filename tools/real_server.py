"""The app's real Streamlit server and a browser to drive it, for the tests, the benchmarks and tools/.

- `navigation()`, `discover_pages()`: the app's pages as app.py's `st.navigation` lists them (the
  home page first), so callers follow whatever pages the sidebar offers instead of a hard-coded list;
  `lecture_path()`: the order app.py's Back and Next links follow.
- `streamlit_server()`: `streamlit run app.py` as `make run` starts it, on a free loopback port, waited
  for until healthy, always terminated (its whole process group) when the block ends.
- `chromium()`: Debian's Chromium driven by Playwright (never a downloaded browser); `Tabs`: many short
  visits, each a tab of one shared context.
- `wait_idle()`: wait for a Streamlit rerun to finish; `server_rss_mb()`: the server's memory.

Not a command: bench/ and tools/ scripts put tools/ on sys.path and import it (tests/server.py too).
"""

from __future__ import annotations

import ast
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # imported by bench/ and tools/ scripts as well as by pytest
    sys.path.insert(0, str(ROOT))
from attention_atlas.cli import streamlit_command  # noqa: E402
from ui.frame import PLOTLY_PRELOAD_KEY  # noqa: E402

APP = "app.py"  # the entry point: `streamlit run app.py`
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "artifacts"
SENTENCE_BOX = 'textarea[aria-label="English sentence"]'
# A figure of the page, not the hidden chart that loads Plotly's script (`ui.frame.load_plotly`).
NOT_PRELOAD = f":not(.st-key-{PLOTLY_PRELOAD_KEY} *)"
PLOTLY_CHART = f'[data-testid="stPlotlyChart"]{NOT_PRELOAD}'
FIGURE = f'.js-plotly-plot{NOT_PRELOAD}, {PLOTLY_CHART}, [data-testid="stVegaLiteChart"]'
# A figure actually drawn (not just its placeholder): Plotly's SVG, or Vega-Lite's (home page).
DRAWN = f'.js-plotly-plot{NOT_PRELOAD} .main-svg, [data-testid="stVegaLiteChart"] svg.marks'
EXCEPTION = '[data-testid="stException"]'
APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# What a page's source contains when it draws a figure (directly or through ui's helper): Plotly, or
# Vega-Lite for the home page's Figure 1.
FIGURE_CALLS = ("show_figure(", "plotly_chart(", "show_figures(", "figure_with_exports(", "vega_lite_chart(")
# Past the app's 60-piece cap (the app keeps the first 60 pieces and says so): the largest attention
# figures any sentence can make (T² cells). Used by the payload test and the payload benchmark.
CAP_SENTENCE = (
    "It is in this spirit that a majority of American governments have passed new laws since 2009 "
    "making the registration or voting process more difficult, and the courts have said that the states "
    "may decide how people vote in their own elections, although many citizens and several judges think "
    "that this is unfair."
)


@dataclass(frozen=True)
class AppPage:
    """One page of the app: the script AppTest runs for it, its page file and its URL path.

    The home page runs through app.py (its links to other pages only resolve under the app's
    navigation); every other page runs its own file.
    """

    script: str  # relative to the repo root
    url_path: str  # "" for the home page
    file: str  # the page's own file, as app.py names it
    title: str = ""

    @property
    def name(self) -> str:
        return self.url_path or "Home"

    @property
    def source(self) -> str:
        return (ROOT / self.file).read_text(encoding="utf-8")

    @property
    def draws_figure(self) -> bool:
        """Whether the page's own source draws a figure (else: it must at least show its title)."""
        text = self.source
        if not self.url_path:  # the home page delegates to ui/home.py
            text += (ROOT / "ui" / "home.py").read_text(encoding="utf-8")
        return any(call in text for call in FIGURE_CALLS)

    @property
    def has_attention_picker(self) -> bool:
        return "attention_picker(" in self.source


def figure_elements(at) -> list:
    """The figure elements of an AppTest run: Plotly charts, and Vega-Lite (the home page's Figure 1)."""
    return [*at.get("plotly_chart"), *at.get("vega_lite_chart")]


def navigation() -> dict[str, list[tuple[str, str, str, str]]]:
    """app.py's `SECTIONS`: section -> [(page file, title, icon, URL path)], read from its source.

    Parsed, not imported: importing app.py would run the app.
    """
    return _app_literal("SECTIONS")


def lecture_path() -> list[str]:
    """app.py's `LECTURE_PATH`: the URL paths of the pages in the lecture's order (`ui.lecture`)."""
    return _app_literal("LECTURE_PATH")


def _app_literal(name: str):
    """The value of app.py's top-level assignment to `name`, a plain literal."""
    tree = ast.parse((ROOT / APP).read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.literal_eval(node.value)
    raise RuntimeError(f"{APP} defines no {name}")


def discover_pages() -> list[AppPage]:
    """Every page of the sidebar, in its order: the home page (run through app.py) first."""
    pages = [
        AppPage(APP if not url else file, url, file, title)
        for entries in navigation().values()
        for file, title, _icon, url in entries
    ]
    return sorted(pages, key=lambda p: p.url_path != "")  # stable: only moves the home page first


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return ""


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except (urllib.error.URLError, OSError):
        return False


def _stop(process: subprocess.Popen) -> None:
    """Terminate the server's process group (it is ours: started with start_new_session)."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


@contextlib.contextmanager
def streamlit_server(model_dir: str | Path | None = None, start_timeout: float = 180.0,
                     script: Path | None = None, env_extra: dict | None = None) -> Iterator[Server]:
    """Run `streamlit run app.py` on a free loopback port; yield it once /_stcore/health says ok.
    `script`: another page, served with the same settings (e.g. bench/floor_page.py); `env_extra`: more
    environment for the server."""
    port = free_port()
    env = dict(os.environ)
    env.pop("ATLAS_MODEL_DIR", None)
    if model_dir is not None:
        env["ATLAS_MODEL_DIR"] = str(model_dir)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(env_extra or {})
    # `make run`'s command (`attention-atlas`): the same settings, from .streamlit/config.toml.
    command = streamlit_command(["--port", str(port), "--server.address", "127.0.0.1"])
    if script is not None:
        command = [str(script) if part.endswith("app.py") else part for part in command]
    log = tempfile.NamedTemporaryFile(prefix="atlas-server-", suffix=".log", delete=False)  # noqa: SIM115
    log_path = Path(log.name)
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    log.close()
    server = Server(f"http://127.0.0.1:{port}", process, log_path)
    try:
        deadline = time.monotonic() + start_timeout
        while not _healthy(server.url):
            if process.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {process.returncode}:\n{server.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit not healthy after {start_timeout:.0f} s:\n{server.log()}")
            time.sleep(0.2)
        yield server
    finally:
        _stop(process)
        with contextlib.suppress(OSError):
            log_path.unlink()


def require_chromium() -> None:
    """Fail (never skip) with the fix when Debian's Chromium is not installed."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        raise RuntimeError(
            f"{CHROMIUM} not found: the real-browser tests need Debian's Chromium. "
            "Install it with `make browser-deps` (or `apt-get install chromium`)."
        )


@contextlib.contextmanager
def chromium(extra_args: tuple[str, ...] = ()) -> Iterator:
    """A headless Debian Chromium under Playwright's sync API, closed when the block ends."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        args = [*CHROMIUM_ARGS, *extra_args]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args, headless=True)
        try:
            yield browser
        finally:
            browser.close()


# Run in every document of a `Tabs` context before the page's own scripts: the first document of each tab
# (sessionStorage is the tab's own) starts with empty localStorage, where Streamlit keeps the sidebar's
# width and navigation state, as a tab of a fresh context would.
_FRESH_STORAGE = """if (!sessionStorage.getItem("atlas-tab")) {
  sessionStorage.setItem("atlas-tab", "1"); localStorage.clear(); }"""


TABS_ARGS = ("--process-per-site",)  # the Chromium arguments `Tabs` needs


class Tabs:
    """Tabs for many short visits to the app, each its own Streamlit session (a page has its own
    websocket), all in one browser context whose pages share one renderer process (a Chromium started
    with `TABS_ARGS`: `--process-per-site`). A fresh context per visit starts a renderer process and
    compiles Streamlit's and Plotly's scripts in it every time; here that process stays, kept alive
    between visits by a page open on the server's health check: eight pages, cached on the server, drew
    in 26-33 s on an idle 2-core machine against 49-50 s in a fresh context each (0.5-0.7x). Tabs of
    the context share cookies and the HTTP cache; a visit that needs an empty cache or several sessions
    at once takes a context of its own (`browser.new_context()`)."""

    def __init__(self, browser, url: str) -> None:
        self.context = browser.new_context()
        self.context.add_init_script(_FRESH_STORAGE)
        self._keeper = self.context.new_page()
        self._keeper.goto(f"{url}/_stcore/health")

    def new_page(self, viewport: dict | None = None):
        """A new tab (close it when done), at `viewport` ({"width", "height"}) if given."""
        page = self.context.new_page()
        if viewport:
            page.set_viewport_size(viewport)
        return page


_SCRIPT_STATE = """() => [!window.__atlasWaited,
  document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state')]"""


def wait_idle(tab, timeout_ms: float = 180_000) -> None:
    """Wait until Streamlit has connected and finished running the page's script."""
    tab.wait_for_selector('[data-testid="stApp"]', state="attached", timeout=timeout_ms)
    # A page just opened (nothing waited on it yet) is "initial" until its first run starts, and Streamlit
    # marks that run running in the same message that starts it: "notRunning" there means the first run
    # is over. After an interaction a rerun may not have started yet: give it a moment to begin.
    fresh, state = tab.evaluate(_SCRIPT_STATE)
    if not (fresh and state in ("initial", "running", "notRunning")):
        with contextlib.suppress(Exception):
            tab.wait_for_selector(
                '[data-testid="stApp"][data-test-script-state="running"]', state="attached", timeout=1_000
            )
    tab.wait_for_selector(APP_IDLE, state="attached", timeout=timeout_ms)
    tab.evaluate("() => { window.__atlasWaited = true; }")


def server_rss_mb(server: Server) -> float:
    """Resident memory of the server process and any children, in MB."""
    import psutil

    proc = psutil.Process(server.pid)
    total = proc.memory_info().rss
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            total += child.memory_info().rss
    return total / 2**20
