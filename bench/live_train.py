"""Train it yourself: how long the page's run takes to learn its task on this CPU.

Runs exactly what the page runs, without the browser: the server-wide `ui.live_train.Coordinator`
with the page's caps, its worker thread (PyTorch on one thread) and its trainer
(`tasks.toy.ToyTrainer`, the project's `train_step`). A heartbeat every 0.5 s plays
the open tab. Reports, per task, when the exact match on 200 fresh sequences (greedy decoding,
measured every 50 steps) first reached 95% and when the run stopped (solved at 99%, or a cap); the
times are the run's own wall clock, evaluations included.

    .venv/bin/python bench/live_train.py                   # reverse, then copy
    .venv/bin/python bench/live_train.py --kinds reverse --repeats 3

Target: ≥ 95% exact match within 90 s. Run with nothing else on the CPU (pause a training run with
`kill -STOP`, resume it with `kill -CONT`). Writes artifacts/bench_live_train.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ui.live_train import FINISHED, Coordinator  # noqa: E402

TARGET_S = 90.0


def one_run(kind: str) -> dict:
    coordinator = Coordinator()  # the page's caps
    owner = f"bench-{kind}"
    coordinator.submit(owner, kind)
    while (status := coordinator.status(owner)).state != FINISHED:  # each call is the tab's heartbeat
        time.sleep(0.5)
    first = status.first_above
    return {
        "kind": kind,
        "reason": status.reason,
        "steps": status.step,
        "seconds": round(status.seconds, 1),
        "final_exact_match": status.exact_match,
        "first_95_step": first[0] if first else None,
        "first_95_seconds": round(first[2], 1) if first else None,
        "evals": [[s, e, round(t, 1)] for s, e, t in status.evals],
        "alignment_per_layer": list(status.alignment),
        "pass": bool(first and first[2] <= TARGET_S),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--kinds", default="reverse,copy")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    report = {"load_before": os.getloadavg(), "cpus": os.cpu_count(), "target_s": TARGET_S, "runs": []}
    for kind in args.kinds.split(","):
        for _ in range(args.repeats):
            result = one_run(kind.strip())
            report["runs"].append(result)
            r = result
            print(
                f"{r['kind']:8s} ≥95% at step {r['first_95_step']} after {r['first_95_seconds']} s; "
                f"stopped ({r['reason']}) at step {r['steps']} after {r['seconds']} s, exact "
                f"match {r['final_exact_match']}  {'pass' if r['pass'] else 'MISS'}",
                flush=True,
            )
    report["load_after"] = os.getloadavg()
    out = ROOT / "artifacts" / "bench_live_train.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    before, after = report["load_before"][0], report["load_after"][0]
    print(f"load average before {before:.2f}, after {after:.2f}; wrote {out}")
    return 0 if all(r["pass"] for r in report["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
