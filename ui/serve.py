"""Start the app: `python -m ui.serve [streamlit options]` is `streamlit run Home.py [options]`, plus a
head start: while the server starts and the first browser connects, a background thread imports
PyTorch and loads the shipped model into the shared cache, and runs the default sentence once.

Without it, the first visitor waits for all of that after connecting (cold start ~7 s on 2 cores
instead of ~4 s; see README, Benchmarks). Anything that goes wrong while warming up is left for the
page to report (a missing weights file gets the usual clear message there), so this never stops the
server from starting.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "Home.py"
log = logging.getLogger("atlas.serve")


def warm() -> None:
    """Import the heavy modules, load the shared model, and trace the default sentence once."""
    try:
        from ui import model as model_io
        from ui.state import DEFAULT_SENTENCE

        lm = model_io.loaded_or_none()
        if lm is not None:
            model_io.trace(lm.model_id, DEFAULT_SENTENCE)
    except Exception as err:  # noqa: BLE001 - the page itself reports real problems to the user
        log.warning("warm-up skipped: %s: %s", type(err).__name__, err)


def main(argv: list[str] | None = None) -> int:
    # Streamlit (and with it Plotly and pandas) is imported before the warm-up thread starts: Plotly
    # looks pandas up in sys.modules, and must never find it half-imported by another thread.
    import pandas  # noqa: F401
    from streamlit.web import cli

    threading.Thread(target=warm, name="atlas-warm-up", daemon=True).start()
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
