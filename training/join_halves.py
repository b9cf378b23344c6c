"""Join the two fp16 halves that `training/gpu_run.sh` sends back into one model directory.

    python -m training.join_halves /work/.device/files --out runs/w256-gpu

The directory gets config.json, model.safetensors (fp16, as sent: `load_weights` copies it into the
model's fp32 parameters) and the shipped spm.model the run was trained with.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from safetensors.torch import load_file, save_file

from transformer import pretrained
from transformer.model import Transformer


def join(sent: Path, out: Path, spm: Path) -> Path:
    state = {k: v for half in "ab" for k, v in load_file(str(sent / f"weights-{half}.safetensors")).items()}
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sent / pretrained.CONFIG_FILE, out / pretrained.CONFIG_FILE)
    shutil.copyfile(spm, out / pretrained.TOKENIZER_FILE)
    save_file(state, str(out / pretrained.WEIGHTS_FILE))
    pretrained.load_weights(Transformer(pretrained.load_config(out)), out / pretrained.WEIGHTS_FILE)  # checks
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("sent", type=Path, help="the folder holding weights-a/b.safetensors and config.json")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--spm", type=Path, default=Path("pretrained/spm.model"))
    a = p.parse_args(argv)
    print("joined into", join(a.sent, a.out, a.spm))


if __name__ == "__main__":
    main()
