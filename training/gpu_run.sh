#!/usr/bin/env bash
# The wide model's run on a lent GPU (docs/TRAINING_LOG.md), from the repository root of a machine that
# has PyTorch with CUDA, SentencePiece, sacrebleu and safetensors (no venv: its own python3).
#
# It reads the training corpus from .gpu/corpus.tar.xz (made here by `python -m training.pack_corpus pack
# data/corpus .gpu/corpus.tar.xz`; carried, as it is git-ignored), trains d_model 256 from scratch for MINUTES (the last COOL of them a linear cool-down to 0),
# first checking the whole path with a 20-step run. With INIT (a model directory, carried) and START (the step
# its weights were trained to; the shipped model: INIT=pretrained START=9384) it goes on from those weights instead, its rate re-warmed over REWARM steps.
# `training.gpu_probe` first times batch sizes and profiles a step (OUT/profile.txt); the fastest size
# is used. It writes to $OUT: the weights as fp16 in parts (a file coming back may hold at most 16 MiB:
# two for the 16,000-piece model, three for 32,000 pieces), config.json, log.jsonl and train.log. Join
# them with `python -m training.send_weights join`.
# The device copies at most 64 MiB of working tree: with the corpus and a model folder carried, take the
# large tracked files it does not need out of git's index for the call (`git rm -r --cached -q
# pretrained/ablations pretrained/numbers corpus/tatoeba`, the same paths in .git/info/exclude), then
# `git reset -q` and restore .git/info/exclude after it.
# MORE=1, on the same still-warm machine after such a run: `--resume` runs/w256 for MINUTES more (the
# corpus, the probe's batch size and the checkpoint are still there), then the same files back.
set -euo pipefail
MINUTES=${MINUTES:-7}
COOL=${COOL:-1.5}
OUT=${OUT:-runs/gpu-out}
INIT=${INIT:-}
START=${START:-0}
REWARM=${REWARM:-300}
SEED=${SEED:-1}
SPM=${SPM:-pretrained/spm.model}  # another tokenizer (carried, e.g. .gpu/spm32k.model) only from scratch
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
DEVICE=${DEVICE:-cuda}  # DEVICE=cpu: the whole path rehearsed here, slowly (no GPU check, no CUDA test)
[ "$DEVICE" = cpu ] || nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c 'import torch, sentencepiece, sacrebleu, safetensors; print("torch", torch.__version__)'
MORE=${MORE:-}
PACK=${PACK:-.gpu/corpus.tar.xz}  # another packed corpus (carried), e.g. .gpu/corpus-joined.tar.xz
[ -n "$MORE" ] || python3 -m training.pack_corpus unpack "$PACK" data/corpus

TOKENS=16000
FROM=()
if [ -n "$MORE" ]; then
  TOKENS=$(cat runs/w256/max-tokens.txt)
  FROM=(--resume)
elif [ -n "$INIT" ]; then
  if ! TOKENS=$(python3 -m training.gpu_probe --init "$INIT" --out "$OUT" | tee "$OUT/probe.log" | tail -1) \
    || ! [[ "$TOKENS" =~ ^[0-9]+$ ]]; then
    TOKENS=16000  # the probe failed: the batch size of the first run
  fi
  FROM=(--init "$INIT" --start-step "$START" --rewarm-steps "$REWARM")
fi
mkdir -p runs/w256 && echo "$TOKENS" > runs/w256/max-tokens.txt
VALID=valid-everyday,valid,valid-tech
[ -f data/corpus/valid-lecturer.en ] && VALID=$VALID,valid-lecturer  # packed with the corpus when it has it
WIDE=(--corpus data/corpus --spm "$SPM" --d-model 256 --d-ff 1024 --n-heads 8
  --device "$DEVICE" --amp "$([ "$DEVICE" = cpu ] && echo none || echo bf16)" --max-tokens "$TOKENS" --warmup 1500 --lr-scale 0.5 --seed "$SEED"
  --valid-splits "$VALID" --snapshot-minutes 100 --keep-snapshots 1 "${FROM[@]}")

[ -n "$MORE" ] || python3 -m training.train "${WIDE[@]}" --out runs/smoke --steps $((START + 20)) \
  --eval-every 10 --health-sentences 20 --eval-sentences 20 2>&1 | tail -5
python3 -m training.train "${WIDE[@]}" --out runs/w256 --minutes "$MINUTES" --cooldown-minutes "$COOL" \
  --eval-every "${EVAL_EVERY:-2000}" 2>&1 | tee "$OUT/train.log"

python3 -m training.send_weights split "$(ls runs/w256/snapshots/step_*.safetensors | sort | tail -1)" "$OUT"
for f in config.json log.jsonl; do [ ! -f "runs/w256/$f" ] || cp "runs/w256/$f" "$OUT"/; done  # no log before step 50

# The CUDA path once (`make test-cuda` without the venv): model, decoding, trace, a step, GPU vs CPU, on
# the carried model folder; not again after MORE=1 (the first call ran it, and no folder was named).
[ -n "$MORE" ] || [ "$DEVICE" = cpu ] || timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_device.py --device cuda --device-model "${INIT:-pretrained}" 2>&1 | tail -3 | tee "$OUT/test-cuda.log"
