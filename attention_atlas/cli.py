"""Console entry points (pyproject.toml, `[project.scripts]`).

`attention-atlas` is `make run` for an installed package: `streamlit run app.py` with the project's
`.streamlit/config.toml` passed as flags (Streamlit reads that file only from the working directory),
no usage statistics sent, and `ATLAS_MODEL_DIR` pointing at the shipped models. The translate and
evaluate commands are the modules' own command lines, with `--model` defaulting to the shipped model
wherever they are run from.
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def app_dir() -> Path:
    """The folder holding app.py, pages/, .streamlit/ and pretrained/: inside the installed package, or
    the repository's root in a checkout (and in an editable install)."""
    installed = HERE / "app"
    return installed if (installed / "app.py").is_file() else HERE.parent


def model_dir() -> Path:
    """The shipped models: ATLAS_MODEL_DIR (as for the app) or the app folder's pretrained/."""
    return Path(os.environ.get("ATLAS_MODEL_DIR") or app_dir() / "pretrained")


def config_flags(path: Path) -> list[str]:
    """A Streamlit config.toml as command-line flags: `[runner] postScriptGC = false` gives
    `--runner.postScriptGC false`."""
    if not path.is_file():
        return []
    flags = []
    for section, options in tomllib.loads(path.read_text(encoding="utf-8")).items():
        for name, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--{section}.{name}", text]
    return flags


def streamlit_command(argv: list[str] | None = None) -> list[str]:
    """The `streamlit run` command line that `attention-atlas ARGS` runs."""
    p = argparse.ArgumentParser(
        prog="attention-atlas",
        description="Start Attention Atlas: the app opens on http://localhost:PORT (Ctrl+C stops it). "
        "Arguments after the options go to `streamlit run` unchanged (e.g. --server.address 0.0.0.0).",
    )
    p.add_argument("--port", type=int, default=8501, help="port to serve on (default: 8501)")
    p.add_argument("--print-app", action="store_true", help="print the path of the app's app.py and exit")
    args, extra = p.parse_known_args(argv)
    app = app_dir() / "app.py"
    if args.print_app:
        print(app)
        raise SystemExit(0)
    return [
        sys.executable, "-m", "streamlit", "run", str(app),
        *config_flags(app_dir() / ".streamlit" / "config.toml"),  # every setting, the one place for them
        "--server.port", str(args.port),
        *extra,
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """`attention-atlas`: start the app on the shipped model."""
    command = streamlit_command(argv)
    port = command[command.index("--server.port") + 1]
    print(f"Attention Atlas: open http://localhost:{port} (Ctrl+C stops it).", flush=True)
    env = {**os.environ, "ATLAS_MODEL_DIR": str(model_dir())}
    # The launcher becomes the server (exec, not a child process): a stop signal sent to
    # `attention-atlas` reaches Streamlit itself instead of leaving it running without its parent.
    os.execve(command[0], command, env)


def with_model(argv: list[str] | None) -> list[str]:
    """Arguments with `--model` defaulting to the shipped model (a `--model` given later wins)."""
    return ["--model", str(model_dir()), *(sys.argv[1:] if argv is None else argv)]


def translate(argv: list[str] | None = None) -> None:
    """`attention-atlas-translate`: English on stdin, German on stdout (`python -m transformer.translate`).
    Ends the process when done (`transformer.translate.run`)."""
    from transformer.translate import run

    run(with_model(argv))


def evaluate(argv: list[str] | None = None) -> int:
    """`attention-atlas-evaluate`: BLEU and chrF of a model on a split (`python -m training.evaluate`)."""
    from training.evaluate import main as evaluate_main

    evaluate_main(with_model(argv))
    return 0
