"""The README's screenshots, regenerated: `make screenshots` (or `python tools/screenshots.py`).

Starts the real app (`streamlit run app.py`, through tools/real_server.py's helper), opens five views in
headless Debian Chromium at 1440×900 on the default sentence, waits until Streamlit has finished
running the page and its figures are drawn, and saves one viewport each to docs/screenshots/. Each PNG
is re-encoded with Pillow (a 256-colour palette when that is what keeps it under the size limit).

For a review of every page, `--all-pages` takes each page of app.py's navigation (and the
numbers model's decoder page) whole, top to bottom, plus one shot per further tab of a page with tabs:

    python tools/screenshots.py --all-pages --size 1440x900 --out docs/screenshots/review
    python tools/screenshots.py --all-pages --size 1024x768 --presenter --out docs/screenshots/review

Not a test: tests/test_screenshots.py only checks that this list names pages app.py registers.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from real_server import (  # noqa: E402  (tools/real_server.py: the app's server, a browser)
    DRAWN,
    EXCEPTION,
    FIGURE,
    chromium,
    discover_pages,
    streamlit_server,
    wait_idle,
)

OUT = ROOT / "docs" / "screenshots"
VIEWPORT = {"width": 1440, "height": 900}
MAX_BYTES = 400_000
TIMEOUT_MS = 300_000  # the first page loads the model and translates, on a CPU that may be busy
SPINNER = '[data-testid="stSpinner"]'  # st.spinner's "Translating…" and the like
TAB = '[role="tab"]'  # a tab of st.tabs
CHART = '[data-testid="stPlotlyChart"], [data-testid="stVegaLiteChart"]'  # a figure's place on the page


@dataclass(frozen=True)
class Shot:
    """One screenshot: the page's URL path (as app.py's SECTIONS names it) and where to scroll."""

    name: str  # the PNG's file name, without .png
    url_path: str  # "" for the home page
    scroll_to: str = ""  # a header's text to bring to the top of the viewport; "" = the page's top
    figures: int = 1  # how many drawn figures to wait for
    query: str = ""  # URL parameters, e.g. "model=numbers&s=forty-two"
    whole: bool = False  # the whole page, top to bottom, and each further tab (`--all-pages`)


SHOTS = [
    Shot("home", "", scroll_to="The architecture"),  # Figure 1 of the paper, the app's map
    Shot("head_view", "Multi_head_attention", scroll_to="Head view", figures=2),
    Shot("step_by_step", "Attention_step_by_step", scroll_to="Softmax", figures=6),
    Shot("decoder", "Decoder_and_generation", scroll_to="Masked self-attention"),
    # The numbers model: German says "two-and-forty", so the right alignment crosses (README).
    Shot(
        "numbers_crossing",
        "Decoder_and_generation",
        scroll_to="Encoder-decoder attention",
        figures=2,
        query="model=numbers&s=forty-two",
    ),
]


def every_page() -> list[Shot]:
    """One whole-page shot of every page app.py's navigation lists, in its order, and the numbers
    model's decoder page (the other model's figures). A page waits for its own figures to be drawn."""
    shots = [Shot(page.url_path or "home", page.url_path, figures=0, whole=True) for page in discover_pages()]
    shots.append(
        Shot(
            "Decoder_and_generation_numbers",
            "Decoder_and_generation",
            figures=0,
            whole=True,
            query="model=numbers&s=forty-two",
        )
    )
    return shots


def _wait_drawn(tab, count: int) -> None:
    """Streamlit idle, no spinner, and at least `count` figures drawn with a real size."""
    wait_idle(tab, TIMEOUT_MS)
    tab.wait_for_selector(FIGURE, state="visible", timeout=TIMEOUT_MS)
    tab.wait_for_function(
        """([selector, count]) => [...document.querySelectorAll(selector)]
              .filter(e => { const r = e.getBoundingClientRect(); return r.width > 100 && r.height > 100; })
              .length >= count""",
        arg=[DRAWN, count],
        timeout=TIMEOUT_MS,
    )
    tab.wait_for_selector(SPINNER, state="detached", timeout=TIMEOUT_MS)
    wait_idle(tab, TIMEOUT_MS)


def _scroll_to(tab, text: str) -> None:
    """Bring the header containing `text` to the top (Streamlit scrolls inside its main block), then
    wait for a drawn figure inside the viewport."""
    header = tab.locator("h1, h2, h3").filter(has_text=text).first
    header.wait_for(state="visible", timeout=TIMEOUT_MS)
    header.evaluate("e => e.scrollIntoView({block: 'start'})")
    tab.wait_for_function(
        """selector => [...document.querySelectorAll(selector)].some(e => {
              const r = e.getBoundingClientRect();
              return r.width > 100 && r.height > 100 && r.top < innerHeight && r.bottom > 0; })""",
        arg=DRAWN,
        timeout=TIMEOUT_MS,
    )


def _optimise(png: bytes) -> bytes:
    """Re-encode losslessly; fall back to a 256-colour palette when that is still over MAX_BYTES."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    if out.tell() > MAX_BYTES:
        out = io.BytesIO()
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            out, format="PNG", optimize=True
        )
    return out.getvalue()


