"""The README's screenshots, regenerated: `make screenshots` (or `python tools/screenshots.py`).

Starts the real app (`streamlit run app.py`, through tests/server.py's helper), opens five views in
headless Debian Chromium at 1440×900 on the default sentence, waits until Streamlit has finished
running the page and its figures are drawn, and saves one viewport each to docs/screenshots/. Each PNG
is re-encoded with Pillow (a 256-colour palette when that is what keeps it under the size limit).

Not a test: tests/test_screenshots.py only checks that this list names pages app.py registers.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from server import (  # noqa: E402  (tests/server.py: the shared server and browser helpers)
    DRAWN,
    EXCEPTION,
    FIGURE,
    chromium,
    streamlit_server,
    wait_idle,
)

OUT = ROOT / "docs" / "screenshots"
VIEWPORT = {"width": 1440, "height": 900}
MAX_BYTES = 400_000
TIMEOUT_MS = 300_000  # the first page loads the model and translates, on a CPU that may be busy
SPINNER = '[data-testid="stSpinner"]'  # st.spinner's "Translating…" and the like


@dataclass(frozen=True)
class Shot:
    """One screenshot: the page's URL path (as app.py's SECTIONS names it) and where to scroll."""

    name: str  # the PNG's file name, without .png
    url_path: str  # "" for the home page
    scroll_to: str = ""  # a header's text to bring to the top of the viewport; "" = the page's top
    figures: int = 1  # how many drawn figures to wait for
    query: str = ""  # URL parameters, e.g. "model=numbers&s=forty-two"


SHOTS = [
    Shot("home", "", scroll_to="The architecture"),  # Figure 1 of the paper, the app's map
    Shot("head_view", "Multi_head_attention", scroll_to="Head view", figures=2),
    Shot("step_by_step", "Attention_step_by_step", scroll_to="Softmax", figures=6),
    Shot("decoder", "Decoder_and_generation", scroll_to="Masked self-attention"),
    # The numbers model: German says "two-and-forty", so the right alignment crosses (README).
    Shot("numbers_crossing", "Decoder_and_generation", scroll_to="Encoder-decoder attention", figures=2,
         query="model=numbers&s=forty-two"),
]


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


def take(browser, url: str, shot: Shot, out: Path) -> Path:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    try:
        tab = context.new_page()
        query = f"?{shot.query}" if shot.query else ""
        tab.goto(f"{url}/{shot.url_path}{query}", wait_until="domcontentloaded")
        _wait_drawn(tab, shot.figures)
        if tab.locator(EXCEPTION).count():
            raise RuntimeError(f"{shot.name}: an exception:\n{tab.locator(EXCEPTION).first.inner_text()}")
        if shot.scroll_to:
            _scroll_to(tab, shot.scroll_to)
        tab.wait_for_timeout(800)  # let Plotly finish its layout transitions after the scroll
        path = out / f"{shot.name}.png"
        path.write_bytes(_optimise(tab.screenshot(full_page=False)))
        return path
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (docs/screenshots)")
    parser.add_argument("--only", nargs="*", help="names of the shots to take (default: all)")
    args = parser.parse_args(argv)
    shots = [s for s in SHOTS if not args.only or s.name in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as server, chromium() as browser:
        for shot in shots:
            start = time.monotonic()
            path = take(browser, server.url, shot, args.out)
            size = path.stat().st_size
            print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
                  f"{size / 1000:.0f} kB, {time.monotonic() - start:.1f} s")
            if size > MAX_BYTES:
                print(f"  warning: over {MAX_BYTES / 1000:.0f} kB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
