"""The house map (STYLE.md): `transformer/` holds what a student reads beside the paper (issue 31).

The model, its parts, tracing, decoding, loading a tokenizer and the maths behind the views stay in
`transformer/`; jobs (training a tokenizer or a model, building corpora) and app content live in
`training/`, `corpus/` and `ui/`, so the package still reads in one sitting.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRANSFORMER_LINES = 3000  # issue 31: `wc -l transformer/*.py transformer/*/*.py`


def lines(path: Path) -> int:
    """Lines as `wc -l` counts them (newline characters)."""
    return path.read_bytes().count(b"\n")


def transformer_files() -> list[Path]:
    return sorted(p for p in (ROOT / "transformer").rglob("*.py") if "__pycache__" not in p.parts)


def test_transformer_holds_at_most_3000_lines():
    files = transformer_files()
    names = {p.relative_to(ROOT / "transformer").as_posix() for p in files}
    assert {"model.py", "attention.py", "tokenizer.py", "analysis/heads.py"} <= names, names  # not vacuous
    total = sum(lines(p) for p in files)
    largest = sorted(((lines(p), p.relative_to(ROOT).as_posix()) for p in files), reverse=True)[:5]
    assert total <= TRANSFORMER_LINES, f"transformer/ holds {total} lines (largest: {largest}): move jobs out"


def test_training_a_tokenizer_is_a_training_job():
    """transformer/tokenizer.py loads and encodes; training.train_tokenizer trains (one job, one room)."""
    assert "SentencePieceTrainer" not in (ROOT / "transformer" / "tokenizer.py").read_text(encoding="utf-8")
    assert "SentencePieceTrainer" in (ROOT / "training" / "train_tokenizer.py").read_text(encoding="utf-8")


def test_no_page_and_no_transformer_module_is_too_long_to_read_at_once():
    """Issue 31: no page over 200 lines (thin pages: the work is in ui/ and viz/), no module of
    transformer/ over 350."""
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert len(pages) >= 10
    assert not [(p.name, lines(p)) for p in pages if lines(p) > 200]
    assert not [(p.name, lines(p)) for p in transformer_files() if lines(p) > 350]