def _wait_all_drawn(tab) -> None:
    """Streamlit idle, no spinner, and every figure on the page drawn (or 60 s gone by: a figure that
    never draws shows as an empty box in the shot, which is what a review should see)."""
    wait_idle(tab, TIMEOUT_MS)
    tab.wait_for_selector(SPINNER, state="detached", timeout=TIMEOUT_MS)
    wait_idle(tab, TIMEOUT_MS)
    try:
        tab.wait_for_function(
            """selector => [...document.querySelectorAll(selector)]
                  .filter(chart => chart.offsetParent !== null)  // not in a hidden tab
                  .every(chart => chart.querySelector('.main-svg, svg.marks'))""",
            arg=CHART,
            timeout=60_000,
        )
    except Exception:  # noqa: BLE001 - see the docstring
        print("  warning: not every figure was drawn after 60 s", file=sys.stderr)


def _whole(tab) -> bytes:
    """The whole page: Streamlit scrolls inside its main block, so the viewport grows to its height
    for the shot (the width, which decides the layout, stays) and goes back after it."""
    size = tab.viewport_size
    height = tab.evaluate(
        "() => Math.max(...['[data-testid=\"stMain\"]', '[data-testid=\"stSidebarContent\"]']"
        ".map(s => document.querySelector(s)?.scrollHeight || 0), document.body.scrollHeight)"
    )
    tab.set_viewport_size({"width": size["width"], "height": int(min(max(height, size["height"]), 16_000))})
    tab.wait_for_timeout(1_000)  # Plotly re-lays out its figures to the new size
    png = tab.screenshot(full_page=True)
    tab.set_viewport_size(size)
    return png


def _named(shot: Shot, viewport: dict, presenter: bool) -> str:
    if not shot.whole:
        return shot.name
    return f"{shot.name}_{viewport['width']}x{viewport['height']}" + ("_presenter" if presenter else "")


def take(
    browser,
    url: str,
    shot: Shot,
    out: Path,
    viewport: dict | None = None,
    presenter: bool = False,
    query: str = "",
) -> list[Path]:
    """Take one shot (a whole-page shot: one PNG per tab of the page); returns the files written.
    `query`: more URL parameters (e.g. "stack=decoder&kind=cross")."""
    viewport = viewport or VIEWPORT
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    try:
        tab = context.new_page()
        params = [q for q in (shot.query, query, "present=1" if presenter else "") if q]
        query = f"?{'&'.join(params)}" if params else ""
        tab.goto(f"{url}/{shot.url_path}{query}", wait_until="domcontentloaded")
        if shot.whole:
            _wait_all_drawn(tab)
        else:
            _wait_drawn(tab, shot.figures)
        if tab.locator(EXCEPTION).count():
            raise RuntimeError(f"{shot.name}: an exception:\n{tab.locator(EXCEPTION).first.inner_text()}")
        name = _named(shot, viewport, presenter)
        if not shot.whole:
            if shot.scroll_to:
                _scroll_to(tab, shot.scroll_to)
            tab.wait_for_timeout(800)  # let Plotly finish its layout transitions after the scroll
            path = out / f"{name}.png"
            path.write_bytes(_optimise(tab.screenshot(full_page=False)))
            return [path]
        paths = [out / f"{name}.png"]
        paths[0].write_bytes(_optimise(_whole(tab)))
        for index in range(1, tab.locator(TAB).count()):
            tab.locator(TAB).nth(index).click()
            tab.wait_for_timeout(500)
            _wait_all_drawn(tab)
            paths.append(out / f"{name}_tab{index + 1}.png")
            paths[-1].write_bytes(_optimise(_whole(tab)))
        return paths
    finally:
        context.close()


def _size(text: str) -> dict:
    width, _, height = text.lower().partition("x")
    return {"width": int(width), "height": int(height)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (docs/screenshots)")
    parser.add_argument("--only", nargs="*", help="names of the shots to take (default: all)")
    parser.add_argument(
        "--all-pages",
        action="store_true",
        help="every page whole (and each tab) instead of the README's five views",
    )
    parser.add_argument(
        "--size",
        type=_size,
        default=VIEWPORT,
        metavar="WxH",
        help="the browser window, e.g. 1024x768 (default 1440x900)",
    )
    parser.add_argument("--presenter", action="store_true", help="presenter mode (?present=1)")
    parser.add_argument("--query", default="", help="more URL parameters for every page, e.g. kind=cross")
    parser.add_argument("--suffix", default="", help="added to every file name, e.g. _cross")
    args = parser.parse_args(argv)
    shots = [s for s in (every_page() if args.all_pages else SHOTS) if not args.only or s.name in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as server, chromium() as browser:
        for shot in shots:
            start = time.monotonic()
            shot = replace(shot, name=shot.name + args.suffix)
            for path in take(browser, server.url, shot, args.out, args.size, args.presenter, args.query):
                size = path.stat().st_size
                print(
                    f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
                    f"{size / 1000:.0f} kB, {time.monotonic() - start:.1f} s"
                )
                if size > MAX_BYTES and not shot.whole:
                    print(f"  warning: over {MAX_BYTES / 1000:.0f} kB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
