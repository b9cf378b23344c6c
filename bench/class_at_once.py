"""A class at once: N students open the same link at the same moment.

Each student is one Streamlit session driven over the websocket exactly as a browser drives it
(`/_stcore/stream`, protobuf `BackMsg`/`ForwardMsg`), with no browser competing for the server's
cores. All N sessions connect first, then ask for their page together; a session is done when the
server says its script run finished (`script_finished`, FINISHED_SUCCESSFULLY): every element of
the page has been sent. Reported per N: p50, p95 and max seconds from the release to a finished
page, for the home page and the step-by-step attention page, with every session on the same link
(one sentence, new to the server) and with a different sentence each (all new to the server).

Run (starts its own `streamlit run app.py` unless --url names a running server, e.g. nginx in front
of several processes: `make serve WORKERS=2`):

    .venv/bin/python bench/class_at_once.py                       # N = 1, 10, 30, 60
    .venv/bin/python bench/class_at_once.py --sizes 1,10 --pages home
    .venv/bin/python bench/class_at_once.py --url http://127.0.0.1:8501 --label "nginx, 2 workers"

A server it starts is started as `make run` starts it, warm-up (ui.warm) included; the class is released
once the server's log says the warm-up is done, as for a class that arrives after the lecturer
(`--during-warm-up`: as soon as every page has been visited once, the warm-up maybe still running).

Prints a table and writes artifacts/bench_class_at_once.json (with the load average before and
after: numbers taken beside a training run are pessimistic; say so). tests/test_class_at_once.py
runs the same harness with a small N to prove it works.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

import websocket  # noqa: E402  (websocket-client, a dev dependency)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

PAGES = {"home": "", "steps": "Attention_step_by_step"}  # name -> URL path (app.py's SECTIONS)
SENTENCE_BOX = "atlas_sentence_box"  # the sidebar's text area (ui.sidebar): shows the session's sentence
FINISHED = {
    ForwardMsg.FINISHED_SUCCESSFULLY: "finished",
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error",
}
# Sentences a class might type: built from parts, so that every round of the benchmark can ask the
# server for sentences it has never translated (a warm cache would measure nothing).
WARM_SENTENCE = "The weather is nice today."  # the warm-up visit's (never one of `sentences`)
_WHO = [
    "The teacher",
    "My sister",
    "The old farmer",
    "Our neighbour",
    "The young doctor",
    "A tired student",
    "The small boy",
    "Her grandfather",
    "The new driver",
    "My best friend",
    "The quiet girl",
    "His uncle",
]
_DID = [
    "opened the window",
    "bought a red bicycle",
    "read the letter",
    "painted the kitchen",
    "lost the keys",
    "found a small dog",
    "cooked a large dinner",
    "visited the museum",
    "sold the old car",
    "wrote a short story",
    "cleaned the garden",
    "missed the train",
]
_WHEN = [
    "yesterday morning",
    "last summer",
    "after school",
    "on Sunday",
    "before the storm",
    "in the evening",
    "at the weekend",
    "two days ago",
]


def sentences(count: int, offset: int = 0) -> list[str]:
    """`count` different everyday sentences, the `offset`-th onwards (deterministic)."""
    out = []
    for i in range(offset, offset + count):
        who, did, when = _WHO[i % len(_WHO)], _DID[(i // len(_WHO)) % len(_DID)], _WHEN[(i // 7) % len(_WHEN)]
        out.append(f"{who} {did} {when}.")
    if len(set(out)) != len(out):
        raise ValueError("sentence parts repeat: make the lists longer")
    return out


@dataclass
class Outcome:
    """What one session saw: when it finished (seconds after the release), its sentence box, errors."""

    index: int
    sentence: str
    page: str
    sent_at: float = 0.0  # seconds after the release when it asked for its page (arrival)
    first_at: float | None = None  # first element received
    finished_at: float | None = None  # script run finished
    status: str = "not finished"
    box: str | None = None  # the sentence box's value as the server drew it
    exceptions: list[str] = field(default_factory=list)
    waiting_notes: int = 0  # "in line" notices the page showed while waiting for the model
    texts: list[str] = field(default_factory=list)  # st.text bodies (the translations)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "finished" and not self.exceptions and self.error is None


def _ws_url(base: str) -> str:
    parts = urllib.parse.urlsplit(base)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urllib.parse.urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + "/_stcore/stream", "", ""))


class Session:
    """One browser tab, as far as the server can tell: a websocket speaking Streamlit's protocol."""

    def __init__(self, base_url: str, index: int, sentence: str, page: str = "home", timeout: float = 900.0):
        self.outcome = Outcome(index, sentence, page)
        self.base_url, self.timeout = base_url, timeout
        self.ws: websocket.WebSocket | None = None

    def connect(self) -> None:
        # A cookie from the page's HTML, as a browser has: a sticky load balancer routes on it.
        cookie = _cookie(self.base_url)
        self.ws = websocket.create_connection(
            _ws_url(self.base_url), subprotocols=["streamlit"], timeout=self.timeout, cookie=cookie or None
        )

    def run(self, release: float) -> Outcome:
        """Ask for the page (query `?s=<sentence>`) and read until its script run has finished."""
        out = self.outcome
        try:
            msg = BackMsg()
            msg.rerun_script.query_string = urllib.parse.urlencode({"s": out.sentence})
            msg.rerun_script.page_name = PAGES[out.page]
            out.sent_at = time.perf_counter() - release
            self.ws.send_binary(msg.SerializeToString())
            deadline = time.perf_counter() + self.timeout
            while time.perf_counter() < deadline:
                forward = ForwardMsg()
                forward.ParseFromString(self.ws.recv())
                kind = forward.WhichOneof("type")
                if kind == "delta":
                    if out.first_at is None:
                        out.first_at = time.perf_counter() - release
                    self._read_delta(forward.delta)
                elif kind == "script_finished" and forward.script_finished in FINISHED:
                    out.finished_at = time.perf_counter() - release
                    out.status = FINISHED[forward.script_finished]
                    break
        except Exception as err:  # noqa: BLE001 - a benchmark reports what broke
            out.error = f"{type(err).__name__}: {err}"[:300]
        finally:
            self.close()
        return out

    def _read_delta(self, delta) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.outcome.exceptions.append(f"{element.exception.type}: {element.exception.message}"[:300])
        elif kind == "text_area" and element.text_area.id.endswith(SENTENCE_BOX):
            area = element.text_area
            self.outcome.box = area.value or area.default
        elif kind == "text":
            self.outcome.texts.append(element.text.body)
        elif kind == "markdown" and "in line for the model" in element.markdown.body.lower():
            self.outcome.waiting_notes += 1

    def close(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            except Exception:  # noqa: BLE001, S110 - closing a broken socket
                pass
            self.ws = None


def _cookie(base_url: str) -> str:
    """The cookies the app's HTML sets (a sticky load balancer's route), as a browser would send them."""
    import urllib.request

    try:
        with urllib.request.urlopen(base_url + "/", timeout=30) as response:
            cookies = response.headers.get_all("Set-Cookie") or []
    except OSError:
        return ""
    return "; ".join(c.split(";", 1)[0] for c in cookies)


def burst(
    base_url: str, page: str, sentences_: list[str], gap: float = 0.0, timeout: float = 900.0
) -> list[Outcome]:
    """N sessions (one per sentence) connect, then ask for `page` together (or `gap` seconds apart, in
    index order: the arrival order); returns their outcomes in index order."""
    sessions = [Session(base_url, i, s, page, timeout) for i, s in enumerate(sentences_)]
    for s in sessions:
        s.connect()
    ready = threading.Barrier(len(sessions) + 1)
    release = [0.0]

    def go(s: Session) -> None:
        ready.wait()
        delay = release[0] + gap * s.outcome.index - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        s.run(release[0])

    threads = [threading.Thread(target=go, args=(s,), daemon=True) for s in sessions]
    for t in threads:
        t.start()
    release[0] = time.perf_counter()
    ready.wait()
    for t in threads:
        t.join(timeout + 60)
    return [s.outcome for s in sessions]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), nearest rank: p95 of 10 values is the largest but none."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def summary(outcomes: list[Outcome]) -> dict:
    done = [o.finished_at for o in outcomes if o.ok]
    out = {
        "sessions": len(outcomes),
        "ok": len(done),
        "errors": sorted({o.error or "; ".join(o.exceptions) or o.status for o in outcomes if not o.ok})[:5],
    }
    if done:
        out.update(
            p50_s=round(statistics.median(done), 2),
            p95_s=round(percentile(done, 95), 2),
            max_s=round(max(done), 2),
            min_s=round(min(done), 2),
        )
    return out


