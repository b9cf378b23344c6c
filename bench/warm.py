"""A warm server (`ui.warm`): the head inspector's first visit on a preset against a later one, with the
warm-up and without it, in one run.

For each way (warm-up on, then off with ATLAS_WARM_UP=0) a fresh server is started as `make run` starts
it (tools/real_server.py `streamlit_server`). The lecturer opens Home first (which loads the model and
translates the default sentence, and on the warm server starts the warm-up once the page is done); on
the warm server the bench then waits for the log's "warm-up done" line. Then, for each preset but
the default sentence (Home has already done that one), a new Chromium context (a student's first visit:
a session and a browser cache of its own) opens the head inspector's deep link `?s=<preset>`, timed on
the page's clock until every visible figure is drawn and the script has finished (bench/app.py's
`_open_timed`); then another new context opens the same link (a later visit: everything cached).

    .venv/bin/python bench/warm.py             # every preset but the default (about 3-4 minutes on 2 cores)
    .venv/bin/python bench/warm.py --presets 2

Prints a table (preset, first and later visit and their ratio, for each way), the time the warm-up
took, the lecturer's Home with and without it (the warm-up must not slow it), the machine reference
(bench/reference.py) and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ first: `app` is bench/app.py here, not the Streamlit entry point.
sys.path[:0] = [str(ROOT / "bench"), str(ROOT), str(ROOT / "tools")]

from real_server import chromium, discover_pages, server_rss_mb, streamlit_server  # noqa: E402
from reference import LINE, machine_reference  # noqa: E402  (bench/reference.py)

from app import HOME_TITLE, _open_timed  # noqa: E402
from ui import warm  # noqa: E402
from ui.presets import PRESETS  # noqa: E402
from ui.state import DEFAULT_SENTENCE  # noqa: E402

MISSING_CONTEXT = "missing ScriptRunContext"
TARGET = 1.5  # after the warm-up, a first visit on a preset takes at most 1.5 × a later one


def wait_for_warm_up(server, timeout: float = 900) -> float:
    """Seconds the warm-up took, read from the server's log line once it is there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in server.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(warm.DONE_LINE):
                return float(line.split(" pieces in ")[1].split(" s")[0])
        if server.process.poll() is not None:
            raise RuntimeError(f"the server stopped:\n{server.log()}")
        time.sleep(0.5)
    raise TimeoutError(f"no {warm.DONE_LINE!r} in the log after {timeout:.0f} s:\n{server.log()}")


def one_way(browser, inspector, sentences: list[str], warm_up: bool) -> dict:
    env = {warm.ENV: "1" if warm_up else "0"}
    with streamlit_server(env_extra=env) as server:
        out: dict = {"home": _open_timed(browser, f"{server.url}/", HOME_TITLE)["done_s"]}
        if warm_up:
            out["warm_up_s"] = wait_for_warm_up(server)
        visits = []
        for sentence in sentences:
            url = f"{server.url}/{inspector.url_path}?s={urllib.parse.quote(sentence)}"
            first = _open_timed(browser, url, inspector.title)["done_s"]
            later = _open_timed(browser, url, inspector.title)["done_s"]
            visits.append({"sentence": sentence, "first_s": first, "later_s": later,
                           "ratio": round(first / later, 2)})
            print(f"  {'warm' if warm_up else 'cold'}: {sentence[:40]}: first {first:.2f} s, later "
                  f"{later:.2f} s", flush=True)
        log = server.log_path.read_text(encoding="utf-8", errors="replace")
        out["missing_context_warnings"] = log.count(MISSING_CONTEXT)
        out["warm_up_lines"] = [line for line in log.splitlines()
                                if line.startswith("Attention Atlas: warm-up")]
        out["rss_mb"] = round(server_rss_mb(server))
        out["visits"] = visits
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", type=int, default=len(PRESETS) - 1,
                        help="how many presets (not the default sentence) to visit on each server")
    args = parser.parse_args()
    os.chdir(ROOT)
    inspector = next(p for p in discover_pages() if "inspector" in p.url_path.lower())
    sentences = [s for s in PRESETS.values() if s != DEFAULT_SENTENCE][: args.presets]
    load_before = os.getloadavg()
    reference = machine_reference()
    with chromium() as browser:
        ways = {"with warm-up": one_way(browser, inspector, sentences, True),
                "without warm-up": one_way(browser, inspector, sentences, False)}
    load_after = os.getloadavg()

    print("\n| preset | way | first visit | later visit | first / later |\n|---|---|---|---|---|")
    for i, sentence in enumerate(sentences):
        for name, way in ways.items():
            v = way["visits"][i]
            print(f"| {sentence[:40]} | {name} | {v['first_s']:.2f} s | {v['later_s']:.2f} s "
                  f"| {v['ratio']:.2f} |")
    print()
    ok = True
    for name, way in ways.items():
        ratios = [v["ratio"] for v in way["visits"]]
        print(f"{name}: first / later, median {statistics.median(ratios):.2f}, max {max(ratios):.2f}; "
              f"the lecturer's Home {way['home']:.2f} s; 'missing ScriptRunContext' in the log: "
              f"{way['missing_context_warnings']}; server RSS after the visits {way['rss_mb']} MB")
        if name == "with warm-up":
            print(f"  warm-up: {way['warm_up_s']:.1f} s; log: {' | '.join(way['warm_up_lines'])}")
            ok = max(ratios) <= TARGET and way["missing_context_warnings"] == 0
    print(f"target: with warm-up, every first visit ≤ {TARGET} × the later one: {'pass' if ok else 'MISS'}")
    print(f"{LINE}: {reference:.3f} s · {os.cpu_count()} CPUs · load average before "
          f"{', '.join(f'{x:.2f}' for x in load_before)}, after {', '.join(f'{x:.2f}' for x in load_after)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
