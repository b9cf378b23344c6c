"""`pip install .` gives working commands: the project is installed into a scratch virtual
environment, and its commands are run from a folder outside the repository.

The scratch environment gets no packages from the network: the project is installed with `--no-deps
--no-index --no-build-isolation`, and the requirements it declares (the pins of requirements.txt) are
the ones already installed in the environment running the tests, made visible to it by a `.pth`
file. (`venv --system-site-packages` would not do: inside .venv the "system" packages are those of
the Python that made .venv, without torch.) The project is copied first so that the build leaves
nothing behind in the checkout.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from attention_atlas import cli

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SENTENCES = ["The animal didn't cross the street.", "I like it."]
# What the copy leaves out: local state, the corpus and its downloads, caches, earlier builds.
IGNORE = shutil.ignore_patterns(".venv", ".git", "data", "runs", "artifacts", "build", "*.egg-info",
                                "__pycache__", ".pytest_cache", ".ruff_cache")  # fmt: skip


def requirement_lines() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(bin folder, environment for its commands, a working folder outside the repository)."""
    base = tmp_path_factory.mktemp("install")
    source, venv, outside = base / "source", base / "venv", base / "elsewhere"
    shutil.copytree(ROOT, source, ignore=IGNORE)
    outside.mkdir()
    # no pip or setuptools of its own: the build uses this environment's (setuptools ≥ 70.1, via the .pth)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    (Path(purelib) / "_atlas_requirements.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "ATLAS_MODEL_DIR", "VIRTUAL_ENV"}}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         "--no-index", "--no-build-isolation", str(source)],
        cwd=outside, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    shutil.rmtree(source)  # the installed commands must not need the copy either
    return venv / "bin", env, outside


def run(installed, command: str, *args: str, stdin: str = "", timeout: int = 300):
    bin_dir, env, outside = installed
    return subprocess.run([str(bin_dir / command), *args], input=stdin, cwd=outside, env=env,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def test_dependencies_are_the_pins_of_requirements_txt():
    assert PYPROJECT["project"]["dynamic"] == ["dependencies"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    assert requirement_lines() and all("==" in line for line in requirement_lines())


def test_every_code_package_is_declared():
    """A package added under a room is installed too (setuptools' list is explicit, see pyproject.toml)."""
    declared = set(PYPROJECT["tool"]["setuptools"]["packages"])
    for room in ("transformer", "training", "tasks", "corpus", "ui", "viz", "attention_atlas"):
        for init in (ROOT / room).rglob("__init__.py"):
            package = ".".join(init.parent.relative_to(ROOT).parts)
            assert package in declared, f"{package}: add it to [tool.setuptools] packages in pyproject.toml"


def test_config_toml_becomes_streamlit_flags():
    flags = cli.config_flags(ROOT / ".streamlit" / "config.toml")
    pairs = dict(zip(flags[::2], flags[1::2]))
    assert pairs["--runner.postScriptGC"] == "false" and pairs["--client.toolbarMode"] == "minimal"
    command = cli.streamlit_command(["--port", "8765", "--server.address", "0.0.0.0"])
    assert command[1:5] == ["-m", "streamlit", "run", str(ROOT / "app.py")]  # in a checkout: the root
    assert command[command.index("--server.port") + 1] == "8765"
    assert command[-2:] == ["--server.address", "0.0.0.0"]  # unknown arguments go to streamlit run
    assert command[command.index("--browser.gatherUsageStats") + 1] == "false"


def test_installed_metadata_declares_the_pins(installed):
    bin_dir, env, outside = installed
    code = "from importlib.metadata import requires; print('\\n'.join(requires('attention-atlas')))"
    done = subprocess.run([str(bin_dir / "python"), "-c", code], cwd=outside, env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    assert done.stdout.split() == requirement_lines()


def test_the_app_and_its_models_are_installed(installed):
    done = run(installed, "attention-atlas", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: attention-atlas"), done.stderr
    app = Path(run(installed, "attention-atlas", "--print-app").stdout.strip())
    assert app.is_file() and ROOT not in app.parents, app
    for folder in ("pages", "pretrained"):  # every page and every shipped file, new ones too
        tracked = sorted(p.relative_to(ROOT) for p in (ROOT / folder).rglob("*")
                         if p.is_file() and "__pycache__" not in p.parts)  # fmt: skip
        assert tracked and all((app.parent / p).is_file() for p in tracked), folder
    assert (app.parent / ".streamlit" / "config.toml").is_file()


def test_installed_translate_gives_what_the_module_gives(installed):
    """The installed command, run from outside the checkout, finds the shipped model by itself."""
    done = run(installed, "attention-atlas-translate", "--beam", "1", stdin="\n".join(SENTENCES) + "\n")
    assert done.returncode == 0, done.stderr[-2000:]
    here = subprocess.run(
        [sys.executable, "-m", "transformer.translate", "--beam", "1"], cwd=ROOT,
        input="\n".join(SENTENCES) + "\n", capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert len(lines) == len(SENTENCES) and all(lines), done.stdout
    assert lines == here.stdout.splitlines()


def test_installed_evaluate_scores_a_shipped_model(installed):
    app = Path(run(installed, "attention-atlas", "--print-app").stdout.strip())
    numbers = app.parent / "pretrained" / "numbers"  # ships its held-out phrases: no corpus needed
    done = run(installed, "attention-atlas-evaluate", "--model", str(numbers), "--limit", "3", "--beam", "0")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{numbers} on {numbers / 'heldout'}/test (3 sentences)" in done.stdout, done.stdout


def test_the_installed_home_page_runs_on_the_installed_model(installed):
    """The installed app.py and pages, with the model folder the launcher hands them (AppTest)."""
    bin_dir, env, outside = installed
    code = (
        "import os\n"
        "from attention_atlas import cli\n"
        "os.environ['ATLAS_MODEL_DIR'] = str(cli.model_dir())\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file(str(cli.app_dir() / 'app.py'), default_timeout=300)\n"
        "at.query_params['s'] = 'I like it.'\n"
        "at.run()\n"
        "assert not at.exception, [e.message for e in at.exception]\n"
        "print(cli.model_dir())\n"
        "print(at.expander[0].label)\n"
        "print(len(at.text))\n"
    )
    done = subprocess.run([str(bin_dir / "python"), "-c", code], cwd=outside, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    model, label, translations = done.stdout.splitlines()[-3:]
    assert ROOT not in Path(model).parents and label.startswith("Model card"), done.stdout
    assert int(translations) == 2  # greedy and beam, from the installed weights


def test_attention_atlas_starts_the_server(installed):
    """`attention-atlas --port P` serves: Streamlit's health check answers, then Ctrl+C-like stop."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bin_dir, env, outside = installed
    server = subprocess.Popen([str(bin_dir / "attention-atlas"), "--port", str(port), "--server.address",
                               "127.0.0.1"], cwd=outside, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        deadline, answer = time.monotonic() + 120, ""
        while time.monotonic() < deadline and server.poll() is None and answer != "ok":
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    answer = r.read().decode()
            except OSError:
                time.sleep(0.5)
        assert answer == "ok", (server.poll(), server.stdout.read() if server.poll() is not None else "")
    finally:
        server.terminate()
        server.wait(timeout=30)
    with pytest.raises(OSError):  # the stop reached the server itself: nothing is left on the port
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
