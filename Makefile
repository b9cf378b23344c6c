# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
PORT ?= 8501
# The step the shipped weights were trained to (pretrained/MODEL_CARD.md): `make train` goes on with
# the learning-rate schedule from there instead of warming up to the peak rate again.
SHIPPED_STEP := 36119

.PHONY: run serve nginx-deps test test-cuda lint format data tokenizer train train-everyday train-scratch data-stage1 train-numbers train-ablations export head-stats bench bench-class browser-deps screenshots clean

# The first install is quiet but long: say what it is doing, then show pip's own messages only on error.
$(STAMP): requirements.txt
	@echo "Creating $(VENV) and installing requirements.txt (PyTorch CPU, Streamlit, Plotly...)."
	@echo "The first time this takes about 2 minutes and 1.5 GB of disk; later runs skip it."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@echo "Installed."
	touch $@

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	@echo "Installing the development tools of requirements-dev.txt (pytest, ruff, Playwright)..."
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(STAMP)  ## start the app on the shipped model
	$(PY) -m attention_atlas --port $(PORT)

WORKERS ?= 2
serve: $(STAMP) nginx-deps  ## WORKERS Streamlit processes behind nginx, sticky sessions (a class larger than one process)
	$(PY) tools/serve.py --workers $(WORKERS) --port $(PORT)

nginx-deps:  ## Debian's nginx for `make serve` (installed with apt-get when missing)
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq nginx-light >/dev/null; fi; }

browser-deps:  ## Debian's Chromium for the real-browser tests (Playwright drives it, never downloads one)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

test: $(DEV_STAMP) browser-deps  ## install everything and run the tests
	$(PY) -m ruff check .
	$(PY) -m pytest -q --durations=15 -n 2 --dist loadscope

test-cuda: $(DEV_STAMP)  ## model, decoding, trace and a training step on the GPU vs the CPU (needs a CUDA build of torch)
	$(PY) -m pytest -q tests/test_device.py --device cuda

screenshots: $(DEV_STAMP) browser-deps  ## regenerate the README's docs/screenshots/*.png (headless Chromium)
	$(PY) tools/screenshots.py

lint: $(DEV_STAMP)
	$(PY) -m ruff check .

format: $(DEV_STAMP)
	$(PY) -m ruff format .

# The training mixture (docs/CORPUS.md, pretrained/MODEL_CARD.md): the Debian sources at corpus.table's
# weights plus the committed Tatoeba sentences (corpus/tatoeba/, CC-BY 2.0), Tatoeba at 4 and Ding at 6
# (chosen over Tatoeba 2 / Ding 9 in a controlled run), plus corpus.number_variants pairs (weight 6).
# The tokenizer counts the lines of that mixture, Tatoeba's and Ding's ten times, and keeps the
# symbols of training/tokenizer_symbols.txt ($ % € £ ...) as pieces of their own.
MIX ?= --weight tatoeba=4 --weight ding=6
SPM := --vocab-size 16000 --repeat ding=10 --repeat tatoeba=10 --byte-fallback

data: $(STAMP)  ## build the EN-DE corpus (Debian packages + Tatoeba) and train the tokenizer
	$(PY) -m corpus.build --out data/corpus-debian --per-source
	$(PY) -m corpus.mix --debian data/corpus-debian --out data/corpus $(MIX)
	$(PY) -m training.train_tokenizer --corpus data/corpus --out data/spm $(SPM) \
	  --symbols training/tokenizer_symbols.txt

# The first stage of the everyday model had neither the number variants nor the symbols: its corpus
# and tokenizer (the tokenizer counted the Tatoeba-2 mixture's lines).
data-stage1: $(STAMP)
	@test -f data/corpus-debian/valid.en || $(MAKE) data
	$(PY) -m corpus.mix --debian data/corpus-debian --out data/corpus-spm1 --weight numbers=0
	$(PY) -m training.train_tokenizer --corpus data/corpus-spm1 --out data/spm1 $(SPM)
	$(PY) -m corpus.mix --debian data/corpus-debian --out data/corpus1 $(MIX) --weight numbers=0

# How every run of the everyday model evaluates: loss on the everyday, Ding and technical dev splits.
VALID := --valid-splits valid-everyday,valid,valid-tech

train: $(STAMP)  ## continue training from the shipped weights (see pretrained/MODEL_CARD.md)
	@test -f data/corpus/valid-everyday.en || $(MAKE) data
	if [ -f runs/base/checkpoint.pt ]; then \
	  $(PY) -m training.train --corpus data/corpus --out runs/base --resume $(VALID); else \
	  $(PY) -m training.train --corpus data/corpus --out runs/base $(VALID) \
	    --init pretrained --spm pretrained/spm.model --start-step $(SHIPPED_STEP); fi

