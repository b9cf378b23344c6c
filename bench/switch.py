"""A head change, a layer change and a hovered token, in headless Chromium, beside the stack's floor
measured in the same run.

- floor: a bare Streamlit page with Layer and Head sliders and the step-by-step page's six figures of
  the same sizes, drawing precomputed arrays (bench/floor_page.py): a key press on its Head slider to the
  page idle again (the rerun and the redraw every server-side switch costs);
- step by step, multi-head, the decoder and the head inspector on the app, started as `make run` starts
  it: a key press on the Head or Layer slider to every figure that follows the slider drawn anew in the
  browser (`ui/live.js`, on the page's own clock), and to the page idle after the rerun that keeps the
  URL in step; a pointer moved onto a cell of the softmax (the heads grid, the masked self-attention) to
  its row and column lit in every figure; Enter on another query in step by step's query box (its
  frame, its journey and the terms of its dot products) or multi-head's Query token box (the head view)
  to the figures drawn anew, and a Head key press on step by step with a query followed;
- the machine reference (bench/reference.py).

Run: `.venv/bin/python bench/switch.py [--runs N] [--models translation,numbers]` (each model's app measures
on the same server, after one floor); results also in artifacts/bench_switch.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from browser_timing import IDLE_MS_JS, QUIET_MS, SETTLED_JS, WATCH_JS  # noqa: E402
from real_server import ARTIFACTS, DRAWN, chromium, streamlit_server, wait_idle  # noqa: E402
from reference import LINE, machine_reference  # noqa: E402

from ui.frame import DEFAULT_MODEL  # noqa: E402

LIVE_JS = "() => window.atlasLiveDrawn ? window.atlasLiveDrawn.sel + '@' + window.atlasLiveDrawn.drawn : ''"
HOVER_JS = "() => window.atlasLiveHover ? window.atlasLiveHover.drawn : 0"
MOVE_JS = (
    "() => document.addEventListener('mousemove', () => { window.atlasMove = performance.now(); }, true)"
)


def thumb(tab, label: str):
    return tab.locator(f'[data-testid="stSlider"]:has-text("{label}") input[type="range"]').first


def idle_after_key(tab, slider, key: str) -> float:
    """ms from a key press on `slider` to the page idle again (the rerun finished, nothing changed for
    QUIET_MS), on the page's clock."""
    slider.focus()
    tab.evaluate(WATCH_JS)
    slider.press(key)
    tab.wait_for_function("() => window.__atlasWatch.last !== null", polling="raf", timeout=120_000)
    tab.wait_for_function(SETTLED_JS, arg=QUIET_MS, polling=50, timeout=120_000)
    return tab.evaluate(IDLE_MS_JS)


def live_after_key(tab, slider, key: str) -> tuple[float, float, float, dict]:
    """ms from a key press to the figures in view drawn anew in the browser, to all of them (those out
    of view follow, one a frame), and to the page idle after the rerun; and figure -> ms its own change
    took."""
    before = tab.evaluate(LIVE_JS)
    slider.focus()
    tab.evaluate(WATCH_JS)
    slider.press(key)
    tab.wait_for_function(
        f"(before) => ({LIVE_JS})() !== before && ({LIVE_JS})().split('@')[0] !== before.split('@')[0]",
        arg=before,
        polling="raf",
        timeout=120_000,
    )
    visible, drawn, took = tab.evaluate(
        "() => [window.atlasLiveDrawn.visible - window.atlasLiveKey, "
        "window.atlasLiveDrawn.drawn - window.atlasLiveKey, window.atlasLiveDrawn.took]"
    )
    tab.wait_for_function(SETTLED_JS, arg=QUIET_MS, polling=50, timeout=120_000)
    return visible, drawn, tab.evaluate(IDLE_MS_JS), took


ACTIVE_JS = """(selector) => { const box = document.querySelector(selector);
  const option = document.getElementById(box.getAttribute('aria-activedescendant') || '');
  return option ? parseInt(option.dataset.key, 10) : null; }"""
