"""Hostile input on every page (AppTest): every case ends in a normal render or a clear message.

Inputs of our own: empty and blank, 10,000 characters, one enormous word, emoji, CJK, right-to-left
scripts, zero-width and combining characters, control characters, HTML and <script>, Markdown and
LaTeX injection, SentencePiece's special pieces, long punctuation runs, numbers only; and bad URL
parameters (out of range, negative, non-numeric, huge, unknown values).

The full set runs on the home page and on the page that shows the tokens; every other page gets a
representative subset (the pages share the same cleaning and the same cached translations, so the
subset covers each page's own code without multiplying the CPU time). Pages are discovered, not
listed: a new page is covered the day it lands.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pytest
from charts import page_charts
from server import ROOT, discover_pages
from streamlit.testing.v1 import AppTest

from transformer.inputs import MAX_CHARS

pytestmark = pytest.mark.timeout(900)

PAGES = discover_pages()
RUN_TIMEOUT = 600  # seconds for one AppTest run: the shared 2-core CPU may be busy
CONFIG = json.loads((ROOT / "pretrained" / "config.json").read_text(encoding="utf-8"))
N_LAYERS, N_HEADS = CONFIG["n_layers"], CONFIG["n_heads"]


@dataclass(frozen=True)
class Text:
    """A typed sentence and what the page must say about it besides rendering."""

    id: str
    text: str
    expect: tuple[str, ...] = ()  # "empty": the please-type message; "notice": a warning
    subset: bool = False  # also run on every page


LONG = ("The quick brown fox jumps over the lazy dog near the river bank. " * 160)[:10_000]
TEXTS = [
    Text("empty", "", ("empty",), subset=True),
    Text("spaces", "     ", ("empty",)),
    Text("whitespace_mix", "\t\n  \r\n \u00a0\u2003 ", ("empty",)),
    Text("controls_only", "\x00\x01\x02\x1b\x7f", ("empty", "notice")),
    Text("10k_chars", LONG, ("notice",), subset=True),
    Text("enormous_word", "Donaudampfschifffahrtsgesellschaft" * 300, ("notice",), subset=True),
    Text("emoji_mixed", "I ❤️ Python 🐍 and robots 🤖🤖🤖!", subset=True),
    Text("emoji_only_zwj", "😀😃😄🤣😂 👨‍👩‍👧‍👦 🏳️‍🌈 👩🏽‍💻 👋🏿", ("notice",)),
    Text("cjk_chinese_korean", "我爱自然语言处理。注意力就是你所需要的一切。주의가 필요한 전부입니다."),
    Text("cjk_japanese", "東京は日本の首都です。", subset=True),
    Text("rtl_arabic_hebrew", "مرحبا بالعالم، الانتباه هو كل ما تحتاجه. שלום עולם, תשומת לב.", subset=True),
    Text("bidi_override", "abc \u202edcba\u202c and \u2066isolated\u2069 text", ("notice",)),
    Text("zero_width", "Hel\u200blo\u200c wor\u200dld\ufeff again\u2060.", ("notice",)),
    Text("combining_marks", "Z̴̡̛͓̪a̷̢͉͍l̶̡̻̈g̸̢̛̹o̵̖͗ says Cafe\u0301 cre\u0300me bru\u0302le\u0301e, nai\u0308ve."),
    Text("nul_byte", "Hello\x00world, how are you?", ("notice",), subset=True),
    Text(
        "ansi_and_controls",
        "\x1b[31mred\x1b[0m \x1b[2J bell\x07 back\x08 tab\x0b form\x0c del\x7f",
        ("notice",),
    ),
    Text("crlf", "line one\r\nline two\rline three\nline four"),
    Text("html_tags", "<b>bold</b> <i>it</i> <div style='position:fixed;inset:0'>cover</div>"),
    Text("script_tag", "<script>alert(1)</script>", subset=True),
    Text(
        "img_iframe_js", '<img src=x onerror=alert(2)><svg/onload=alert(3)><iframe src="javascript:alert(4)">'
    ),
    Text("latex_block", "$$\\frac{1}{0}$$ and $x^2 + \\sqrt{y}$ and \\(a\\)"),
    Text("markdown_and_code", "**bold** _it_ ~~x~~\n# Heading\n---\n> quote\n```python\nimport os\n```"),
    Text("markdown_js_link", "[link](javascript:alert(1)) and ![img](http://example.invalid/x.png)"),
    Text("streamlit_directives", ":red[danger] :material/home: :smile: :blue-background[x]"),
    Text("spm_specials", "<s> </s> <unk> <pad>", subset=True),
    Text("spm_bos_eos_runs", "<s></s></s><s></s><s>"),
    Text("spm_word_start", "▁▁▁ ▁hello▁world ▁"),
    Text("dots_run", "." * 3000),
    Text("punct_run", "!?" * 500),
    Text("numbers_only", "1234567890 3.14159 -42 1e308 0x1F", subset=True),
    Text("zero", "0"),
    Text("format_and_null_words", "{0} {} %s %d {__class__} ${HOME} `id` None null undefined NaN"),
    Text("sql_and_paths", "'; DROP TABLE users; -- ../../etc/passwd C:\\Windows\\"),
    Text("lookalike_letters", "Ｈｅｌｌｏ　ｗｏｒｌｄ！ 𝐇𝐞𝐥𝐥𝐨 𝕨𝕠𝕣𝕝𝕕 𝓯𝓪𝓷𝓬𝔂"),
    Text("noncharacters", "A \ufffd B \ufffe C \uffff D \ue000 E", ("notice",)),
    Text("many_tokens", "the " * 300, ("notice",)),
]


@dataclass(frozen=True)
class Url:
    """Query parameters as a shared link would carry them, and how the page must read them."""

    id: str
    params: dict
    expect: dict = field(default_factory=dict)  # URL values the page must settle on
    subset: bool = False


URLS = [
    Url("layer_negative", {"layer": "-5"}, {"layer": "1"}, subset=True),
    Url("layer_huge", {"layer": "999"}, {"layer": str(N_LAYERS)}),
    Url("layer_float", {"layer": "2.5"}),
    Url("layer_empty", {"layer": ""}),
    Url("head_text", {"head": "abc"}, {"head": "1"}),
    Url("head_exponent", {"head": "1e9"}, {"head": "1"}, subset=True),
    Url("head_bignum", {"head": "9" * 40}, {"head": str(N_HEADS)}),
    Url("stack_unknown", {"stack": "xyz"}),
    Url("cross_in_encoder", {"stack": "encoder", "kind": "cross"}, subset=True),
    Url("kind_unknown", {"stack": "decoder", "kind": "evil"}),
    Url("sentence_huge", {"s": "Attention is all you need. " * 400}, subset=True),
    Url("sentence_markup", {"s": "<script>alert(1)</script>**x**$$y$$"}),
    Url("palette_evil", {"palette": "evil</style><script>"}, subset=True),
    Url("present_maybe", {"present": "maybe"}),
    Url("zero_based_bad", {"zero": "2", "layer": "0", "head": "-1"}),
    Url(
        "zero_based_edges",
        {"zero": "1", "layer": "0", "head": str(N_HEADS - 1)},
        {"zero": "1", "layer": "0"},
        subset=True,
    ),
    Url(
        "all_bad",
        {"s": "", "stack": "🤖", "kind": "", "layer": "NaN", "head": "inf", "palette": "", "present": "\x00"},
        subset=True,
    ),
]

FULL_PAGES = {"app.py"}  # the home page
FULL_PAGES.add(next((p.script for p in PAGES[1:] if "token" in p.script.lower()), PAGES[-1].script))


def _cases():
    for page in PAGES:
        full = page.script in FULL_PAGES
        for case in TEXTS:
            if full or case.subset:
                yield pytest.param(page, case, id=f"{page.name}-{case.id}")
        for case in URLS:
            if full or case.subset:
                yield pytest.param(page, case, id=f"{page.name}-url-{case.id}")


def _describe(at: AppTest) -> str:
    return "\n".join(f"{e.message}\n{''.join(e.stack_trace)}" for e in at.exception)


def _texts(at: AppTest) -> list[str]:
    """Every piece of text the page shows (markdown, captions, alerts, code...)."""
    out = []
    for kind in (
        "markdown",
        "caption",
        "text",
        "code",
        "error",
        "warning",
        "info",
        "success",
        "title",
        "header",
        "subheader",
        "latex",
    ):
        out += [str(getattr(e, "value", "")) for e in at.get(kind)]
    return out


# Plotly reads a little HTML in a figure's labels and titles: every "<" there must open one of the tags
# the figures use on purpose. A token such as "</s>" or typed text such as "<script>" must arrive escaped
# ("&lt;/s&gt;"), or Plotly swallows it (the label goes blank) or styles the chart with it.
TAG = re.compile(r"<(?!/?(?:br|sup|b|i)>)")


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def raw_tags(at: AppTest) -> list[str]:
    """Every text drawn in the page's figures (axis categories and ticks, titles, annotations, trace
    names and printed text) that holds a "<" Plotly would read as a tag of its own."""
    found = []
    for chart in page_charts(at):
        spec = json.loads(chart.proto.spec)
        layout = spec.get("layout", {})
        texts = [(layout.get("title") or {}).get("text")]
        texts += [a.get("text") for a in layout.get("annotations", [])]
        for name, axis in layout.items():
            if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
                texts += [axis.get("ticktext"), axis.get("tickvals"), (axis.get("title") or {}).get("text")]
        for trace in spec.get("data", []):
            texts += [trace.get(k) for k in ("x", "y", "text", "name")]
        found += [t for t in _strings(texts) if TAG.search(t)]
    return found


def assert_rendered(at: AppTest, what: str) -> None:
    assert not at.exception, f"{what}: exception\n{_describe(at)}"
    assert at.title, f"{what}: no title rendered (the page stopped before page())"
    shown = "\n".join(_texts(at))
    assert "Traceback" not in shown, f"{what}: traceback text shown"
    assert not raw_tags(at), f"{what}: unescaped markup in a figure: {raw_tags(at)[:5]}"


@pytest.mark.parametrize(("page", "case"), list(_cases()))
def test_hostile(page, case):
    at = AppTest.from_file(str(ROOT / page.script), default_timeout=RUN_TIMEOUT)
    if isinstance(case, Url):
        at.query_params.update(case.params)
        at.run()
        assert_rendered(at, f"{page.script} with {case.params!r}")
        check_url(at, case)
        return
    what = f"{page.script} with {case.id}"
    at.run()  # open the page (the default sentence is cached after the first page), then type
    assert_rendered(at, f"{page.script} before typing")
    at.sidebar.text_area(key="atlas_sentence_box").set_value(case.text).run()
    assert_rendered(at, what)
    typed = case.text[:MAX_CHARS]  # the box keeps at most MAX_CHARS characters, as in the browser
    assert at.sidebar.text_area(key="atlas_sentence_box").value == typed, f"{what}: box changed the text"
    assert at.session_state["atlas_selection"].sentence == typed, f"{what}: the input did not arrive"
    if "empty" in case.expect and "require_sentence(" in page.source:
        assert at.info, f"{what}: no message asking for a sentence"
    if "notice" in case.expect:
        assert at.warning, f"{what}: no notice that the text was changed or cut"


def _query(at: AppTest) -> dict[str, str]:
    out = {}
    for key, value in at.query_params.items():
        out[key] = value[-1] if isinstance(value, list) else value
    return out


def check_url(at: AppTest, case: Url) -> None:
    """The URL the page settles on is valid, and clamped where the case says how."""
    query = _query(at)
    what = f"{case.params!r} -> {query!r}"
    zero = query.get("zero") == "1"
    off = 0 if zero else 1
    assert int(query["layer"]) in range(off, N_LAYERS + off), what
    assert int(query["head"]) in range(off, N_HEADS + off), what
    assert query["stack"] in ("encoder", "decoder"), what
    assert query["kind"] in (("self",) if query["stack"] == "encoder" else ("self", "cross")), what
    assert query.get("palette", "default") in ("default", "colour-blind safe"), what
    assert query.get("present", "1") == "1", what
    for key, value in case.expect.items():
        assert query.get(key) == value, f"{what}: expected {key}={value}"