# The shipped everyday model from the start, in two stages (docs/TRAINING_LOG.md, issue 29). Stage 1:
# the step-121,000 weights of the model shipped before it (commit bbb18de, from git history), carried
# over to the stage-1 tokenizer, trained from step 4,000 to STAGE1_STEP. Stage 2: that step's weights
# carried over to data/spm (the symbols), trained on data/corpus (the number variants) to STAGE2_STEP.
# Stage 3: a copy of stage 2's end takes the learning rate linearly to 0 by SHIPPED_STEP (the cool-down).
# Every stage resumes where it stopped.
EVERYDAY_FROM := bbb18de
STAGE1_STEP := 12728
STAGE2_STEP := 32119
train-everyday: $(STAMP) data-stage1  ## retrain the shipped model the way it was made (needs git history)
	mkdir -p runs/step121000 runs/stage1-end
	for f in config.json model.safetensors spm.model; do \
	  git show $(EVERYDAY_FROM):pretrained/$$f > runs/step121000/$$f; done
	$(PY) -m training.vocab_transfer --model runs/step121000 --spm data/spm1/spm.model --out runs/transfer1
	if [ -f runs/everyday1/checkpoint.pt ]; then \
	  $(PY) -m training.train --corpus data/corpus1 --out runs/everyday1 --resume $(VALID) --steps $(STAGE1_STEP); else \
	  $(PY) -m training.train --corpus data/corpus1 --out runs/everyday1 $(VALID) \
	    --init runs/transfer1 --spm data/spm1/spm.model --start-step 4000 --steps $(STAGE1_STEP); fi
	cp runs/everyday1/config.json runs/everyday1/spm.model runs/stage1-end/
	cp runs/everyday1/snapshots/step_$$(printf %07d $(STAGE1_STEP)).safetensors runs/stage1-end/model.safetensors
	$(PY) -m training.vocab_transfer --model runs/stage1-end --spm data/spm/spm.model --out runs/transfer
	if [ -f runs/everyday/checkpoint.pt ]; then \
	  $(PY) -m training.train --corpus data/corpus --out runs/everyday --resume $(VALID) --steps $(STAGE2_STEP); else \
	  $(PY) -m training.train --corpus data/corpus --out runs/everyday $(VALID) \
	    --init runs/transfer --spm data/spm/spm.model --start-step $(STAGE1_STEP) --steps $(STAGE2_STEP); fi
	test -f runs/everyday-cool/checkpoint.pt || cp -r runs/everyday runs/everyday-cool
	$(PY) -m training.train --corpus data/corpus --out runs/everyday-cool --resume $(VALID) \
	  --cooldown-at $(STAGE2_STEP) --cooldown-steps $$(( $(SHIPPED_STEP) - $(STAGE2_STEP) ))

# The same architecture, mixture and tokenizer from scratch, without the warm start (issue 29: the
# paper trains from scratch). Hours of CPU: it resumes exactly where it stopped, run after run.
train-scratch: $(STAMP)  ## train the shipped architecture from scratch on data/corpus (resumes; many hours on CPU)
	@test -f data/corpus/valid-everyday.en || $(MAKE) data
	if [ -f runs/scratch/checkpoint.pt ]; then \
	  $(PY) -m training.train --corpus data/corpus --out runs/scratch --resume $(VALID); else \
	  $(PY) -m training.train --corpus data/corpus --out runs/scratch $(VALID) --spm data/spm/spm.model; fi

train-numbers: $(STAMP)  ## retrain the numbers model from scratch into pretrained/numbers (~16 min on 2 cores)
	$(PY) -m training.numbers.train --out pretrained/numbers
	$(PY) -m training.head_stats pretrained/numbers

train-ablations: $(STAMP)  ## retrain the "Why these choices?" variants into pretrained/ablations (~4 h on 2 cores; resumes)
	$(PY) -m training.numbers.ablations

export: $(STAMP)
	$(PY) -m training.train --out runs/base --export pretrained
	$(PY) -m training.head_stats pretrained

head-stats: $(STAMP)  ## the head inspector's statistics beside each shipped model's weights (rerun after new weights)
	$(PY) -m training.head_stats pretrained $(wildcard pretrained/numbers pretrained/wide)

bench-class: $(DEV_STAMP)  ## a class at once: N websocket sessions, p50/p95/max to a finished page (bench/README.md)
	$(PY) bench/class_at_once.py

bench: $(DEV_STAMP)
	$(PY) bench/forward.py
	$(PY) bench/app.py
	$(PY) bench/train_step.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