QUERY_BOXES = {  # page -> its query box (a select box's text input)
    "Attention_step_by_step": "[class*='st-key-steps_query_'] input[role=combobox]",
    "Multi_head_attention": ".st-key-mh_token input[role=combobox]",
}


def live_after_choice(tab, selector: str, option: int) -> tuple[float, float, float, dict]:
    """As `live_after_key`, for Enter on the option `option` (its index: 0 is none or all, 1 the first
    query) of the query box `selector`, reached with the arrow keys."""
    box = tab.locator(selector).first
    box.focus()
    box.press("ArrowDown")  # opens the list
    for _ in range(60):
        active = tab.evaluate(ACTIVE_JS, selector)
        if active == option:
            break
        box.press("ArrowDown" if active is None or active < option else "ArrowUp")
    tab.evaluate(WATCH_JS)
    box.press("Enter")
    tab.wait_for_function(
        "(q) => window.atlasLiveDrawn && window.atlasLiveDrawn.query === q",
        arg=option - 1,
        polling="raf",
        timeout=120_000,
    )
    visible, drawn, took = tab.evaluate(
        "() => [window.atlasLiveDrawn.visible - window.atlasLiveKey, "
        "window.atlasLiveDrawn.drawn - window.atlasLiveKey, window.atlasLiveDrawn.took]"
    )
    tab.wait_for_function(SETTLED_JS, arg=QUIET_MS, polling=50, timeout=120_000)
    return visible, drawn, tab.evaluate(IDLE_MS_JS), took


def live_summary(times: list[tuple]) -> dict:
    return {
        "drawn": summary([t[0] for t in times]),
        "all_drawn": summary([t[1] for t in times]),
        "idle": summary([t[2] for t in times]),
        "per_figure_ms": {
            fig: round(statistics.median(t[3][fig] for t in times if fig in t[3]), 1)
            for fig in sorted({fig for t in times for fig in t[3]})
        },
    }


def hover_times(tab, figure_key: str, runs: int) -> list[float]:
    """ms from the pointer moving onto a cell of the figure `figure_key` to the lit row and column drawn
    in every figure in view; a different cell each time (along the diagonal)."""
    tab.evaluate(MOVE_JS)
    area = tab.locator(f".st-key-{figure_key} .js-plotly-plot .nsewdrag").first
    area.scroll_into_view_if_needed()
    box = area.bounding_box()
    # rows and columns of the matrix, and of the cells one may hover (a heads grid: its first panel's)
    n_rows, n_cols, n = tab.evaluate(f"""() => {{
      const gd = document.querySelector('.st-key-{figure_key} .js-plotly-plot'), z = gd._fullData[0].z;
      const panels = gd.layout.meta && gd.layout.meta.panels;
      return [z.length, z[0].length, Math.min(...(panels ? panels.size : [z.length, z[0].length]))]; }}""")
    times = []
    for run in range(runs):
        i = 1 + run % max(1, n - 2)
        before = tab.evaluate(HOVER_JS)
        x, y = (i + 0.5) * box["width"] / n_cols, (i + 0.5) * box["height"] / n_rows
        tab.mouse.move(box["x"] + x, box["y"] + y)
        tab.wait_for_function(
            f"(before) => ({HOVER_JS})() > before", arg=before, polling="raf", timeout=30_000
        )
        times.append(tab.evaluate("() => window.atlasLiveHover.visible - window.atlasMove"))
        tab.mouse.move(box["x"] - 40, box["y"] - 40)  # off the figure: the light goes out
        tab.wait_for_timeout(150)
    return times


def summary(values: list[float]) -> dict:
    return {
        "runs": len(values),
        "median_ms": round(statistics.median(values), 1),
        "max_ms": round(max(values), 1),
    }


