"""Shared fixtures: a tiny seeded model small enough for every test to run in milliseconds, the
`--device` switch that tests/test_device.py runs the model, decoding, trace and training step on, and
`one_thread` for the modules that run the app's model."""

from __future__ import annotations

import functools
import os

import pytest
import torch

try:  # absent where only PyTorch is installed: `make test-cuda`'s tests need no Streamlit
    from streamlit.components.v2 import manifest_scanner
except ImportError:
    manifest_scanner = None

from transformer import Transformer, TransformerConfig

# No warm-up (ui.warm) in the servers the tests start (tests/server.py passes its environment on): it would
# share the CPU with the tests. tests/test_warm.py switches it on for the server that checks it.
os.environ.setdefault("ATLAS_WARM_UP", "0")

# One PyTorch thread, in this process and in every process the tests start (servers, commands: they get
# this environment), unless OMP_NUM_THREADS says otherwise. The servers share the 2 cores with Chromium
# and this process: two OpenMP threads that wait for each other there ran the shipped model's greedy
# translation in 5 s instead of 0.08 s (transformer.translate.THREADS says the same of a busy machine).
# One model slot (ui.turns) as before: with one thread ui.turns would otherwise open one slot per core.
if "OMP_NUM_THREADS" not in os.environ:
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
os.environ.setdefault("ATLAS_MODEL_SLOTS", "1")


def pytest_addoption(parser):
    parser.addoption(
        "--device",
        default="cpu",
        choices=["cpu", "cuda"],
        help="where tests/test_device.py puts the model (compared with the same model on the CPU)",
    )
    parser.addoption(
        "--device-model",
        default="pretrained",
        help="the model directory tests/test_device.py loads, relative to the repository root",
    )


@pytest.fixture(scope="module")
def one_thread():
    """One PyTorch thread for a module's tests (use with `pytest.mark.usefixtures("one_thread")`): the
    app's model runs in-process, and one thread avoids oversubscribing a machine shared with other jobs."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def device(request) -> torch.device:
    """The device named by --device; asking for CUDA where there is none is an error, not a skip."""
    name = request.config.getoption("--device")
    if name == "cuda" and not torch.cuda.is_available():
        pytest.fail("--device cuda was given but torch.cuda.is_available() is False")
    return torch.device(name)


@pytest.fixture
def tiny_config() -> TransformerConfig:
    return TransformerConfig(
        vocab_size=50, d_model=16, n_heads=2, d_ff=32, n_layers=2, dropout=0.0, max_len=64
    )


@pytest.fixture
def tiny_model(tiny_config) -> Transformer:
    torch.manual_seed(0)
    return Transformer(tiny_config).eval()


@pytest.fixture
def tiny_trace(tiny_model):
    """A trace of `tiny_model` on five source and four target pieces, named like words."""
    from transformer.trace import run_trace

    pieces = (["The", "▁cat", "▁sat", ".", "</s>"], ["<s>", "▁Die", "▁Katze", "."])
    return run_trace(tiny_model, [5, 9, 12, 7, 3], [1, 8, 6, 11], *pieces)


@pytest.fixture
def batch(tiny_config):
    """A source batch with padding in row 1 and a target batch with padding in row 0."""
    g = torch.Generator().manual_seed(1)
    src = torch.randint(4, tiny_config.vocab_size, (2, 7), generator=g)
    tgt = torch.randint(4, tiny_config.vocab_size, (2, 5), generator=g)
    src[1, 5:] = tiny_config.pad_id
    tgt[0, 4:] = tiny_config.pad_id
    tgt[:, 0] = tiny_config.bos_id
    return src, tgt


# Streamlit looks for v2 component manifests in every installed package's metadata each time a runtime
# starts: once per AppTest (0.4-1.3 s each here, most of a page test's time). The installed packages do
# not change during a test session: look once.
if manifest_scanner is not None:
    _scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.lru_cache(maxsize=1)(_scan)


@pytest.fixture(scope="session")
def app_server():
    """One `streamlit run app.py` on the shipped model for the whole session (tests/server.py), shared by
    the real-browser tests that need no server of their own: a server started and its model loaded once,
    not once per module. Each test still opens its own browser context, so its own Streamlit session.
    A test that needs a fresh server, another model directory or other settings starts its own."""
    from server import streamlit_server

    with streamlit_server() as running:
        yield running


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium per test process (a second Playwright cannot start beside the first), with
    `TABS_ARGS` for the `tabs` fixture. A test that needs sessions of its own at once, or an empty cache,
    takes a context of its own (`browser.new_context()`)."""
    from server import TABS_ARGS, chromium

    with chromium(TABS_ARGS) as running:
        yield running


@pytest.fixture(scope="session")
def tabs(browser, app_server):
    """Each test's visit a new tab, its own Streamlit session, in one context whose tabs share the
    compiled scripts (tests/server.py's `Tabs`)."""
    from server import Tabs

    return Tabs(browser, app_server.url)


# `make test` runs the tests in two processes (pytest-xdist), one test module at a time each: a module's
# tests stay together, so its module fixtures (a trained toy model, a server of its own) are made once and
# the session's shared server (`app_server`) once per process. The load test (a dozen browser sessions at
# once, minutes) goes first, beside the modules that need no browser; the modules that start a server or
# a browser follow, two at a time. (xdist's own `xdist_group` marks do nothing under pytest 9: they
# rename a test id that pytest no longer reads. The modules are grouped here, by xdist's scheduler hook.)
FIRST = "test_load"
SERVER_MODULES = {
    "test_ablations_browser", "test_browser", "test_class_at_once", "test_install",
    "test_lazy_figures_browser", "test_live_browser", "test_live_train", "test_plotly_preload",
    "test_presenter_browser", "test_presenter_first_screen_browser", "test_security", "test_serve",
    "test_warm",
}  # fmt: skip


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        module = _module(item.nodeid)
        if module == FIRST:
            return 0
        return 2 if module in SERVER_MODULES or "app_server" in item.fixturenames else 1

    items.sort(key=rank)  # stable: the modules keep their order within each rank


@pytest.hookimpl(optionalhook=True)  # only where xdist runs the tests
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        """One work unit per test module, in collection order (`pytest_collection_modifyitems`)."""

        def _split_scope(self, nodeid: str) -> str:
            return _module(nodeid)

    config.option.loadscopereorder = False
    return ByModule(config, log)
