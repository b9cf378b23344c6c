"""Shared fixtures: a tiny seeded model small enough for every test to run in milliseconds, the
`--device` switch that tests/test_device.py runs the model, decoding, trace and training step on, and
`one_thread` for the modules that run the app's model."""

from __future__ import annotations

import functools
import os

import pytest
import torch
from streamlit.components.v2 import manifest_scanner

from transformer import Transformer, TransformerConfig

# No warm-up (ui.warm) in the servers the tests start (tests/server.py passes its environment on): it would
# share the CPU with the tests. tests/test_warm.py switches it on for the server that checks it.
os.environ.setdefault("ATLAS_WARM_UP", "0")


def pytest_addoption(parser):
    parser.addoption(
        "--device",
        default="cpu",
        choices=["cpu", "cuda"],
        help="where tests/test_device.py puts the model (compared with the same model on the CPU)",
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
_scan = manifest_scanner.scan_component_manifests
manifest_scanner.scan_component_manifests = functools.lru_cache(maxsize=1)(_scan)