def bench_floor(browser, runs: int) -> dict:
    with streamlit_server(script=ROOT / "bench" / "floor_page.py") as server:
        tab = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        tab.goto(server.url, wait_until="domcontentloaded")
        wait_idle(tab, 120_000)
        tab.wait_for_selector(DRAWN, state="visible", timeout=120_000)
        slider = thumb(tab, "Head")
        return summary([idle_after_key(tab, slider, key) for key in ["ArrowRight", "ArrowLeft"] * runs])


def bench_app(browser, runs: int, model: str = DEFAULT_MODEL) -> dict:
    out = {}
    linked = "" if model == DEFAULT_MODEL else f"&model={model}"
    with streamlit_server() as server:
        tab = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        for page, sliders, hover in (
            ("Attention_step_by_step", ("Head", "Layer"), "steps_pattern"),
            ("Multi_head_attention", ("Layer",), "mh_grid"),
            ("Decoder_and_generation", ("Head", "Layer"), "dec_self"),
            ("Head_inspector", ("Head", "Layer"), None),  # its map lights no tokens
        ):
            # a middle layer and head (1-based in the URL): each key press moves the slider
            tab.goto(f"{server.url}/{page}?layer=3&head=3{linked}", wait_until="domcontentloaded")
            wait_idle(tab, 600_000)
            tab.wait_for_selector(DRAWN, state="visible", timeout=600_000)
            tab.wait_for_selector("[class*='st-key-'][class*='_live']", state="attached", timeout=120_000)
            tab.wait_for_timeout(1000)
            for label in sliders:
                times = [
                    live_after_key(tab, thumb(tab, label), key) for key in ["ArrowRight", "ArrowLeft"] * runs
                ]
                out[f"{page} {label.lower()}"] = live_summary(times)
            if hover:
                out[f"{page} hover"] = {"drawn": summary(hover_times(tab, hover, 2 * runs))}
        # another followed query (step by step) or query token (multi-head): the third and the fourth
        # token, in turn
        for page, selector in QUERY_BOXES.items():
            tab.goto(f"{server.url}/{page}?layer=3&head=3&q=2&tok=2{linked}", wait_until="domcontentloaded")
            wait_idle(tab, 600_000)
            tab.wait_for_selector("[class*='st-key-'][class*='_live']", state="attached", timeout=120_000)
            tab.wait_for_timeout(1000)
            times = [live_after_choice(tab, selector, option) for option in [4, 3] * runs]
            out[f"{page} query"] = live_summary(times)
            if page == "Attention_step_by_step":  # a head step with a query followed: its journey and
                # the terms of its dot products (the neuron view) change too, computed in the browser
                head = thumb(tab, "Head")
                times = [live_after_key(tab, head, key) for key in ["ArrowRight", "ArrowLeft"] * runs]
                out[f"{page} head, a query followed"] = live_summary(times)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="key presses each way per measure (default 5)")
    parser.add_argument(
        "--models", default=DEFAULT_MODEL, help="models to measure, by link name (default: the app's)"
    )
    args = parser.parse_args()
    reference = machine_reference()
    models = args.models.split(",")
    with chromium() as browser:
        floor = bench_floor(browser, args.runs)
        app = {}
        for model in models:
            named = f" [{model}]" if len(models) > 1 and model != DEFAULT_MODEL else ""
            app |= {f"{k}{named}": v for k, v in bench_app(browser, args.runs, model).items()}
    print(f"{LINE}: {reference:.2f} s")
    print(f"floor: bare page, six figures, Head key press -> page idle: median {floor['median_ms']} ms")
    for name, result in app.items():
        drawn = result["drawn"]["median_ms"]
        idle = ""
        if "idle" in result:
            idle = (
                f", every figure {result['all_drawn']['median_ms']} ms, page idle after the rerun "
                f"{result['idle']['median_ms']} ms"
            )
        print(
            f"{name}: drawn in the browser median {drawn} ms (max {result['drawn']['max_ms']}), "
            f"{drawn / floor['median_ms']:.2f} × the floor{idle}"
        )
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bench_switch.json").write_text(
        json.dumps({"machine_reference_s": round(reference, 3), "floor": floor, "app": app}, indent=2)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
