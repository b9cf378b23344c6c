"""DistributedDataParallel through `torchrun`: two CPU processes (gloo) on a tiny config end every
step with identical weights, and rank 0's checkpoint is that shared state."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file
from test_train import trainer_args, write_corpus

ROOT = Path(__file__).resolve().parents[1]

# Runs under torchrun: trains with the real Trainer, then writes what this rank ended with.
WORKER = """
import sys
import torch.distributed as dist
from safetensors.torch import save_file
from training import train
from transformer import pretrained

trainer = train.Trainer(train.parse_args(sys.argv[1:]))
out = trainer.out
out.mkdir(parents=True, exist_ok=True)
save_file(pretrained.weights_state(trainer.model), str(out / f"init_rank{trainer.rank}.safetensors"))
trainer.train()
save_file(pretrained.weights_state(trainer.model), str(out / f"rank{trainer.rank}.safetensors"))
print(f"rank {trainer.rank} of {trainer.world}: step {trainer.progress.step}", flush=True)
dist.destroy_process_group()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_gloo_processes_end_each_step_with_identical_weights(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    out = tmp_path / "run"
    script = tmp_path / "worker.py"
    script.write_text(WORKER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", "2",
        "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
        str(script), *trainer_args(corpus, out, "--steps", "2"),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "rank 0 of 2: step 2" in done.stdout and "rank 1 of 2: step 2" in done.stdout

    ranks = [load_file(str(out / f"rank{r}.safetensors")) for r in (0, 1)]
    inits = [load_file(str(out / f"init_rank{r}.safetensors")) for r in (0, 1)]
    assert ranks[0].keys() == ranks[1].keys()
    for name in ranks[0]:
        assert torch.equal(ranks[0][name], ranks[1][name]), f"{name} differs between the ranks"
        assert torch.equal(inits[0][name], inits[1][name]), f"{name} started differently"
    for name in (
        "src_embed.lut.weight",
        "encoder.layers.0.ffn.w_1.weight",
        "decoder.layers.1.cross_attn.w_q.weight",
    ):
        assert not torch.equal(ranks[0][name], inits[0][name]), f"{name} was not trained"

    saved = torch.load(out / "checkpoint.pt", weights_only=True)
    for name, value in ranks[1].items():
        assert torch.equal(saved["model"][name], value)
    assert saved["progress"]["step"] == 2
