# simkit — two commands on a fresh clone:
#   make report   set up .venv and write the bundled reports under reports/ (Markdown and HTML)
#   make test     set up .venv (and headless Chromium for the HTML test), compile the kernels ahead and run the whole
#                 test suite on every core (pytest-xdist), the 25 slowest tests listed at the end
#   make test-fast  the inner loop: the suite less the tests marked slow (tests/conftest.py), a few minutes warm
#   make docs     build the manual (docs/, mkdocs.yml) into site/: open site/index.html
#   make warm     compile every game's kernels into the kernel cache, one process per core (simkit warm)
#   make check    re-run the committed balance baselines (reports/baseline/) and fail if a number moved
#   make train    retrain the bundled learned policies (scenarios/*/*.learned.npz) from their seeds
#   make train-check  make train, then fail unless it rewrote every committed weight file byte for byte
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.simkit-installed
# apt-get needs root: use sudo when not root and sudo exists
SUDO   := $(shell [ "$$(id -u)" = 0 ] || command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo)

.PHONY: setup browser docs warm test test-fast report check bench train train-check clean

setup: $(STAMP)

# Re-installs only when pyproject.toml or constraints.txt changes; the package is installed
# editable, so code changes need no reinstall. constraints.txt pins every dependency's version.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]' -c constraints.txt
	@touch $(STAMP)

# Debian's headless Chromium, for the test that renders the HTML reports in a real browser.
browser:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# Every engine's kernels compiled once, engines side by side on the cores (a warm cache only loads them).
warm: setup
	$(BIN)/simkit warm

PYTEST := $(BIN)/pytest -q -n logical --dist loadfile

test: setup browser warm
	$(PYTEST) --durations=25

test-fast: setup warm
	$(PYTEST) -m "not slow"

report: setup warm
	@echo "make report: simulating and writing every bundled report under reports/ (about 35 minutes on 2 cores, most of it the search ladders, the Lonequest's learned_search and Valhalla Solo's builder_stand) ..."
	$(BIN)/simkit report --bundled --out reports --html
	@echo "reports written under reports/ (open reports/index.html, or the .md files)"

docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	@echo "the manual is in site/ (open site/index.html)"

check: setup
	$(BIN)/simkit check --baselines reports/baseline

bench: setup
	$(BIN)/simkit bench

