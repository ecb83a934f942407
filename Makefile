# Two commands on a fresh machine: `make test` and `make html`.  Each creates
# .venv and installs the pinned requirements and the package first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# The thesis: conf.py at the top, sources in docs/ and notebooks/, output in _build/.  Every warning fails the
# build.  MathJax comes from npm into build/ (served by the site itself, nothing is loaded from other hosts).
SPHINXBUILD     := $(BIN)/sphinx-build
SPHINXOPTS      ?= -j auto
BUILDDIR        := _build
NOTEBOOKS       := $(wildcard notebooks/*.ipynb)
MATHJAX_VERSION := 3.2.2
MATHJAX         := build/mathjax/static/.mathjax-$(MATHJAX_VERSION)
CHROMIUM        ?= /usr/bin/chromium
PDF_PACKAGES    := latexmk texlive-xetex texlive-latex-recommended texlive-latex-extra \
                   texlive-fonts-recommended fonts-freefont-otf fonts-dejavu-core librsvg2-bin

.PHONY: help test test-slow test-nojit bench experiments verify html pdf check-site chapters clean

help:
	@echo "make test       run the test suite (creates .venv first)"
	@echo "make test-slow  also run the long checks (a million plies against OpenSpiel)"
	@echo "make bench      run the benchmarks: our figures beside OpenSpiel's, as ratios"
	@echo "make experiments play every missing game of the thesis's experiments into data/ (hours; resumable)"
	@echo "make verify     check the stored games: all through the rules, a sample replayed from their keys"
	@echo "make html       build the thesis website into _build/html (runs every notebook)"
	@echo "make pdf        build the thesis PDF through LaTeX into _build/latex"
	@echo "make check-site build the website, then check it in headless Chromium with the network off"
	@echo "make clean      remove .venv, caches and build output"

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

test: $(STAMP)
	$(BIN)/python -m pytest

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m "slow or not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

experiments: $(STAMP)
	$(BIN)/python -m awale experiment run --all

verify: $(STAMP)
	$(BIN)/python -m awale experiment verify

chapters:
	@test -n "$(NOTEBOOKS)" || { echo "notebooks/ holds no chapter yet: there is no thesis to build."; exit 1; }

$(MATHJAX):
	@command -v npm >/dev/null || { echo "MathJax is installed with npm: apt-get install -y npm"; exit 1; }
	npm install --prefix build/mathjax --no-audit --no-fund --loglevel=error mathjax@$(MATHJAX_VERSION)
	rm -rf build/mathjax/static
	mkdir -p build/mathjax/static
	cp -R build/mathjax/node_modules/mathjax/es5 build/mathjax/static/mathjax
	@touch $@

html: chapters $(STAMP) $(MATHJAX)
	$(SPHINXBUILD) -b html -W --keep-going -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/html
	@echo "The website: $(BUILDDIR)/html/index.html"

pdf: chapters $(STAMP)
	@missing=""; \
	for tool in latexmk xelatex rsvg-convert kpsewhich fc-list; do \
	  command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	for file in fncychap.sty needspace.sty tabulary.sty capt-of.sty fontspec.sty; do \
	  kpsewhich $$file >/dev/null 2>&1 || missing="$$missing $$file"; done; \
	fc-list 2>/dev/null | grep -q FreeSerif || missing="$$missing FreeSerif"; \
	fc-list 2>/dev/null | grep -q "DejaVu Sans Mono" || missing="$$missing DejaVuSansMono"; \
	if [ -n "$$missing" ]; then \
	  echo "make pdf needs LaTeX and rsvg-convert; missing:$$missing"; \
	  echo "  apt-get install -y $(PDF_PACKAGES)"; exit 1; fi
	$(SPHINXBUILD) -b latex -W --keep-going -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/latex
	$(MAKE) -C $(BUILDDIR)/latex all-pdf LATEXMKOPTS="-silent -halt-on-error"
	@echo "The PDF: $(BUILDDIR)/latex/awale-mcts.pdf"

check-site: html
	@test -x $(CHROMIUM) || { echo "make check-site needs Chromium: apt-get install -y chromium"; exit 1; }
	$(BIN)/python tools/check_site.py --chromium $(CHROMIUM) $(BUILDDIR)/html
	$(BIN)/python tools/check_viewer.py --chromium $(CHROMIUM) $(BUILDDIR)/html

clean:
	rm -rf $(VENV) _build .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
