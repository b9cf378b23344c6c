"""The house limits (CONTRIBUTING.md): `transformer/` holds what a student reads beside the paper.

The model, its parts, tracing, decoding and loading a tokenizer stay in `transformer/`; the maths
behind the views (head statistics, rollout, similarity, footnote 4) is `analysis/`; jobs (training a
tokenizer or a model, building corpora) and app content live in `training/`, `corpus/` and `ui/`, so
the package still reads in one sitting. History stays out of the code (no issue numbers), the README
stays short enough to read, and no file cites a document the repository does not have.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRANSFORMER_LINES = 2200  # `wc -l transformer/*.py`: the model alone
README_LINES = 300
UI_LINES = 300  # a module of ui/: one job
THIN_PAGE_LINES = 120  # a page: its prose, layout and widgets; its builders live in one module of ui/
# Not the project's files: the virtual environment, caches, and what data and training runs write.
SKIP_DIRS = {".venv", ".git", ".pytest_cache", ".ruff_cache", "__pycache__", "node_modules", "data", "runs",
             "artifacts"}  # fmt: skip
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".sh", ".ipynb"}
ISSUE_NUMBER = re.compile(r"\bissues?[\s_-]*#?\d+", re.IGNORECASE)
# A layer's hook name spelt out by hand (`f"encoder.layers.{i}.hook_norm2"`, `f"{base}.ffn.hook_out"`)
# instead of built by `transformer.trace.layer_hook` / `attn_hook`.
HAND_MADE_HOOK = re.compile(r"""layers\.\{|["'](?:en|de)coder\.layers\.|\}\.(?:\w+\.)?hook_|_attn\.hook_""")
# Conventions once kept in files outside the repository; CONTRIBUTING.md holds them now.
MISSING_DOCS = ("STYLE" + ".md", "DESIGN" + ".md")  # spelled in parts so this file does not cite them


def lines(path: Path) -> int:
    """Lines as `wc -l` counts them (newline characters)."""
    return path.read_bytes().count(b"\n")


def transformer_files() -> list[Path]:
    return sorted(p for p in (ROOT / "transformer").rglob("*.py") if "__pycache__" not in p.parts)


def project_files(suffixes: set[str]) -> list[Path]:
    """The repository's own files with these suffixes (and the Makefile, for text), tracked or not."""
    found = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if SKIP_DIRS & set(rel.parts) or not path.is_file():
            continue
        if path.suffix in suffixes or (".md" in suffixes and path.name == "Makefile"):
            found.append(path)
    return sorted(found)


def test_transformer_is_the_model_alone():
    files = transformer_files()
    names = {p.relative_to(ROOT / "transformer").as_posix() for p in files}
    assert {"model.py", "attention.py", "tokenizer.py"} <= names, names  # not vacuous
    assert not (ROOT / "transformer" / "analysis").exists() and (ROOT / "analysis" / "heads.py").is_file()
    total = sum(lines(p) for p in files)
    largest = sorted(((lines(p), p.relative_to(ROOT).as_posix()) for p in files), reverse=True)[:5]
    assert total <= TRANSFORMER_LINES, f"transformer/ holds {total} lines (largest: {largest}): move jobs out"


def test_training_a_tokenizer_is_a_training_job():
    """transformer/tokenizer.py loads and encodes; training.train_tokenizer trains (one job, one room)."""
    assert "SentencePieceTrainer" not in (ROOT / "transformer" / "tokenizer.py").read_text(encoding="utf-8")
    assert "SentencePieceTrainer" in (ROOT / "training" / "train_tokenizer.py").read_text(encoding="utf-8")


def test_no_page_and_no_transformer_module_is_too_long_to_read_at_once():
    """No page over 200 lines (thin pages: the work is in ui/ and viz/), no module of transformer/
    over 350."""
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert len(pages) >= 10
    assert not [(p.name, lines(p)) for p in pages if lines(p) > 200]
    assert not [(p.name, lines(p)) for p in transformer_files() if lines(p) > 350]


def is_cache(node: ast.expr) -> bool:
    """`st.cache_data`, `st.cache_resource` (any `st.cache_*`)."""
    on_streamlit = isinstance(node, ast.Attribute) and ast.unparse(node.value) in {"st", "streamlit"}
    return on_streamlit and node.attr.startswith("cache_")


def cache_definitions(source: str) -> list[int]:
    """Lines where `source` makes a Streamlit cache: `@st.cache_data` or `@st.cache_resource(...)` on a
    function, or `st.cache_data(f)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
            found += [d.lineno for d in decorators if is_cache(d)]
        elif isinstance(node, ast.Call) and node.args:  # st.cache_data(f), st.cache_data(max_entries=2)(f)
            wrapper = node.func.func if isinstance(node.func, ast.Call) else node.func
            found += [node.lineno] if is_cache(wrapper) else []
    return found


def test_every_page_is_thin():
    """Every page but the decoder's holds at most 120 lines and defines no cache: its prose, layout and
    widgets stay on the page; its figure builders, cached computations and helpers live in one module of
    ui/ (`ui/generation.py` is the pattern, CONTRIBUTING.md)."""
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert len(pages) >= 10  # not vacuous
    too_long = [(p.name, lines(p)) for p in pages if lines(p) > THIN_PAGE_LINES]
    assert not too_long, f"pages over {THIN_PAGE_LINES} lines: {too_long}: move their builders to ui/"
    caching = [(p.name, n) for p in pages for n in cache_definitions(p.read_text(encoding="utf-8"))]
    assert not caching, f"caches defined on pages (page, line): {caching}: cache in ui/, not on a page"


def test_the_cache_check_sees_them():
    made = ("@st.cache_data\ndef f(): ...", "@st.cache_resource(max_entries=2)\ndef f(): ...",
            "g = st.cache_data(f)", "g = st.cache_data(show_spinner=False)(f)")  # fmt: skip
    for source in made:
        assert cache_definitions(source) == [1], source
    for source in ("st.cache_data.clear()", "@st.fragment\ndef f(): ...", "g = cache(f)"):
        assert not cache_definitions(source), source
    assert cache_definitions((ROOT / "ui" / "positional.py").read_text(encoding="utf-8"))  # a real one


def test_every_ui_module_has_one_job_and_reads_at_once():
    """No module of ui/ over 300 lines: one that long usually holds several jobs (CONTRIBUTING.md)."""
    modules = sorted((ROOT / "ui").glob("*.py"))
    assert len(modules) >= 10  # not vacuous
    too_long = [(p.name, lines(p)) for p in modules if lines(p) > UI_LINES]
    assert not too_long, f"ui/ modules over {UI_LINES} lines: {too_long}: split them by job"


def test_no_issue_numbers_in_the_code():
    """Why a line is there belongs in the line's comment or the paper; which ticket asked for it belongs
    in the commit message. Tests are named by behaviour, not by ticket."""
    files = project_files({".py"})
    assert len(files) > 100 and Path(__file__).resolve() in files  # not vacuous
    offenders = [
        f"{p.relative_to(ROOT).as_posix()}:{n}: {line.strip()}"
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if ISSUE_NUMBER.search(line) or ISSUE_NUMBER.search(p.name)
    ]
    assert not offenders, "issue numbers in the code:\n" + "\n".join(offenders)


def test_the_issue_number_check_sees_them():
    w = "issue"  # the examples are built here, so that this file passes its own check
    for text in (f"({w} 30, item 5)", f"{w.title()} 14", f"{w}_30_rows", f"--{w}-30", f"{w}s 29"):
        assert ISSUE_NUMBER.search(text), text
    for text in (f"t{w} 3", f"the {w}'s examples", f"{w}-free"):
        assert not ISSUE_NUMBER.search(text), text


def test_hook_names_are_built_in_one_place():
    """A layer's hook names come from `transformer.trace` (`layer_hook`, `attn_hook`), which
    tests/test_trace_names.py checks against the names the model gives its hook points; a name spelt out
    elsewhere would break silently when the model's module paths change. Tests may spell names out: they
    check the model from outside."""
    model_and_tests = {"transformer", "tests"}
    files = [p for p in project_files({".py"}) if p.relative_to(ROOT).parts[0] not in model_and_tests]
    assert {ROOT / "ui" / "encoder_layer.py", ROOT / "training" / "health.py"} <= set(files)  # not vacuous
    offenders = [
        f"{p.relative_to(ROOT).as_posix()}:{n}: {line.strip()}"
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if HAND_MADE_HOOK.search(line)
    ]
    assert not offenders, "hook names spelt out by hand (use transformer.trace.layer_hook):\n" + "\n".join(
        offenders
    )


def test_the_hook_name_check_sees_them():
    made = ('f"encoder.layers.{layer}.hook_norm2"', 'f"{stack}.layers.{i}.{kind}_attn.hook_z"',
            '"decoder.layers.0.cross_attn.hook_pattern"', 'f"{base}.ffn.hook_out"',
            'f"{base}.hook_norm1"')  # fmt: skip
    for text in made:
        assert HAND_MADE_HOOK.search(text), text
    fine = ('attn_hook("decoder", "cross", i, "pattern")', '"src_embed.hook_embed"',
            "model.encoder.layers[0]", 'name.endswith("hook_pattern")')  # fmt: skip
    for text in fine:
        assert not HAND_MADE_HOOK.search(text), text


def test_readme_stays_short():
    """What it is, the two commands, a tour, the layout, the deviations and a short performance table;
    detail lives in bench/README.md, the model cards and docs/."""
    assert lines(ROOT / "README.md") <= README_LINES, (
        f"README.md holds {lines(ROOT / 'README.md')} lines (at most {README_LINES}): move detail out"
    )


def test_the_performance_section_is_one_short_table():
    """README's performance section: one table of at most 20 lines (ratios, the machine reference)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Performance\n", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert 3 <= len(table) <= 20 and "machine reference" in section and "bench/README.md" in section
    assert section.count("\n\n|") == 1  # one table


def test_no_file_cites_a_document_the_repository_does_not_have():
    files = project_files(TEXT_SUFFIXES)
    assert ROOT / "README.md" in files and ROOT / "CONTRIBUTING.md" in files  # not vacuous
    offenders = [
        f"{p.relative_to(ROOT).as_posix()}: {name}"
        for p in files
        for name in MISSING_DOCS
        if name in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert not offenders, f"cite CONTRIBUTING.md instead: {offenders}"