# The bundled learned policies: expert iteration over `search` (simkit train), reproducible from the seed
# whatever the number of workers; make report plays the committed weights. The Lonequest's, in two rounds: expert
# iteration (lonequest.learned_expert.npz), then six iterations from game outcomes starting from it (--method
# outcomes: lonequest.learned_v1.npz), then the value of its positions for `search` to stand on (--method value:
# lonequest.value.npz, played by the scenario's vsearch); then expert iteration taught by that vsearch
# (--teacher-policy: lonequest.learned_taught.npz) and six outcome iterations from it, the best kept
# (lonequest.learned.npz, the report's policy).
# The runs of several iterations keep the last (--keep last): the committed weights were written that way,
# before `simkit train` kept the best of its iterations by default. Bounty Hunter's: six iterations from game
# outcomes against the scenario's opponents (--method outcomes --opponent), the best of them kept. The Valkyrie
# Incident's standard one: outcomes in self-play from focused_tuned (twice), then against focused_tuned.
train: setup
	@mkdir -p runs
	$(BIN)/simkit train scenarios/valka/lonequest.toml --name learned --seed 2026 --budget 300 --iterations 1 \
	  --share 0.3 --eval-games 2000 --teacher-games 10 --out runs/train-lonequest \
	  --weights scenarios/valka/lonequest.learned_expert.npz
	$(BIN)/simkit train scenarios/valka/lonequest.toml --name learned --method outcomes --base greedy_trader_tuned \
	  --seed 41 --budget 48000 --iterations 6 --epsilon 0.05 --l2 1e-3 \
	  --init scenarios/valka/lonequest.learned_expert.npz --reference scenarios/valka/lonequest.learned_expert.npz \
	  --eval-games 1500 --keep last --out runs/train-lonequest-outcomes --weights scenarios/valka/lonequest.learned_v1.npz
	$(BIN)/simkit train scenarios/valka/lonequest.toml --name vsearch --method value --base greedy_trader_tuned \
	  --init scenarios/valka/lonequest.learned_v1.npz --budget 10000 --seed 7 --depth 16 --teacher 48 \
	  --out runs/value-lonequest --weights scenarios/valka/lonequest.value.npz
	$(BIN)/simkit train scenarios/valka/lonequest.toml --name learned --base greedy_trader_tuned --teacher-policy vsearch \
	  --seed 77 --budget 1500 --iterations 1 --share 0.3 --eval-games 1500 --teacher-games 0 \
	  --out runs/train-lonequest-taught --weights scenarios/valka/lonequest.learned_taught.npz
	$(BIN)/simkit train scenarios/valka/lonequest.toml --name learned --method outcomes --base greedy_trader_tuned \
	  --seed 41 --budget 48000 --iterations 6 --epsilon 0.05 --l2 1e-3 \
	  --init scenarios/valka/lonequest.learned_taught.npz --reference scenarios/valka/lonequest.learned_v1.npz \
	  --eval-games 1500 --keep best --out runs/train-lonequest-taught-outcomes --weights scenarios/valka/lonequest.learned.npz
	$(BIN)/simkit train scenarios/valhalla/solo.toml --name learned --base builder_tuned --seed 2027 --budget 400 \
	  --iterations 2 --teacher 8 --share 0.25 --eval-games 100 --teacher-games 0 --keep last --out runs/train-valhalla \
	  --weights scenarios/valhalla/solo.learned.npz
	$(BIN)/simkit train scenarios/valhalla/solo.toml --name vsearch --method value --base builder_tuned \
	  --set 'monsters=["dragon"]' --set 'variants=["base"]' --set 'levels=[1]' --set 'jarls=["sigurd"]' \
	  --budget 10000 --seed 7 --depth 8 --teacher 4 --out runs/value-valhalla --weights scenarios/valhalla/solo.value.npz
	$(BIN)/simkit train scenarios/valkyrie_incident/train_standard.toml --name learned --method outcomes \
	  --base focused_tuned --margin 1 --epsilon 0.05 --l2 1e-3 --budget 9000 --iterations 3 --seed 41 \
	  --eval-games 100 --keep last --out runs/train-valkyrie-standard-1 --weights runs/valkyrie-standard-selfplay1.npz
	$(BIN)/simkit train scenarios/valkyrie_incident/train_standard.toml --name learned --method outcomes \
	  --base focused_tuned --init runs/valkyrie-standard-selfplay1.npz --epsilon 0.05 --l2 1e-3 --budget 60000 \
	  --iterations 3 --seed 42 --eval-games 100 --keep last --out runs/train-valkyrie-standard-2 \
	  --weights runs/valkyrie-standard-selfplay2.npz
	$(BIN)/simkit train scenarios/valkyrie_incident/train_standard.toml --name learned --method outcomes \
	  --base focused_tuned --init runs/valkyrie-standard-selfplay2.npz --opponent focused_tuned --epsilon 0.1 \
	  --l2 1e-3 --budget 60000 --iterations 3 --seed 45 --eval-games 500 --keep last \
	  --out runs/train-valkyrie-standard --weights scenarios/valkyrie_incident/standard.learned.npz
	$(BIN)/simkit train scenarios/valkyrie_incident/train_blitz.toml --name learned --method outcomes \
	  --base focused_tuned --opponent focused_tuned --margin 0.5 --epsilon 0.1 --l2 1e-3 --budget 120000 \
	  --iterations 3 --seed 47 --eval-games 250 --keep best \
	  --out runs/train-valkyrie-blitz --weights scenarios/valkyrie_incident/blitz.learned.npz
	$(BIN)/simkit train scenarios/valka/bounty_hunter.toml --name learned --method outcomes --base balanced_tuned \
	  --opponent balanced --opponent aggressive --opponent cautious --margin 1 --epsilon 0.1 --l2 1e-3 \
	  --budget 120000 --iterations 6 --eval-games 1000 --seed 2031 \
	  --out runs/train-bounty-hunter --weights scenarios/valka/bounty_hunter.learned.npz
	$(BIN)/simkit train scenarios/valhalla/train_multi.toml --name learned --base builder_tuned --seed 2030 \
	  --budget 120 --iterations 1 --teacher 8 --share 0.25 --eval-games 1000 --teacher-games 10 \
	  --out runs/train-valhalla-multi --weights scenarios/valhalla/multi.learned.npz
	$(BIN)/simkit train scenarios/valeria/train.toml --name learned --base hunter_tuned --seed 2029 --budget 400 \
	  --iterations 1 --teacher 8 --share 0.5 --eval-games 2000 --teacher-games 20 \
	  --out runs/train-valeria --weights scenarios/valeria/kingdoms.learned.npz

# The committed weights are what make train writes (on constraints.txt's versions): about 76 minutes of CPU, not in CI.
train-check: train
	git diff --exit-code --stat -- 'scenarios/*.npz'

clean:
	rm -rf $(VENV) runs .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
