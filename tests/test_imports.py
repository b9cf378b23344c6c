"""Imports run one way (CONTRIBUTING.md): app.py, pages/*.py -> ui/ -> viz/, transformer/.

Checked by parsing every module's imports with `ast` (imports inside functions count too):
- app.py imports only Streamlit (it runs before every page, the home page included), ui.warm,
  ui.lecture and ui.navigation (Streamlit and ui.state only);
- pages import only `ui`, `viz` (to call figure functions), `streamlit`, the standard
  library and the pure helper functions of `analysis` / `transformer.embeddings` — never
  torch, numpy, plotly or the modules that hold or run the model (no tensor math, no figure building
  in a page);
- `ui` never imports a page or app.py;
- `viz` is pure Plotly: never Streamlit, never `ui`, never the model or anything that runs it;
- `transformer` is pure PyTorch: never Streamlit, Plotly, `ui` or `viz`.

And the rooms of building data and training (CONTRIBUTING.md: corpus/ -> training/ -> tasks/ ->
transformer/):
- `transformer` never imports `corpus`, `training` or `tasks` (the model reads in one sitting without them);
- `tasks` (the toy tasks, the numbers grammar, the update step: what the app and the jobs share) never
  imports `training` or `corpus`, nor reaches into the app;
- `training` never imports `corpus` (a training run reads the corpus's files, not its code);
- `corpus` and `training` never reach into the app (Streamlit, Plotly, `ui`, `viz`, pages);
- `ui`, `viz`, pages and app.py never import `corpus` or `training` (what the app shares with the jobs is
  in `tasks`);
- the command-line modules still start under their names (`python -m training.train --help`, …).

And the benchmarks and tools stand on the project, never on its tests: nothing in bench/ or tools/ imports
a module of tests/ or puts tests/ on sys.path (the real server and browser are tools/real_server.py).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names) | {"__future__"}

# Modules of transformer/ that hold or run the model: views must never reach them (BertViz's rule).
MODEL_MODULES = {"transformer.model", "transformer.pretrained", "transformer.decoding", "training.train"}
# What a page may import besides the standard library (CONTRIBUTING.md: pages -> ui -> viz, transformer).
PAGE_ALLOWED = {"ui", "viz", "streamlit"}
PAGE_ALLOWED_TRANSFORMER = ("analysis", "transformer.embeddings")
NUMERIC_LIBS = {"torch", "numpy", "pandas", "plotly", "safetensors", "sentencepiece"}
MODEL_NAMES = {"Transformer", "model", "pretrained", "decoding", "train", "load_pretrained"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(absolute module name, line) for every import in `path` (or in `source`, as if it were there).

    `from a import b` gives both a and a.b (b may be a submodule); relative imports are resolved.
    """
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.append((module, node.lineno))
            found += [(f"{module}.{alias.name}", node.lineno) for alias in node.names]
    return found


def top(name: str) -> str:
    return name.split(".")[0]


