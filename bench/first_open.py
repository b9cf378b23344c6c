"""A student's first open over a school link: bytes and time to a ready page, Streamlit alone against
`make serve` (nginx, which compresses Streamlit's scripts: tools/serve.py).

Each open is a new Chromium context (an empty cache, as on a student's first visit) on the numbers
model's decoder page, timed on the page's clock to the page ready (`bench/app.py`'s `_open_timed`), without a
limit and with the link throttled by Chromium to `--mbit` Mbit/s and 20 ms latency (a class shares one
school link: 100 Mbit/s among 30 students leaves each about 3).

    .venv/bin/python bench/first_open.py --runs 3 --mbit 20
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ first: `app` is bench/app.py here, not the Streamlit entry point.
sys.path[:0] = [str(ROOT / "bench"), str(ROOT), str(ROOT / "tools")]

import serve  # noqa: E402
from real_server import chromium, free_port  # noqa: E402

from app import _open_timed  # noqa: E402

PAGE, TITLE = "Decoder_and_generation?model=numbers", "Decoder and generation"
# Every byte the page's requests moved, and what they were once unpacked.
BYTES_JS = """() => performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'))
  .reduce((sum, r) => [sum[0] + r.transferSize, sum[1] + r.decodedBodySize], [0, 0])"""


def first_open(browser, base: str, mbit: float) -> tuple[float, int, int]:
    """(seconds to ready on the page's clock, bytes moved, bytes unpacked) for one new context opening
    PAGE (`bench/app.py`'s `_open_timed`), its link throttled to `mbit` Mbit/s unless 0."""

    def throttle(context, tab) -> None:
        cdp = context.new_cdp_session(tab)
        cdp.send("Network.enable")
        rate = mbit * 1e6 / 8  # bytes a second
        cdp.send("Network.emulateNetworkConditions",
                 {"offline": False, "latency": 20, "downloadThroughput": rate, "uploadThroughput": rate})

    opened = _open_timed(browser, f"{base}/{PAGE}", TITLE, setup=throttle if mbit else None, also_js=BYTES_JS)
    moved, unpacked = opened["also"]
    return opened["done_s"], int(moved), int(unpacked)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="opens of each kind (median reported)")
    parser.add_argument("--mbit", type=float, default=20.0, help="the throttled link, Mbit/s")
    args = parser.parse_args()
    port = free_port()
    # One worker: its Streamlit answers on serve.FIRST_WORKER_PORT too, so both ways reach one process.
    process = subprocess.Popen([sys.executable, str(ROOT / "tools" / "serve.py"), "--workers", "1",
                                "--port", str(port), "--address", "127.0.0.1"], cwd=ROOT,
                               start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ways = {"nginx (make serve)": f"http://127.0.0.1:{port}",
            "Streamlit alone": f"http://127.0.0.1:{serve.FIRST_WORKER_PORT}"}
    try:
        deadline = time.monotonic() + 600
        while not all(serve.healthy(u) for u in ways.values()):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("tools/serve.py did not come up")
            time.sleep(0.5)
        with chromium() as browser:
            first_open(browser, ways["nginx (make serve)"], 0)  # the model loaded, the sentence traced
            print("| way | link | ready, median (all) | moved | unpacked |\n|---|---|---|---|---|")
            for mbit in (0, args.mbit):
                for name, base in ways.items():
                    runs = [first_open(browser, base, mbit) for _ in range(args.runs)]
                    times = [round(r[0], 2) for r in runs]
                    print(f"| {name} | {f'{mbit:g} Mbit/s' if mbit else 'loopback'} | "
                          f"{statistics.median(times):.2f} s ({', '.join(f'{t:.2f}' for t in times)}) | "
                          f"{runs[0][1] / 1e6:.2f} MB | {runs[0][2] / 1e6:.2f} MB |", flush=True)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