def check(outcomes: list[Outcome]) -> list[str]:
    """What went wrong, in words: a session that did not finish, raised, or shows another sentence."""
    problems = []
    for o in outcomes:
        if not o.ok:
            problems.append(f"session {o.index}: {o.error or o.exceptions or o.status}")
        elif o.box != o.sentence:
            problems.append(f"session {o.index}: its sentence box shows {o.box!r}, not {o.sentence!r}")
    return problems


def measure(
    base_url: str, sizes: list[int], pages: list[str], modes: list[str], timeout: float
) -> list[dict]:
    """Every (page, mode, N) round, each on sentences the server has not seen in this run."""
    rows, offset = [], 0
    for page in pages:
        for mode in modes:
            for n in sizes:
                if mode == "same":
                    chosen = sentences(1, offset) * n
                    offset += 1
                else:
                    chosen = sentences(n, offset)
                    offset += n
                outcomes = burst(base_url, page, chosen, timeout=timeout)
                row = {
                    "page": page,
                    "mode": mode,
                    "n": n,
                    **summary(outcomes),
                    "problems": check(outcomes)[:5],
                    "load_after": [round(x, 2) for x in os.getloadavg()],
                }
                rows.append(row)
                print(_line(row), flush=True)
    return rows


def _line(row: dict) -> str:
    times = (
        f"p50 {row['p50_s']:6.2f} s  p95 {row['p95_s']:6.2f} s  max {row['max_s']:6.2f} s"
        if "p50_s" in row
        else "no session finished"
    )
    bad = f"  PROBLEMS: {row['problems']}" if row["problems"] else ""
    return f"{row['page']:6} {row['mode']:9} N={row['n']:3}  {times}  ({row['ok']}/{row['sessions']} ok){bad}"