def files(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


PAGE_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
LAYERS = {
    "pages": PAGE_FILES,
    "ui": files("ui"),
    "viz": files("viz"),
    "transformer": files("transformer"),
    "analysis": files("analysis"),
    "training": files("training"),
    "tasks": files("tasks"),
    "corpus": files("corpus"),
    "attention_atlas": files("attention_atlas"),
}
APP_SIDE = {"streamlit", "plotly", "ui", "viz", "pages", "app"}
# What each room may never import (top-level names): arrows run corpus -> training -> tasks -> transformer.
# (transformer's distance from the app side and ui's from the pages are checked file by file below.)
NEVER = {
    "transformer": {"corpus", "training", "tasks", "analysis"},
    "analysis": APP_SIDE | {"corpus", "training"},  # the maths behind the views: torch and the model only
    "training": APP_SIDE | {"corpus"},
    "tasks": APP_SIDE | {"corpus", "training"},  # shared by the app and the jobs: it leans on neither
    "corpus": APP_SIDE,
    "ui": {"corpus", "training"},
    "viz": {"corpus", "training"},
    "pages": {"corpus", "training"},
    "attention_atlas": {"corpus", "ui", "viz", "pages", "app"},  # the installed commands: files, modules
}
# Command lines a reader is told about (README, Makefile): each must still start under its name.
COMMANDS = [
    "training.train",
    "training.evaluate",
    "corpus.build",
    "transformer.translate",
    "training.train_tokenizer",
]


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_every_layer_has_modules_and_the_parser_sees_their_imports():
    """Guards against a vacuous pass: each layer exists and the known edges are found."""
    for layer, paths in LAYERS.items():
        assert paths, f"no modules found for {layer}"
    app_imports = {top(name) for name, _ in imports(ROOT / "pages" / "home.py")}
    assert {"ui", "streamlit"} <= app_imports, app_imports
    ui_imports = {top(name) for path in LAYERS["ui"] for name, _ in imports(path)}
    assert "transformer" in ui_imports and "streamlit" in ui_imports, ui_imports
    training_imports = {top(name) for path in LAYERS["training"] for name, _ in imports(path)}
    assert "transformer" in training_imports and "torch" in training_imports, training_imports


@pytest.mark.parametrize("layer", sorted(NEVER))
def test_imports_run_one_way_between_rooms(layer):
    """corpus -> training -> tasks -> transformer, never back; no room reaches into the app, nor the app
    into it (nor into the jobs: what the app shares with them is in tasks/)."""
    bad = sorted(
        (rel(path), name, line)
        for path in LAYERS[layer]
        for name, line in imports(path)
        if top(name) in NEVER[layer]
    )
    assert not bad, f"{layer} imports {bad}: corpus -> training -> tasks -> transformer (CONTRIBUTING.md)"


def test_the_room_rule_sees_a_backward_import():
    """The check above is not vacuous: a backward import written into each room is caught."""
    backward = [
        ("transformer", "from tasks import toy\n"),
        ("transformer", "from training import train\n"),
        ("training", "import corpus.build\n"),
        ("tasks", "from training.train import Trainer\n"),
        ("ui", "from training.numbers import data\n"),
        ("pages", "import training.evaluate\n"),
        ("corpus", "from ..ui import render\n"),
        ("viz", "from corpus.table import SOURCES\n"),
    ]
    for layer, source in backward:
        path = LAYERS[layer][0]
        assert {top(name) for name, _ in imports(path, source)} & NEVER[layer], (layer, source)


def test_command_line_modules_start_under_their_names(tmp_path):
    """`python -m MODULE --help` exits 0 with argparse's usage, run from outside the checkout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = {
        module: subprocess.Popen([sys.executable, "-m", module, "--help"], cwd=tmp_path, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for module in COMMANDS
    }  # fmt: skip
    for module, process in started.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, (module, err[-2000:])
        script = module.rpartition(".")[2] + ".py"
        assert out.startswith(f"usage: {script} [-h]"), (module, out[:300])
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module


def test_relative_imports_are_resolved():
    source = "from . import palette\nfrom .labels import readable\nfrom ..ui import render\n"
    names = {name for name, _ in imports(ROOT / "viz" / "heatmap.py", source)}
    assert {"viz.palette", "viz.labels", "viz.labels.readable", "ui", "ui.render"} <= names, names


@pytest.mark.parametrize("path", PAGE_FILES, ids=rel)
def test_pages_import_only_ui_viz_streamlit_and_stdlib(path):
    allowed = PAGE_ALLOWED | STDLIB
    bad = sorted({
        (name, line)
        for name, line in imports(path)
        if top(name) not in allowed and not name.startswith(PAGE_ALLOWED_TRANSFORMER)
    })
    assert not bad, f"{rel(path)} imports {bad}: pages go through ui/ (CONTRIBUTING.md)"


def test_app_imports_only_streamlit():
    """app.py runs before every page: anything more it imported would delay the home page's Figure 1. The
    exceptions: `ui.warm` (it starts the warm-up after the page), which imports only the standard library
    until its thread starts (tests/test_warm.py checks), `ui.lecture` (Back and Next after the page) and
    `ui.navigation` (the pages), Streamlit and `ui.state` alone (checked below)."""
    names = {name for name, _ in imports(ROOT / "app.py")} - {"ui", "ui.warm", "ui.lecture", "ui.navigation"}
    assert {top(name) for name in names} <= {"streamlit", "__future__"}, names


def test_the_lecture_path_module_is_as_light_as_app_py():
    light = {"streamlit", "ui", "ui.state", "ui.navigation"}
    for module in ("lecture", "navigation", "state"):
        names = {name for name, _ in imports(ROOT / "ui" / f"{module}.py")}
        heavy = {name for name in names if name not in light and top(name) not in STDLIB | {"streamlit"}}
        assert not heavy, f"ui/{module}.py imports {heavy}: app.py imports it before every page"


@pytest.mark.parametrize("path", PAGE_FILES, ids=rel)
def test_pages_do_no_tensor_math_and_build_no_figures(path):
    """The firmer half of the rule: a page never touches tensors, arrays, figures or the model itself."""
    bad = [
        (name, line)
        for name, line in imports(path)
        if top(name) in NUMERIC_LIBS or any(name == m or name.startswith(m + ".") for m in MODEL_MODULES)
    ]
    assert not bad, f"{rel(path)} imports {bad}: tensor math and figures belong in transformer/ and viz/"


@pytest.mark.parametrize("path", LAYERS["ui"], ids=rel)
def test_ui_never_imports_pages_or_app(path):
    bad = [(name, line) for name, line in imports(path) if top(name) in {"pages", "app"}]
    assert not bad, f"{rel(path)} imports {bad}"


@pytest.mark.parametrize("path", LAYERS["viz"], ids=rel)
def test_viz_is_pure_plotly(path):
    bad = []
    for name, line in imports(path):
        if top(name) in {"streamlit", "ui", "pages", "app"}:
            bad.append((name, line))
        elif any(name == m or name.startswith(m + ".") for m in MODEL_MODULES):
            bad.append((name, line))
        elif top(name) == "transformer" and name.count(".") == 1 and name.split(".")[1] in MODEL_NAMES:
            bad.append((name, line))
    assert not bad, f"{rel(path)} imports {bad}: viz takes arrays and labels, never Streamlit or the model"


@pytest.mark.parametrize("path", LAYERS["transformer"], ids=rel)
def test_transformer_is_pure_pytorch(path):
    bad = [
        (name, line)
        for name, line in imports(path)
        if top(name) in {"streamlit", "plotly", "ui", "viz", "pages", "app"}
    ]
    assert not bad, f"{rel(path)} imports {bad}: transformer/ stands on its own"


def test_home_draws_its_map_before_the_heavy_imports():
    """What the home page (pages/home.py) draws before the heavy imports loads neither PyTorch nor pandas.

    A fresh interpreter imports those modules and builds Figure 1 from the shipped config; if one of
    them pulled in PyTorch (~1.5 s on a cold server), the page would wait for it again. (numpy, ~0.1 s,
    is imported on purpose: see `ui.frame.HEAVY_IMPORTS`.)
    """
    code = (
        "import sys\n"
        "from ui import frame, home\n"
        "from viz.architecture import architecture_spec\n"
        "architecture_spec(frame.shipped_config().n_layers)\n"
        "print(sorted(m for m in ('torch', 'pandas') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
    # and the control: the page's later imports do load PyTorch (the check above can see it)
    code = "import sys\nimport ui.page\nprint('torch' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().endswith("True"), (done.stdout, done.stderr)


# What bench/ and tools/ may never import: the modules of tests/ (tests/server.py, conftest, the test files).
TEST_MODULES = {"tests"} | {path.stem for path in (ROOT / "tests").glob("*.py")}
SYS_PATH_CHANGES = {"insert", "append", "extend"}  # the methods of sys.path that add a folder


def names_a_path_into_tests(node: ast.AST, bound: set[str]) -> bool:
    """Whether `node` holds the string "tests" as a path part (ROOT / "tests", "../tests/x") or a name
    bound to such a path."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            if "tests" in sub.value.replace("\\", "/").split("/"):
                return True
        elif isinstance(sub, ast.Name) and sub.id in bound:
            return True
    return False


def uses_of_tests(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(what, line) for each import of a module of tests/ and each change to sys.path that adds tests/."""
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    found = sorted({(f"imports {top(name)}", line) for name, line in imports(path, text)
                    if top(name) in TEST_MODULES})  # fmt: skip
    bound: set[str] = set()  # names bound to a path into tests/ (TESTS = ROOT / "tests")
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and names_a_path_into_tests(node.value, bound):
            bound |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner, method = ast.unparse(node.func.value), node.func.attr
            changes = (owner == "sys.path" and method in SYS_PATH_CHANGES) or method == "addsitedir"
            arguments = ast.Tuple(elts=[*node.args, *(k.value for k in node.keywords)])
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            changes = any(ast.unparse(t).startswith("sys.path") for t in targets)
            arguments = node.value
        else:
            continue
        if changes and names_a_path_into_tests(arguments, bound):
            found.append((ast.unparse(node).splitlines()[0], node.lineno))
    return found


BENCH_AND_TOOLS = files("bench") + files("tools")


@pytest.mark.parametrize("path", BENCH_AND_TOOLS, ids=rel)
def test_bench_and_tools_never_import_the_tests(path):
    """The benchmarks and tools stand on the project alone: its tests/ may change or be left out without
    breaking them. The real server and browser they share with the tests live in tools/real_server.py."""
    bad = uses_of_tests(path)
    assert not bad, f"{rel(path)}: {bad}: import tools/real_server.py (or the project), never tests/"


def test_the_tests_rule_sees_an_import_from_tests():
    """The check above is not vacuous: bench/ and tools/ are found, and each way in is caught."""
    assert {ROOT / "bench" / "app.py", ROOT / "tools" / "screenshots.py"} <= set(BENCH_AND_TOOLS)
    assert "server" in TEST_MODULES and "conftest" in TEST_MODULES
    ways_in = [
        'sys.path[:0] = [str(ROOT), str(ROOT / "tests")]\n',  # how bench/ once reached tests/server.py
        'sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))\n',
        'sys.path.append("../tests")\n',
        'TESTS = ROOT / "tests"\nsys.path.insert(0, str(TESTS))\n',
        'sys.path += [os.path.join(ROOT, "tests")]\n',
        "site.addsitedir(ROOT / 'tests')\n",
        "from server import chromium, streamlit_server\n",
        "def main():\n    from server import discover_pages\n",
        "import tests.server\n",
        "from tests import server\n",
        "import conftest\n",
    ]
    for source in ways_in:
        assert uses_of_tests(ROOT / "bench" / "app.py", source), source
    fine = 'sys.path[:0] = [str(ROOT), str(ROOT / "tools")]\nfrom real_server import chromium\nimport serve\n'
    assert not uses_of_tests(ROOT / "bench" / "app.py", fine)
