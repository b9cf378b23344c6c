"""The app on a Marian checkpoint of opus-mt-en-de's full size: how fast and how big.

A random model of that size (d_model 512, 6 + 6 layers, 8 heads, d_ff 2048, 58,101 pieces; written by
`tools/random_marian.py`, or `--model DIR` for a real imported one) is opened through ATLAS_MODEL_DIRS
and the model picker's link parameter, as a user's imported model is. Measured in one process with
Streamlit's AppTest (server-side time, no browser), with the app's real decoding limits: a random model
never says </s>, so every translation runs to the app's cap of 2 × source + 10 tokens, the worst case.

- head change: the step-by-step page rerun after its head slider moves (median of 14; --repeats);
- new sentence: the step-by-step page (trace, greedy and beam translation, figures) and the home page
  (greedy and beam) with a sentence they have not seen (medians of 4 and 3);
- memory: this process's RSS before the first page and after every page has run on the model.

Run: `.venv/bin/python bench/marian.py` (prints a table; saves artifacts/bench_marian.json).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
# Sentences no page has seen; a random model translates every one to the same length cap.
SENTENCES = [f"Visitor {i} asks when the museum in town number {i} opens tomorrow morning." for i in range(7)]


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 2**20


def page_test(script: str, name: str, sentence: str | None = None):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / script), default_timeout=900)
    at.query_params["model"] = name
    if sentence is not None:
        at.query_params["s"] = sentence
    return at


def timed(at) -> float:
    start = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - start
    if at.exception or at.error:
        problems = [e.message for e in at.exception] + [e.value for e in at.error]
        raise RuntimeError(f"the page failed: {problems}")
    return elapsed


def summary(times: list[float]) -> dict:
    return {"runs": len(times), "median_ms": round(1000 * statistics.median(times), 1),
            "max_ms": round(1000 * max(times), 1)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="an imported model folder (default: a random one)")
    parser.add_argument("--repeats", type=int, default=2, help="passes over the heads (head-change time)")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory()
    folder = args.model
    if folder is None:
        spec = importlib.util.spec_from_file_location("random_marian", ROOT / "tools" / "random_marian.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        folder = module.build(Path(tmp.name) / "opus-mt-random")
    os.environ["ATLAS_MODEL_DIRS"] = str(folder.resolve())
    from real_server import discover_pages

    from ui.frame import MODELS

    name = next(n for n, (_, d) in MODELS.items() if d.resolve() == folder.resolve())
    pages = discover_pages()
    step = next(p.script for p in pages if "step" in p.url_path.lower())
    results: dict = {"model": str(folder), "load_1min": os.getloadavg()[0]}
    results["rss_before_mb"] = round(rss_mb(), 1)

    at = page_test(step, name)
    results["first_open_s"] = round(timed(at), 2)  # loads the model, traces, translates
    slider = at.slider(key="atlas_head")
    heads = [h for h in range(int(slider.min), int(slider.max) + 1) if h != slider.value] * args.repeats
    times = []
    for head in heads:
        at.slider(key="atlas_head").set_value(head)
        times.append(timed(at))
    results["head_change"] = summary(times)
    for key, script, sentences in (("new_sentence_step", step, SENTENCES[:4]),
                                   ("new_sentence_home", "app.py", SENTENCES[4:])):  # fmt: skip
        at = page_test(script, name)
        timed(at)
        times = []
        for sentence in sentences:
            at.sidebar.text_area(key="atlas_sentence_box").set_value(sentence)
            times.append(timed(at))
        results[key] = summary(times)
    results["page_failures"] = {}
    for page in pages:
        try:
            timed(page_test(page.script, name))
        except RuntimeError as err:  # report, and go on measuring the others
            results["page_failures"][page.script] = str(err)
    results["rss_after_all_pages_mb"] = round(rss_mb(), 1)
    results["load_1min_after"] = os.getloadavg()[0]

    head = results["head_change"]
    rows = [
        (f"rerun after a head change (median of {head['runs']})", "≤ 100 ms",
         f"{head['median_ms']} ms (max {head['max_ms']})"),
        ("new sentence, step-by-step page: trace + greedy + beam + figures (median of 4)", "≤ 500 ms",
         f"{results['new_sentence_step']['median_ms']} ms"),
        ("new sentence, home page: greedy + beam (median of 3)", "≤ 500 ms",
         f"{results['new_sentence_home']['median_ms']} ms"),
        ("process RSS, before / after every page on the model", "≤ 600 MB",
         f"{results['rss_before_mb']} / {results['rss_after_all_pages_mb']} MB"),
    ]  # fmt: skip
    for row in rows:
        print(" | ".join(row))
    for script, problem in results["page_failures"].items():
        print(f"{script} failed: {problem}")
    print(f"load (1 min) before / after: {results['load_1min']:.2f} / {results['load_1min_after']:.2f}")
    out = ROOT / "artifacts" / "bench_marian.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
