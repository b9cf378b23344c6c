# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
PORT ?= 8501
# The step the shipped weights were trained to (pretrained/MODEL_CARD.md): `make train` goes on with
# the learning-rate schedule from there, re-warmed over 300 steps as each GPU run after the first was.
SHIPPED_STEP := 9384
# The shipped model's shape and schedule: d_model 256, d_ff 1,024, the paper's rate x 0.5 with 1,500
# warm-up steps (training/gpu_run.sh trains it the same way on a GPU, with larger batches).
WIDE := --d-model 256 --d-ff 1024 --n-heads 8 --warmup 1500 --lr-scale 0.5 --spm pretrained/spm.model

.PHONY: run serve nginx-deps test test-cuda lint format data tokenizer train train-scratch train-numbers train-ablations export head-stats bench bench-class browser-deps screenshots clean

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

test: $(DEV_STAMP) browser-deps nginx-deps  ## install everything and run the tests
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

# How every run of the everyday model evaluates: loss on the everyday, Ding and technical dev splits.
VALID := --valid-splits valid-everyday,valid,valid-tech

train: $(STAMP)  ## continue training from the shipped weights (see pretrained/MODEL_CARD.md)
	@test -f data/corpus/valid-everyday.en || $(MAKE) data
	if [ -f runs/base/checkpoint.pt ]; then \
	  $(PY) -m training.train --corpus data/corpus --out runs/base --resume $(VALID); else \
	  $(PY) -m training.train --corpus data/corpus --out runs/base $(VALID) \
	    --init pretrained $(WIDE) --start-step $(SHIPPED_STEP) --rewarm-steps 300; fi

# The shipped architecture, mixture and tokenizer from scratch, as the shipped weights were trained (on
# lent GPUs, training/gpu_run.sh). Days of CPU: it resumes exactly where it stopped, run after run.
train-scratch: $(STAMP)  ## train the shipped architecture from scratch on data/corpus (resumes; days on CPU)
	@test -f data/corpus/valid-everyday.en || $(MAKE) data
	if [ -f runs/scratch/checkpoint.pt ]; then \
	  $(PY) -m training.train --corpus data/corpus --out runs/scratch --resume $(VALID); else \
	  $(PY) -m training.train --corpus data/corpus --out runs/scratch $(VALID) $(WIDE); fi

train-numbers: $(STAMP)  ## retrain the numbers model from scratch into pretrained/numbers (~16 min on 2 cores)
	$(PY) -m training.numbers.train --out pretrained/numbers
	$(PY) -m training.head_stats pretrained/numbers

train-ablations: $(STAMP)  ## retrain the "Why these choices?" variants into pretrained/ablations (~4 h on 2 cores; resumes)
	$(PY) -m training.numbers.ablations

export: $(STAMP)
	$(PY) -m training.train --out runs/base --export pretrained --half
	$(PY) -m training.head_stats pretrained

head-stats: $(STAMP)  ## the head inspector's statistics beside each shipped model's weights (rerun after new weights)
	$(PY) -m training.head_stats pretrained $(wildcard pretrained/numbers)

bench-class: $(DEV_STAMP)  ## a class at once: N websocket sessions, p50/p95/max to a finished page (bench/README.md)
	$(PY) bench/class_at_once.py

bench: $(DEV_STAMP)
	$(PY) bench/forward.py
	$(PY) bench/app.py
	$(PY) bench/train_step.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
