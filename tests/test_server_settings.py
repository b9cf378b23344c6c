"""One set of Streamlit server settings: `make run`, `make serve`'s workers, `attention-atlas`, and the
servers of the tests and benchmarks start Streamlit with the same settings (.streamlit/config.toml),
differing only in port and address."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from attention_atlas import cli
from tests import server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import serve  # noqa: E402  (tools/serve.py, `make serve`)

WHERE = {"server.port", "server.address"}  # what each launcher may choose for itself


def settings(command: list[str]) -> dict[str, str]:
    """What the server runs with: the working folder's config.toml, then the command's flags on top."""
    assert command[1:4] == ["-m", "streamlit", "run"], command
    found = {
        f"{section}.{name}": str(value).lower() if isinstance(value, bool) else str(value)
        for section, options in tomllib.loads((ROOT / ".streamlit/config.toml").read_text()).items()
        for name, value in options.items()
    }
    flags = command[5:]
    for name, value in zip(flags[::2], flags[1::2], strict=True):
        assert name.startswith("--"), flags
        found[name[2:]] = value
    return found


def make_run_command() -> list[str]:
    """The command `make run` runs (make -n prints it), as the Streamlit command line it becomes."""
    printed = (
        subprocess.run(
            ["make", "-n", "run", "PORT=8765"], cwd=ROOT, capture_output=True, text=True, check=True
        )
        .stdout.strip()
        .splitlines()
    )
    line = shlex.split([ln for ln in printed if " -m " in ln][-1])
    assert line[1:3] == ["-m", "attention_atlas"], line  # `make run` is the `attention-atlas` command
    return cli.streamlit_command(line[3:])


def test_readers_server_settings_are_in_the_config_file():
    config = settings(cli.streamlit_command([]))
    assert config["server.fileWatcherType"] == "none"
    assert config["server.runOnSave"] == "false"
    assert config["server.headless"] == "true"
    assert config["browser.gatherUsageStats"] == "false"
    assert config["logger.hideWelcomeMessage"] == "true"  # its External URL line is a network lookup


def test_every_launcher_starts_streamlit_with_the_same_settings():
    launchers = {
        "make run": make_run_command(),
        "attention-atlas": cli.streamlit_command(["--port", "9000"]),
        "make serve worker": serve.worker_command(8601),
        "tests and bench server": server.streamlit_command(
            ["--port", "9001", "--server.address", "127.0.0.1"]
        ),
    }
    reference = {k: v for k, v in settings(launchers["make run"]).items() if k not in WHERE}
    assert len(reference) >= 5
    for name, command in launchers.items():
        own = {k: v for k, v in settings(command).items() if k not in WHERE}
        assert own == reference, name
    assert settings(launchers["make run"])["server.port"] == "8765"


def test_the_test_server_is_built_by_the_shared_command():
    """tools/real_server.py (which tests/server.py and bench/class_at_once.py start their servers
    through) adds no flag of its own: a setting changed in config.toml reaches it."""
    source = (ROOT / "tools" / "real_server.py").read_text(encoding="utf-8")
    assert "streamlit_command([" in source
    assert "fileWatcherType" not in source and "runOnSave" not in source
    bench = (ROOT / "bench" / "class_at_once.py").read_text(encoding="utf-8")
    assert "streamlit_server" in bench and "fileWatcherType" not in bench
