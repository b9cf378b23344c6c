"""`make serve`: several Streamlit processes behind Debian's nginx with sticky sessions (tools/serve.py)."""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import streamlit
from server import ROOT, free_port

sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "bench")]
import class_at_once as cao  # noqa: E402
import serve  # noqa: E402

pytestmark = pytest.mark.timeout(1200)


def test_nginx_routes_by_a_sticky_cookie_and_passes_websockets(tmp_path):
    conf = serve.nginx_conf(tmp_path, [8601, 8602, 8603], 8501)
    assert "hash $atlas_route consistent;" in conf and "ip_hash" not in conf
    assert all(f"server 127.0.0.1:{p};" in conf for p in (8601, 8602, 8603))
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_set_header Connection $connection_upgrade;" in conf
    assert 'Set-Cookie "atlas_route=$atlas_route;' in conf
    assert "ip_hash;" in serve.nginx_conf(tmp_path, [8601], 8501, balance="ip")


def test_each_worker_gets_a_share_of_the_cores(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("ATLAS_MODEL_SLOTS", raising=False)
    env = serve.worker_env(2)
    assert env["OMP_NUM_THREADS"] == str(max(1, (os.cpu_count() or 1) // 2))
    assert env["ATLAS_MODEL_SLOTS"] == "1"


def test_make_test_installs_nginx_so_that_the_class_test_below_runs_on_a_clean_machine():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    prerequisites = re.search(r"^test:([^#\n]*)", makefile, re.MULTILINE).group(1).split()
    assert {"browser-deps", "nginx-deps"} <= set(prerequisites), prerequisites


@pytest.mark.skipif(
    shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"),
    reason="nginx not installed: `make nginx-deps`",
)
def test_two_workers_behind_nginx_serve_a_class():
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tools" / "serve.py"),
            "--workers",
            "2",
            "--port",
            str(port),
            "--address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while not serve.healthy(url):
            assert process.poll() is None, "tools/serve.py exited"
            assert time.monotonic() < deadline, "not healthy in time"
            time.sleep(0.5)
        with urllib.request.urlopen(url + "/", timeout=30) as response:
            cookie = response.headers.get("Set-Cookie", "")
        assert cookie.startswith("atlas_route=")
        _scripts_come_compressed(url)
        outcomes = cao.burst(url, "home", cao.sentences(4, offset=3000))
        assert cao.check(outcomes) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    assert not serve.healthy(url)  # nginx stopped with it


def _scripts_come_compressed(url: str) -> None:
    """Streamlit's largest script (Plotly's) through nginx: gzip for a browser that asks for it, the
    same bytes as Streamlit's own file once unpacked, and plain for a client that does not ask."""
    script = next((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    path = f"{url}/static/js/{script.name}"
    asked = urllib.request.Request(path, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(asked, timeout=30) as response:
        assert response.headers.get("Content-Encoding") == "gzip"
        sent = response.read()
    assert gzip.decompress(sent) == script.read_bytes()
    assert len(sent) < 0.4 * script.stat().st_size, (len(sent), script.stat().st_size)
    with urllib.request.urlopen(path, timeout=30) as response:
        assert response.headers.get("Content-Encoding") is None
        assert response.read() == script.read_bytes()
