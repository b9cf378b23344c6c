"""Several Streamlit processes behind nginx, for a class larger than one process serves (`make serve`).

A Streamlit session lives on one process (its websocket, its session state, its download files), so
the load balancer must keep a browser on the process it started on. nginx (Debian's) does it with a
cookie: the first response sets `atlas_route` to a random value, and every later request of that
browser, the websocket included, is routed by a consistent hash of it. A whole class behind one
school NAT shares one address, so `ip_hash` would send every student to the same process: the
cookie spreads them. `--balance ip` uses `ip_hash` instead (for clients that drop cookies).

Each process gets its share of the cores for PyTorch (OMP_NUM_THREADS) and one model slot
(ATLAS_MODEL_SLOTS, see ui/turns.py), so N processes together use the machine's cores once.

    .venv/bin/python tools/serve.py --workers 2 --port 8501      # what `make serve WORKERS=2` runs

Ctrl+C (or SIGTERM) stops nginx and every worker.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as `python tools/serve.py`: the project's packages. Imported (bench/first_open.py), it leaves the
# caller's order alone: there `app` must stay bench/app.py, not the Streamlit entry point.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from attention_atlas.cli import streamlit_command  # noqa: E402

FIRST_WORKER_PORT = 8601

NGINX_CONF = """\
worker_processes 1;
daemon off;
pid {run}/nginx.pid;
error_log {run}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {run}/body;
  proxy_temp_path {run}/proxy;
  fastcgi_temp_path {run}/fastcgi;
  uwsgi_temp_path {run}/uwsgi;
  scgi_temp_path {run}/scgi;
  # Streamlit sends its scripts uncompressed (Plotly's alone is 4.7 MB): compressed here, a new
  # browser fetches a third of the bytes, which a class sharing one school link feels.
  gzip on;
  gzip_comp_level 4;
  gzip_min_length 1024;
  gzip_proxied any;
  gzip_types application/javascript text/css application/json image/svg+xml;
  map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
  # The browser's route: its cookie, else a fresh random one (set on the response below).
  map $cookie_atlas_route $atlas_route {{ "" $request_id; default $cookie_atlas_route; }}
  upstream atlas {{
    {balance};
{servers}
  }}
  server {{
    listen {address}:{port};
    location / {{
      proxy_pass http://atlas;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 1d;
      proxy_send_timeout 1d;
      proxy_buffering off;
      add_header Set-Cookie "atlas_route=$atlas_route; Path=/; SameSite=Lax; HttpOnly";
    }}
  }}
}}
"""


def nginx_conf(
    run: Path, ports: list[int], port: int, address: str = "0.0.0.0", balance: str = "cookie"
) -> str:
    """nginx's configuration: one upstream of the workers, sticky by cookie (or by client address)."""
    rule = "ip_hash" if balance == "ip" else "hash $atlas_route consistent"
    servers = "\n".join(f"    server 127.0.0.1:{p};" for p in ports)
    return NGINX_CONF.format(run=run, balance=rule, servers=servers, port=port, address=address)


def worker_command(port: int) -> list[str]:
    """`make run`'s command (`attention-atlas`), on a loopback port behind nginx."""
    return streamlit_command(["--port", str(port), "--server.address", "127.0.0.1"])


def worker_env(workers: int) -> dict[str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))
    env.setdefault("ATLAS_MODEL_SLOTS", "1")
    return env


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait_healthy(urls: list[str], processes: list[subprocess.Popen], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not all(healthy(u) for u in urls):
        if any(p.poll() is not None for p in processes):
            raise RuntimeError("a worker or nginx exited; see the logs above")
        if time.monotonic() > deadline:
            raise RuntimeError(f"not healthy after {timeout:.0f} s: {urls}")
        time.sleep(0.3)


def stop(processes: list[subprocess.Popen]) -> None:
    for p in processes:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
    for p in processes:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="Streamlit processes")
    parser.add_argument("--port", type=int, default=8501, help="the port nginx listens on")
    parser.add_argument("--address", default="0.0.0.0", help="the address nginx listens on")
    parser.add_argument(
        "--balance",
        choices=["cookie", "ip"],
        default="cookie",
        help="sticky by a cookie (default) or by client address (ip_hash)",
    )
    args = parser.parse_args()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(nginx, os.X_OK):
        print(
            "nginx not found: `make serve` installs Debian's (apt-get install nginx-light).", file=sys.stderr
        )
        return 1
    ports = [FIRST_WORKER_PORT + i for i in range(args.workers)]
    run = Path(tempfile.mkdtemp(prefix="atlas-nginx-"))
    (run / "nginx.conf").write_text(nginx_conf(run, ports, args.port, args.address, args.balance), "utf-8")
    processes: list[subprocess.Popen] = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        env = worker_env(args.workers)
        for port in ports:
            processes.append(
                subprocess.Popen(
                    worker_command(port), cwd=ROOT, env=env, start_new_session=True, stdin=subprocess.DEVNULL
                )
            )
        wait_healthy([f"http://127.0.0.1:{p}" for p in ports], processes)
        processes.append(
            subprocess.Popen(
                [nginx, "-p", str(run), "-c", str(run / "nginx.conf")],
                start_new_session=True,
                stdin=subprocess.DEVNULL,
            )
        )
        wait_healthy([f"http://127.0.0.1:{args.port}"], processes, timeout=30)
        print(
            f"Attention Atlas: {args.workers} processes behind nginx, open http://localhost:{args.port} "
            "(Ctrl+C stops them all).",
            flush=True,
        )
        while all(p.poll() is None for p in processes):
            time.sleep(1)
        print("a worker or nginx stopped: stopping the rest", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        stop(processes)
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
