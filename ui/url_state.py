"""A page's own state in the URL (the query token it follows, the decoder step, its toggles): its widgets
start from the link and write their values back (`url_widget`); malformed values fall back, never raise."""

from __future__ import annotations

import streamlit as st

from ui.state import MAX_URL_SENTENCE, index_of, parse_flag, parse_int, shown

NONE = "all"  # how an option None ("all tokens") is written in the URL
EMPTY = "none"  # an empty multiselect


def encode(value, offset: int = 0) -> str:
    """A widget value as URL text: ints shifted by `offset` (numbered as shown), lists comma-joined."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(shown(value, offset))
    if isinstance(value, (list, tuple)):
        return ",".join(encode(v, offset) for v in value) or EMPTY
    return str(value)


def decode(text, default, options=None, offset: int = 0, low: int | None = None, high: int | None = None):
    """The widget value that URL text stands for, or `default` when it is malformed or not offered.

    The value's type follows `default` (bool, int, str, list); list items and single values must be
    among `options` when given; ints are clamped to [low, high]. Never raises.
    """
    if not isinstance(text, str):
        return default
    text = text.strip()[:MAX_URL_SENTENCE]
    if isinstance(default, list):
        if text == EMPTY:
            return []
        sample = next((o for o in (options or default) if o is not None), 0)
        items = [decode(part, None, options, offset, low, high) if not isinstance(sample, int) else
                 _option_int(part, options, offset, low, high) for part in text.split(",")]
        if any(item is None for item in items):
            return default
        return list(dict.fromkeys(items))  # a multiselect holds each option once
    if isinstance(default, bool):
        return parse_flag(text, default)
    if options is not None:
        if None in options and text == NONE:
            return None
        if any(isinstance(o, int) and not isinstance(o, bool) for o in options):
            value = _option_int(text, options, offset, low, high)
            return default if value is None else value
        return text if text in options else default
    if isinstance(default, int):
        value = parse_int(text, None, -(2**31), 2**31)
        if value is None:
            return default
        return _clamp(index_of(value, offset), low, high)
    return text


def _option_int(text: str, options, offset: int, low, high) -> int | None:
    value = parse_int(text, None, -(2**31), 2**31)
    if value is None:
        return None
    value = _clamp(index_of(value, offset), low, high)
    if options is not None and value not in options:
        return None
    return value


def url_widget(param: str, key: str, default, options=None, offset: int = 0, low: int | None = None,
               high: int | None = None, max_items: int | None = None):
    """Bind the widget `key` (drawn right after this call, with no default of its own) to `param`.

    The first time the page draws the widget in a session, it starts from the URL's value (parsed by
    `decode`; a bad one gives `default`); a value no longer offered (another sentence has fewer
    tokens) goes back to `default`. The widget's value is written to the URL on every run, and left
    out at its default, so a link is short and names only what the reader changed. A list or text keeps
    its first `max_items` (a multiselect's `max_selections`, a text box's `max_chars`). Returns the value.
    """
    state = st.session_state
    numbered = f"{key}::offset"  # the numbering the widget was last drawn with
    was, state[numbered] = state.get(numbered, offset), offset
    if key not in state:
        value = decode(st.query_params.get(param), default, options, offset, low, high)
        state[key] = value[:max_items] if isinstance(value, (list, str)) and max_items else value
    elif not _offered(state[key], options):
        state[key] = default
    elif was != offset:  # numbered anew (0- or 1-based): the browser kept the choice by its old labels and
        state[key] = state[key]  # read them back as other heads; set anew, it is sent with the new labels
    elif isinstance(state[key], int) and _clamp(state[key], low, high) != state[key]:  # e.g. a shorter output
        state[key] = _clamp(state[key], low, high)
    url_value(param, state[key], default, offset)
    return state[key]


def url_value(param: str, value, default, offset: int = 0) -> None:
    """Mirror a page state that is not a widget (e.g. the decoder's step) to the URL."""
    try:
        if value == default:
            if param in st.query_params:
                del st.query_params[param]
        elif st.query_params.get(param) != encode(value, offset):
            st.query_params[param] = encode(value, offset)
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass


def _clamp(value: int, low: int | None, high: int | None) -> int:
    value = value if low is None else max(value, low)
    return value if high is None else min(value, high)


def _offered(value, options) -> bool:
    if options is None:
        return True
    if isinstance(value, list):
        return all(v in options for v in value)
    return value in options
