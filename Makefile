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
CELL_TIMEOUT    := $(shell sed -n 's/^nbsphinx_timeout = \([0-9]*\).*/\1/p' conf.py)
PDF_PACKAGES    := latexmk texlive-xetex texlive-latex-recommended texlive-latex-extra \
                   texlive-fonts-recommended fonts-freefont-otf fonts-dejavu-core librsvg2-bin \
                   poppler-utils

.PHONY: help compile lab test test-slow test-nojit bench experiments verify html pdf pdf-full pdf-packages pdf-tools check-pdf \
        check-site \
        chapters clean

help:
	@echo "make compile    compile the engine's kernels the chapters use, once (html, pdf and test run it first)"
	@echo "make lab        open the chapters in JupyterLab, with .venv's Python as their kernel"
	@echo "make test       run the test suite (creates .venv first)"
	@echo "make test-slow  also run the long checks (a million plies against OpenSpiel)"
	@echo "make bench      run the benchmarks: our figures beside OpenSpiel's, as ratios"
	@echo "make experiments play every missing game of the thesis's experiments into data/ (hours; resumable)"
	@echo "make verify     check the stored games: all through the rules, a sample replayed from their keys"
	@echo "make html       build the thesis website into _build/html (runs every notebook)"
	@echo "make pdf        build the thesis PDF through LaTeX into _build/latex (code: short excerpts)"
	@echo "make pdf-full   build the PDF with every code cell into _build/latex-full"
	@echo "make check-pdf  check the PDF's typesetting (make pdf runs it): overfull lines and pages, nan, raw"
	@echo "                decimals, outputs without their code, prompts, outputs over the text"
	@echo "make check-site build the website, then check it in headless Chromium with the network off"
	@echo "make clean      remove .venv, caches and build output"

# The first run says what it installs and how long that takes; pip's own output goes to .venv/install.log.
$(STAMP): requirements.txt pyproject.toml
	@echo "Setting up $(VENV): Python packages pinned in requirements.txt ($$(grep -c '==' requirements.txt) of them:"
	@echo "numpy, numba, OpenSpiel, Dask, pandas, matplotlib, pytest, hypothesis, Sphinx, JupyterLab, Playwright"
	@echo "and their dependencies), then the awale library itself: about 1.3 GB once installed. This happens"
	@echo "once and takes about 2 minutes, mostly downloading. Then \`make compile\` compiles the engine once."
	$(PYTHON) -m venv $(VENV)
	@start=$$(date +%s); \
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -r requirements.txt \
	  > $(VENV)/install.log 2>&1 || { tail -n 20 $(VENV)/install.log; \
	  echo "pip failed: the whole log is in $(VENV)/install.log"; exit 1; }; \
	echo "  requirements installed in $$(( $$(date +%s) - start )) s (log: $(VENV)/install.log)"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

# The engine's kernels, compiled by numba on first use and cached beside the sources: compiled here, in a process of
# its own with no time limit, before any chapter or test runs (a cell's timeout would kill a compile before numba
# writes its cache, and the rerun would fail the same way).  One line per step with its time; seconds once cached.
compile: $(STAMP)
	@$(BIN)/python tools/compile.py

# The chapters in JupyterLab (pinned in requirements.txt), whose kernel "python3" is .venv's own Python: the one
# conf.py checks and the build runs them with.  The server's folder is the project's, so docs/play.ipynb is there too.
lab: $(STAMP) compile
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(if $(filter 0,$(shell id -u)),--allow-root) \
	  notebooks/01-introduction.ipynb

test: $(STAMP) compile
	$(BIN)/python -m pytest -n auto

test-slow: $(STAMP)
	$(BIN)/python -m pytest -n auto -m "slow or not slow"

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

html: chapters $(STAMP) $(MATHJAX) compile
	$(SPHINXBUILD) -b html -W --keep-going -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/html
	@-$(BIN)/python tools/compile.py --report $(BUILDDIR)/chapter-cells.csv --timeout $(CELL_TIMEOUT)
	@echo "The website: $(BUILDDIR)/html/index.html"

# Two PDFs: `make pdf`, the book to read (prose, boards, plots, pseudocode, the short code excerpts that the text
# discusses: cells tagged "excerpt"), and `make pdf-full`, with every code cell (Sphinx tag "fullcode").
pdf: chapters $(STAMP) pdf-tools compile
	$(SPHINXBUILD) -b latex -W --keep-going -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . $(BUILDDIR)/latex
	$(MAKE) -C $(BUILDDIR)/latex all-pdf LATEXMKOPTS="-silent -halt-on-error"
	@echo "The PDF: $(BUILDDIR)/latex/awale-mcts.pdf"
	$(MAKE) check-pdf

# The PDF's typesetting (tools/check_pdf.py): no page overfull (a table into the footer), no nan or raw decimal of
# pandas, no output whose code the PDF leaves out, no output over the text before it, no Jupyter prompt, at most 10
# overfull lines > 5 pt.
check-pdf: $(STAMP)
	$(BIN)/python tools/check_pdf.py $(BUILDDIR)/latex/awale-mcts.pdf

pdf-full: chapters $(STAMP) pdf-tools compile
	$(SPHINXBUILD) -b latex -t fullcode -W --keep-going -d $(BUILDDIR)/doctrees $(SPHINXOPTS) . \
	  $(BUILDDIR)/latex-full
	$(MAKE) -C $(BUILDDIR)/latex-full all-pdf LATEXMKOPTS="-silent -halt-on-error"
	@echo "The PDF with every code cell: $(BUILDDIR)/latex-full/awale-mcts-full.pdf"

pdf-packages:
	@echo $(PDF_PACKAGES)

pdf-tools:
	@missing=""; \
	for tool in latexmk xelatex rsvg-convert kpsewhich fc-list pdftotext; do \
	  command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	for file in fncychap.sty needspace.sty tabulary.sty capt-of.sty fontspec.sty; do \
	  kpsewhich $$file >/dev/null 2>&1 || missing="$$missing $$file"; done; \
	fc-list 2>/dev/null | grep -q FreeSerif || missing="$$missing FreeSerif"; \
	fc-list 2>/dev/null | grep -q "DejaVu Sans Mono" || missing="$$missing DejaVuSansMono"; \
	if [ -n "$$missing" ]; then \
	  echo "make pdf needs LaTeX and rsvg-convert; missing:$$missing"; \
	  echo "  apt-get install -y $(PDF_PACKAGES)"; exit 1; fi

check-site: html
	@test -x $(CHROMIUM) || { echo "make check-site needs Chromium: apt-get install -y chromium"; exit 1; }
	$(BIN)/python tools/check_site.py --chromium $(CHROMIUM) $(BUILDDIR)/html
	$(BIN)/python tools/check_viewer.py --chromium $(CHROMIUM) $(BUILDDIR)/html
	$(BIN)/python tools/check_play.py --chromium $(CHROMIUM) $(BUILDDIR)/html

clean:
	rm -rf $(VENV) _build .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
