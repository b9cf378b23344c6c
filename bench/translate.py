"""The command-line translator: start-up and sentences per second, batched against line by line.

    python bench/translate.py [--model pretrained] [--repeats 3] [--threads N]

Start-up: wall time of `echo | attention-atlas-translate` (the console entry point, run as
`python -c "from attention_atlas.cli import translate; ..."` so that no install is needed): process
start, imports, model load, the answer to one empty line, exit. Beside it, the same with the command
run as before (`transformer.translate.main` returning to a normal interpreter exit, PyTorch's default
threads). Medians of `--repeats` runs, the two interleaved.

Speed: the 40 classroom-length English sentences below (5–15 words), translated in-process by the
shipped model, greedy and beam 4 (the model's α), by `translate_stream` (batched) and by
`translate_line` once per line (the path the command took before), on the command's PyTorch threads.
Medians of `--repeats` interleaved runs after a warm-up; the script checks that both paths give the
same German, line for line.

The machine reference (bench/reference.py: 2000 matmuls of 256 × 256 float32 on one thread) and the
load average are printed beside the figures, so that runs on other machines or under other load compare.
Targets (2-core machine): start-up ≤ 3 s; beam 4 ≥ 5 sentences/s.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reference import LINE, machine_reference  # noqa: E402  (bench/reference.py)

SENTENCES = [
    "The house at the end of our street is small.",
    "My sister reads a book every evening.",
    "We are going to the cinema tomorrow.",
    "The teacher writes the date on the board.",
    "It is raining, so we stay at home.",
    "Can you help me with my homework?",
    "The train to Berlin leaves at eight o'clock.",
    "I have never seen such a beautiful garden.",
    "The children play football in the park after school.",
    "My grandmother lives in a small village near the sea.",
    "Please close the window, it is cold.",
    "He drinks a cup of coffee every morning.",
    "The museum is closed on Mondays.",
    "We learned about the French Revolution today.",
    "The dog is sleeping under the table.",
    "She wants to become a doctor when she grows up.",
    "Our school has a new library with many computers.",
    "The weather will be sunny and warm this weekend.",
    "I forgot my keys at my friend's house.",
    "They bought fresh bread and cheese at the market.",
    "The students are writing an exam in mathematics.",
    "How much does this ticket cost?",
    "My brother plays the guitar in a band.",
    "The meeting starts in ten minutes.",
    "We should protect the environment for future generations.",
    "The city council decided to build a new bridge.",
    "I would like to order a glass of water, please.",
    "The film was longer than we expected.",
    "Many people travel to the mountains in winter.",
    "The scientist explained her results to the public.",
    "Do you know where the station is?",
    "The shop on the corner sells old records.",
    "My parents gave me a bicycle for my birthday.",
    "The river flows through the middle of the town.",
    "Learning a new language takes time and patience.",
    "The government announced new rules for schools yesterday.",
    "We waited for the bus for half an hour.",
    "The cat jumped onto the roof of the car.",
    "Everyone in the class laughed at the joke.",
    "The old castle on the hill is open to visitors in summer.",
]


NEW_START = "import sys; from attention_atlas.cli import translate; sys.exit(translate())"
# How the command ran before: `main` returned to a normal interpreter exit, on PyTorch's default threads.
OLD_START = "import sys; from transformer.translate import main; sys.exit(main(sys.argv[1:]))"


def startup(code: str, model: str, repeats: int) -> float:
    """Median wall seconds of `echo | python -c CODE --model MODEL` in a fresh process."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", code, "--model", model, "--device", "cpu"],
            input=b"\n",
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
        )
        times.append(time.perf_counter() - start)
        assert done.returncode == 0 and done.stdout == b"\n", done.stderr.decode()
    return statistics.median(times)


def per_line(loaded, beam: int, alpha: float) -> list[str]:
    """The old path: `translate_line` once per line."""
    from transformer.translate import translate_line

    return [translate_line(loaded.model, loaded.tokenizer, s, beam, alpha)[0] for s in SENTENCES]


def batched(loaded, beam: int, alpha: float) -> list[str]:
    """The command's path: `translate_stream` over the lines as one input."""
    from transformer.translate import translate_stream

    out = io.StringIO()
    text = io.StringIO("".join(s + "\n" for s in SENTENCES))
    translate_stream(loaded.model, loaded.tokenizer, text, out, io.StringIO(), beam, alpha)
    return out.getvalue().split("\n")[:-1]


def timed(run, *args) -> tuple[float, list[str]]:
    """Sentences per second of one `run`, and its German."""
    start = time.perf_counter()
    german = run(*args)
    return len(SENTENCES) / (time.perf_counter() - start), german


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=str(ROOT / "pretrained"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument(
        "--threads", type=int, default=None, help="PyTorch threads in-process (default: the command's)"
    )
    args = p.parse_args()
    assert all(5 <= len(s.split()) <= 15 for s in SENTENCES) and len(SENTENCES) == 40
    print(f"load average before: {load()}")
    reference = machine_reference()
    print(f"{LINE}: {reference:.2f} s")
    new_start, old_start = [], []
    for _ in range(args.repeats):  # interleaved, so that a change in load hits both
        new_start.append(startup(NEW_START, args.model, 1))
        old_start.append(startup(OLD_START, args.model, 1))
    new, old = statistics.median(new_start), statistics.median(old_start)
    print(f"start-up, echo | attention-atlas-translate: {new:.2f} s (target <= 3 s); as before: {old:.2f} s")

    import torch

    from transformer.pretrained import load_pretrained
    from transformer.translate import THREADS

    torch.set_num_threads(args.threads or THREADS)  # as the command does
    loaded = load_pretrained(args.model, "cpu")
    print(f"PyTorch threads: {torch.get_num_threads()}; alpha {loaded.decoding.alpha}")
    for beam in (1, 4):
        run_args = (loaded, beam, loaded.decoding.alpha)
        batched(*run_args), per_line(*run_args)  # warm-up
        new_runs, old_runs = [], []
        for _ in range(args.repeats):
            new_runs.append(timed(batched, *run_args))
            old_runs.append(timed(per_line, *run_args))
        assert new_runs[0][1] == old_runs[0][1], "batched and per-line translations differ"
        new = statistics.median(rate for rate, _ in new_runs)
        old = statistics.median(rate for rate, _ in old_runs)
        name = "greedy" if beam == 1 else f"beam {beam}"
        target = " (target >= 5)" if beam > 1 else ""
        print(
            f"{name:6} sentences/s: batched {new:6.1f}{target}; per line {old:5.1f}; new/old {new / old:.1f}x"
        )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
