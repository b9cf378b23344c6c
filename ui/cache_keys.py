"""One cache entry for a call however its arguments are spelt (Streamlit keys a cache by the arguments
as written)."""

from __future__ import annotations

import functools
import inspect


def one_spelling(fn):
    """Call `fn` with its arguments spelt one way: all positional, defaults filled in.

    Streamlit keys a cache by the arguments as written: `trace(m, s, ids)` and `trace(m, s, ids, keep=())`
    were two entries, and two computations, of one trace, and work done ahead of time (`ui.warm`) was
    found only when spelt as the page spells it. The turns' keys (`ui.turns.queued`) are spelt so too.
    """
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return fn(*bound.args, **bound.kwargs)

    if hasattr(fn, "clear"):  # a Streamlit cached function: its `clear()` stays reachable
        call.clear = fn.clear
    return call
