"""The weights a GPU run sends back (`training/gpu_run.sh`), in parts each under the size a returned file
may hold, and the parts joined again into a model directory here.

    python -m training.send_weights split runs/w256/snapshots/step_009384.safetensors OUT   # on the GPU
    python -m training.send_weights join /work/.device/files --out runs/w256-gpu [--spm MODEL]

A part is `weights-a.safetensors`, `weights-b…`: float16, tensors dealt out largest first to the lightest
part, as few parts as keep each under `PART_LIMIT` (two at least). The joined directory gets
config.json (sent beside the parts), model.safetensors (float16, as sent: `load_weights` copies it into
the model's float32 parameters) and the tokenizer the run was trained with (the shipped one unless
`--spm` names another, e.g. .gpu/spm32k.model).
"""

from __future__ import annotations

import argparse
import math
import shutil
import string
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from transformer import pretrained
from transformer.model import Transformer

PART_LIMIT = 16 * 2**20 - 64 * 2**10  # tensor bytes per part: a returned file holds 16 MiB, header included
PREFIX = "weights-"


def split(state: dict[str, torch.Tensor], out: Path, limit: int = PART_LIMIT) -> list[Path]:
    """Write `state` as float16 parts into `out`; returns their paths."""
    half = {k: v.half().contiguous() for k, v in state.items()}
    size = {k: v.numel() * v.element_size() for k, v in half.items()}
    if max(size.values()) > limit:
        raise ValueError(f"a tensor of {max(size.values())} bytes cannot fit in a part of {limit}")
    count = max(2, math.ceil(sum(size.values()) / limit))
    while True:
        parts: list[list[str]] = [[] for _ in range(count)]
        for key in sorted(half, key=lambda k: -size[k]):
            min(parts, key=lambda p: sum(size[k] for k in p)).append(key)
        if max(sum(size[k] for k in p) for p in parts) <= limit:
            break
        count += 1  # dealt out unevenly: one part more
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for letter, keys in zip(string.ascii_lowercase, parts, strict=False):
        paths.append(out / f"{PREFIX}{letter}.safetensors")
        save_file({k: half[k] for k in keys}, str(paths[-1]))
    return paths


def join(sent: Path, out: Path, spm: Path) -> Path:
    """The parts in `sent` (and its config.json) as one model directory `out`, checked by loading it."""
    files = sorted(sent.glob(f"{PREFIX}*.safetensors"))
    if not files:
        raise FileNotFoundError(f"no {PREFIX}*.safetensors in {sent}")
    state = {k: v for f in files for k, v in load_file(str(f)).items()}
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sent / pretrained.CONFIG_FILE, out / pretrained.CONFIG_FILE)
    shutil.copyfile(spm, out / pretrained.TOKENIZER_FILE)
    save_file(state, str(out / pretrained.WEIGHTS_FILE))
    pretrained.load_weights(Transformer(pretrained.load_config(out)), out / pretrained.WEIGHTS_FILE)  # checks
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("split", help="a snapshot's weights as float16 parts")
    s.add_argument("snapshot", type=Path)
    s.add_argument("out", type=Path)
    j = sub.add_parser("join", help="the parts sent back as one model directory")
    j.add_argument("sent", type=Path, help=f"the folder holding {PREFIX}*.safetensors and config.json")
    j.add_argument("--out", type=Path, required=True)
    j.add_argument("--spm", type=Path, default=Path("pretrained/spm.model"))
    a = p.parse_args(argv)
    if a.command == "split":
        paths = split(load_file(str(a.snapshot)), a.out)
        print(f"saved {a.snapshot.name} in {len(paths)} parts:", ", ".join(p.name for p in paths))
    else:
        print("joined into", join(a.sent, a.out, a.spm))


if __name__ == "__main__":
    main()