def warm_up(base_url: str, timeout: float) -> None:
    """One visit to each page first: the model is loaded and PyTorch imported, as after a first student."""
    for page in PAGES:
        for outcome in burst(base_url, page, [WARM_SENTENCE], timeout=timeout):
            if not outcome.ok:
                raise RuntimeError(f"warm-up of {page} failed: {outcome.error or outcome.exceptions}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start `streamlit run app.py`)")
    parser.add_argument("--sizes", default="1,10,30,60", help="sessions at once, comma-separated")
    parser.add_argument("--pages", default="home,steps", help=f"of {', '.join(PAGES)}")
    parser.add_argument("--modes", default="same,different", help="same link, or a different sentence each")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one session may take")
    parser.add_argument("--label", default="", help="what is measured (e.g. 'one process'), kept in the JSON")
    parser.add_argument("--out", default=str(ROOT / "artifacts" / "bench_class_at_once.json"))
    parser.add_argument("--during-warm-up", action="store_true",
                        help="release the class while the server's own warm-up (ui.warm) may still run, "
                        "not after its log says it is done (a server this run starts)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that a server this run started is stopped
    sizes = [int(n) for n in args.sizes.split(",")]
    pages, modes = args.pages.split(","), args.modes.split(",")
    result: dict = {
        "label": args.label,
        "url": args.url or "own server",
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    if args.url:
        warm_up(args.url.rstrip("/"), args.timeout)
        result["rows"] = measure(args.url.rstrip("/"), sizes, pages, modes, args.timeout)
    else:
        from real_server import streamlit_server

        with streamlit_server() as server:
            warm_up(server.url, args.timeout)
            if not args.during_warm_up:  # a class arriving after the lecturer: the warm-up is over
                from warm import wait_for_warm_up  # bench/warm.py

                result["warm_up_s"] = wait_for_warm_up(server, args.timeout)
            result["during_warm_up"] = args.during_warm_up
            result["rows"] = measure(server.url, sizes, pages, modes, args.timeout)
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average before / after: {result['load_before']} / {result['load_after']}")
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0 if all(not r["problems"] for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
