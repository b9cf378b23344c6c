"""User text in: cleaning, limits and notices (transformer.inputs), and the translate command that
must answer every input line with exactly one output line, whatever the line holds."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

import pytest
import torch

from transformer import Transformer, TransformerConfig, translate
from transformer.inputs import MAX_CHARS, clean_text, encode_source
from transformer.pretrained import save_model
from transformer.tokenizer import Tokenizer

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_SPM = ROOT / "pretrained" / "spm.model"


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer.load(SHIPPED_SPM)


# ---- clean_text ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\t\n\r  \n", None])
def test_empty_and_blank_text_clean_to_nothing_without_notices(text):
    assert clean_text(text) == ("", [])


def test_non_strings_are_turned_into_text():
    assert clean_text(42) == ("42", [])


def test_whitespace_is_collapsed():
    assert clean_text("  The \t cat\n\nsleeps.  ") == ("The cat sleeps.", [])


def test_control_characters_are_removed_with_a_notice():
    text, notices = clean_text("Hel\x00lo\x07 wor\x1bld\x7f")
    assert text == "Hello world"
    assert len(notices) == 1 and "4" in notices[0]


@pytest.mark.parametrize(
    "invisible",
    ["\u200b", "\u200d", "\ufeff", "\u202e", "\u2060", "\ue000", "\ud800"],
    ids=["zero-width-space", "zwj", "bom", "rtl-override", "word-joiner", "private-use", "surrogate"],
)
def test_zero_width_and_other_invisible_characters_are_removed(invisible):
    text, notices = clean_text(f"in{invisible}visible")
    assert text == "invisible"
    assert notices and "1" in notices[0]


def test_text_is_nfc_normalised():
    decomposed = "Cafe\u0301 und Mu\u0308nchen"  # e + combining acute, u + combining diaeresis
    text, notices = clean_text(decomposed)
    assert text == "Café und München"
    assert text == unicodedata.normalize("NFC", text) and len(text) == len(decomposed) - 2
    assert notices == []


def test_over_long_text_is_cut_with_a_notice():
    text, notices = clean_text("word " * 1000)
    assert 0 < len(text) <= MAX_CHARS and text == text.strip()
    assert any(str(MAX_CHARS) in n for n in notices)
    short, notices = clean_text("abcdefghij", max_chars=4)
    assert short == "abcd" and len(notices) == 1


# ---- encode_source -------------------------------------------------------------------------------


def test_eos_is_appended_and_pieces_line_up(tok):
    source = encode_source(tok, "The house is small.")
    assert source.ids[-1] == tok.eos_id and source.ids[:-1] == tok.encode("The house is small.")
    assert source.pieces[-1] == "</s>" and len(source.pieces) == len(source.ids)
    assert source.pieces[:-1] == tok.encode_pieces("The house is small.")
    assert source.notices == [] and not source.empty


@pytest.mark.parametrize("text", ["", "   ", "\x00\x01\u200b", None])
def test_nothing_left_gives_an_empty_source(tok, text):
    source = encode_source(tok, text)
    assert source.empty and source.ids == [] and source.pieces == []


def test_token_limit_cuts_with_a_notice(tok):
    text = " ".join(["house"] * 100)
    source = encode_source(tok, text, max_tokens=20)
    assert len(source.ids) == 21 and source.ids[-1] == tok.eos_id
    assert source.ids[:-1] == tok.encode(text)[:20]
    assert any("20" in n for n in source.notices)
    assert encode_source(tok, "A short one.", max_tokens=20).notices == []


def test_cleaning_notices_reach_the_source(tok):
    source = encode_source(tok, "The\u200b house\x00.")
    assert source.text == "The house."
    assert len(source.notices) == 1


@pytest.mark.parametrize("text", ["I ❤️ Berlin 🚀", "東京は大きい。", "مرحبا", "👍🏽👨‍👩‍👧", "ǅ ﬁ Ⅻ ㎏"])
def test_emoji_and_other_scripts_do_not_crash(tok, text):
    source = encode_source(tok, text)
    assert source.ids and source.ids[-1] == tok.eos_id
    assert all(0 <= i < tok.vocab_size for i in source.ids)
    assert len(source.pieces) == len(source.ids)


# ---- the translate command -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tok, tmp_path_factory) -> tuple[Transformer, Path]:
    """A random tiny model on the shipped vocabulary, saved like a shipped model directory."""
    torch.manual_seed(0)
    config = TransformerConfig(
        vocab_size=tok.vocab_size, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=40
    )
    model = Transformer(config).eval()
    directory = tmp_path_factory.mktemp("tiny_model")
    save_model(model, directory, SHIPPED_SPM)
    return model, directory


def test_translate_stream_answers_every_line_in_order(tiny, tok):
    model, _ = tiny
    lines = ["The house is small.", "", "\x00\x07", "   ", "I ❤️ 東京", "Good night."]
    out, err = io.StringIO(), io.StringIO()
    failed = translate.translate_stream(model, tok, io.StringIO("\n".join(lines) + "\n"), out, err, 2, 0.6)
    got = out.getvalue().split("\n")
    assert got[-1] == "" and len(got) - 1 == len(lines)
    assert got[1] == got[2] == got[3] == ""
    for i in (0, 4, 5):  # the same as translating each line on its own
        assert got[i] == translate.translate_line(model, tok, lines[i], 2, 0.6)[0]
    messages = err.getvalue()
    assert "line 2:" in messages and "line 3:" in messages and "line 4:" in messages
    assert "line 3: Removed 2" in messages
    assert failed == 0


def test_a_line_that_fails_gives_an_empty_line_and_the_rest_go_on(tiny, tok, monkeypatch):
    model, _ = tiny
    real, real_batch = translate.greedy_decode, translate.greedy_translate
    poison = encode_source(tok, "poison").ids

    def flaky(m, ids, *args, **kwargs):
        if list(ids) == poison:
            raise RuntimeError("boom")
        return real(m, ids, *args, **kwargs)

    def flaky_batch(m, sources, *args, **kwargs):  # a batch holding the poison line fails as a whole
        if poison in [list(ids) for ids in sources]:
            raise RuntimeError("boom")
        return real_batch(m, sources, *args, **kwargs)

    monkeypatch.setattr(translate, "greedy_decode", flaky)
    monkeypatch.setattr(translate, "greedy_translate", flaky_batch)
    out, err = io.StringIO(), io.StringIO()
    failed = translate.translate_stream(model, tok, io.StringIO("One.\npoison\nTwo.\n"), out, err, 1, 0.6)
    got = out.getvalue().split("\n")
    assert len(got) == 4 and got[1] == "" and failed == 1
    assert got[2] == translate.translate_line(model, tok, "Two.", 1, 0.6)[0]
    assert "line 2: could not translate (RuntimeError: boom)" in err.getvalue()


LINES = [
    "The house is small.",
    "",
    "My grandmother lives in a small village near the sea.",
    "Hello.",
    "\x00\x07",
    "Can you help me with my homework?",
    "I ❤️ 東京",
    "The children play football in the park after school, and then they go home.",
]


@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("beam", [1, 4])
def test_a_batch_gives_what_each_line_gives_alone(tiny, tok, beam):
    """Sentences of different lengths decoded together (padded, sorted by length) give the German and
    the notices of translating each line alone, in input order."""
    model, _ = tiny
    batched = translate.translate_batch(model, tok, LINES, beam, 0.6)
    alone = [translate.translate_line(model, tok, line, beam, 0.6) for line in LINES]
    assert batched == alone
    assert sum(bool(german) for german, _ in batched) >= 5  # not vacuous: the tiny model says something
    assert len({german for german, _ in batched if german}) >= 2  # and not the same for every line


@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("beam", [1, 4])
def test_translate_stream_in_small_batches_keeps_every_line_in_order(tiny, tok, beam, monkeypatch):
    model, _ = tiny
    monkeypatch.setattr(translate, "BATCH_LINES", 3)
    seen = []
    real = translate.translate_batch
    monkeypatch.setattr(
        translate, "translate_batch", lambda m, t, lines, *a: seen.append(lines) or real(m, t, lines, *a)
    )
    out, err = io.StringIO(), io.StringIO()
    text = "".join(line + "\r\n" for line in LINES)
    assert translate.translate_stream(model, tok, io.StringIO(text), out, err, beam, 0.6) == 0
    alone = [translate.translate_line(model, tok, line, beam, 0.6)[0] for line in LINES]
    assert out.getvalue() == "".join(german + "\n" for german in alone)
    assert sum(seen, []) == LINES and len(seen) >= 3 and max(map(len, seen)) <= 3
    assert "line 2: nothing to translate" in err.getvalue() and "line 5: Removed 2" in err.getvalue()


def test_lines_already_read_make_one_batch():
    done = threading.Event()

    def lines():
        yield from ["1", "2", "3", "4", "5", "6"]
        done.set()  # asked for a seventh line: the six are read

    batches = translate.batches(lines(), 4)
    first = next(batches)
    assert done.wait(10)
    rest = list(batches)
    assert first + sum(rest, []) == ["1", "2", "3", "4", "5", "6"]
    assert rest[0] == ["1", "2", "3", "4", "5", "6"][len(first) : len(first) + 4]  # full, once they wait
    assert all(1 <= len(batch) <= 4 for batch in [first, *rest])


def test_a_line_is_answered_before_the_next_one_arrives():
    """Interactive input: the first line is a batch of its own; nothing waits for more input."""
    answered = threading.Event()

    def lines():
        yield "typed first"
        answered.wait(10)  # the next line comes only once the first has been answered
        yield "typed second"

    batches = translate.batches(lines(), 64)
    first = next(batches)
    answered.set()
    assert first == ["typed first"]
    assert list(batches) == [["typed second"]]


def _command(model_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "transformer.translate",
        "--model",
        str(model_dir),
        "--device",
        "cpu",
        *extra,
    ]


ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}


def test_command_line_keeps_one_output_line_per_input_line(tiny):
    _, directory = tiny
    stdin = b"The house is small.\n\n\xff\xfe broken bytes\n\x00\nLast line without newline"
    done = subprocess.run(
        _command(directory, "--beam", "2"), input=stdin, capture_output=True, cwd=ROOT, env=ENV, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode("utf-8").split("\n")
    assert len(lines) == 6 and lines[-1] == ""  # five input lines, five output lines
    assert lines[1] == "" and lines[3] == ""
    assert b"line 2:" in done.stderr and b"line 4:" in done.stderr
    assert b"Traceback" not in done.stderr


def test_command_line_flushes_each_line(tiny):
    _, directory = tiny
    proc = subprocess.Popen(
        _command(directory, "--beam", "1"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=ENV,
    )
    try:
        proc.stdin.write(b"The first sentence.\n")
        proc.stdin.flush()  # stdin stays open: the answer must come before the input ends
        ready, _, _ = select.select([proc.stdout], [], [], 90)
        assert ready, "no output line while the input is still open"
        assert proc.stdout.readline().endswith(b"\n")
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0


def test_command_line_names_a_broken_model_directory(tmp_path):
    done = subprocess.run(
        _command(tmp_path / "nowhere"), input=b"Hello.\n", capture_output=True, cwd=ROOT, env=ENV, timeout=120
    )
    assert done.returncode == 1
    message = done.stderr.decode()
    assert "config.json" in message and "git checkout -- pretrained/" in message
    assert "Traceback" not in message and done.stdout == b""


class _Letters:
    """A stand-in tokenizer: each ASCII word is one piece; any other character is `<unk>` (id 1)."""

    unk_id, eos_id = 1, 3
    _pieces = ["<pad>", "<unk>", "<s>", "</s>", "▁"]

    def encode(self, text: str) -> list[int]:
        ids = []
        for word in text.split():
            ids.append(4)  # the word start
            ids += [self._id("▁" + c) if c.isascii() else self.unk_id for c in word]
        return ids

    def _id(self, piece: str) -> int:
        if piece not in self._pieces:
            self._pieces.append(piece)
        return self._pieces.index(piece)

    def id_to_piece(self, i: int) -> str:
        return self._pieces[i]


def test_unknown_only_text_gets_a_notice_naming_the_characters():
    source = encode_source(_Letters(), "😀 🎉😀")
    assert [i for i in source.ids if i not in (1, 4)] == [3]  # nothing but <unk>, word starts and EOS
    (notice,) = source.notices
    assert "Nothing in this text is in the model's vocabulary (😀 🎉)" in notice
    assert "became the unknown token `<unk>`, so" in notice and "bytes" not in notice  # says which


def test_partly_unknown_text_counts_characters_and_pieces_apart():
    """The characters listed are the ones counted; the pieces they became are counted as pieces."""
    (notice,) = encode_source(_Letters(), "I like 😀 and 🎉").notices
    assert notice.startswith("The model's vocabulary lacks 2 characters of this text (😀 🎉), spelled as 2 "
                             "pieces")
    (notice,) = encode_source(_Letters(), "I like 😀😀😀").notices  # listed once, counted three times
    assert notice.startswith("The model's vocabulary lacks 3 characters of this text (😀), spelled as 3 "
                             "pieces:")
    assert encode_source(_Letters(), "I like tea").notices == []


def test_byte_pieces_count_as_unknown_for_the_notice(tok):
    """The shipped tokenizer spells an emoji as UTF-8 byte pieces, not <unk>: still no silent output."""
    assert tok.unk_id not in tok.encode("🙂") and tok.id_to_piece(tok.encode("🙂")[-1]).startswith("<0x")
    (notice,) = encode_source(tok, "🙂 🙂").notices
    assert notice.startswith("Nothing in this text is in the model's vocabulary (🙂)")
    assert "raw bytes" in notice
    (notice,) = encode_source(tok, "I like 🙂").notices
    assert notice.startswith("The model's vocabulary lacks 1 character of this text (🙂), spelled as 4 "
                             "pieces: raw bytes (a piece per UTF-8 byte), which")  # says which, not "or"
    (notice,) = encode_source(tok, "Мубро is here").notices  # Cyrillic: 5 letters, 2 bytes each
    assert notice.startswith("The model's vocabulary lacks 5 characters of this text (М у б р о), spelled as "
                             "10 pieces")
    assert encode_source(tok, "I like tea.").notices == []
