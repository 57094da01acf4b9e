# gpufleet.cluster: two commands for a fresh machine.
#   make demo   bring up the built-in lab and converge playbooks/site.yml on it (twice: the second run must change nothing)
#   make test   lint, sanity, unit tests, the reference plan, molecule scenarios and a lab end-to-end run; cleans up after itself
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT        := $(CURDIR)
VENV        := $(ROOT)/.venv
PY          := $(VENV)/bin/python
export PATH := $(VENV)/bin:$(PATH)
export CONTAINERS_CONF := $(ROOT)/lab/containers.conf
export ANSIBLE_CONFIG := $(ROOT)/ansible.cfg
export ANSIBLE_FORCE_COLOR := false
LAB         := python3 $(ROOT)/lab/lab.py
E2E_NAME    := gpufleet-e2e
E2E_INV     := $(ROOT)/.build/e2e-inventory
SUDO        := $(if $(filter 0,$(shell id -u)),,sudo)
# Every scenario but throw-away development ones (molecule/dev_*).
MOLECULE_SCENARIOS := $(filter-out dev_%,$(sort $(notdir $(patsubst %/molecule.yml,%,$(wildcard molecule/*/molecule.yml)))))

.PHONY: help demo test deps host-deps venv images lab-up lab-down lab-status converge \
        lint sanity unit plan install-test local molecule e2e test-all test-clean mutation mutation-scores

help:
	@sed -n '2,4p' Makefile

# ---------------------------------------------------------------- set-up (idempotent)
deps: host-deps venv

host-deps:
	@if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v runc >/dev/null || ! command -v shellcheck >/dev/null || ! command -v chromium >/dev/null || ! command -v ssh >/dev/null || ! python3 -c 'import ensurepip' 2>/dev/null; then \
	  echo "installing podman, runc, debootstrap, shellcheck, python3-venv, the SSH client, chromium (checks the plan report) from the distribution's packages"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq podman runc debootstrap uidmap shellcheck python3-venv openssh-client >/dev/null; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	fi

venv: $(VENV)/.installed

# --no-compile, then byte-compile all but the ansible bundle's collections: ansible loads collection plugins from their
# source (its collection loader never reads __pycache__), so compiling the bundle's collection files bought nothing
# and took a large part of this step (the figures: docs/performance.md, "Issue 15, third pass").
$(VENV)/.installed: requirements-dev.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --no-compile --disable-pip-version-check -r requirements-dev.txt
	$(VENV)/bin/python -m compileall -q -j0 -x '/ansible_collections/' $(VENV)/lib
	touch $@

images: host-deps
	$(LAB) images

# ---------------------------------------------------------------- the lab
lab-up: deps
	$(LAB) up

lab-down:
	$(LAB) down

lab-status:
	$(LAB) status

converge: venv
	ansible-playbook playbooks/site.yml -i inventories/lab

demo: deps lab-up
	@mkdir -p .build
	ansible-playbook playbooks/site.yml -i inventories/lab | tee .build/demo-converge.log
	ansible-playbook playbooks/site.yml -i inventories/lab | tee .build/demo-idempotent.log
	@echo; $(LAB) status; echo
	@$(PY) tests/e2e/summarise.py .build/demo-converge.log .build/demo-idempotent.log

# ---------------------------------------------------------------- tests
test: deps
	@rc=0; $(MAKE) --no-print-directory test-all || rc=$$?; \
	  $(MAKE) --no-print-directory test-clean; \
	  if [ $$rc -eq 0 ]; then echo "make test: all stages passed"; else echo "make test: FAILED (exit $$rc)"; fi; \
	  exit $$rc

# The stages in lanes that run at the same time (tests/stages.sh; docs/performance.md has the split), once the lab
# images are there. The e2e, the longest, keeps the CPU; molecule and the checks without containers take what it
# leaves, at a lower priority (nice).
test-all: venv images
	@# molecule and the e2e lab both use the lab's SSH key: made once here, not by both at the same moment.
	$(LAB) ssh-key >/dev/null
	tests/stages.sh "e2e" "nice=5 molecule sanity" "nice=10 unit plan install-test lint local"

lint: venv
	@# ansible-lint installs this collection into .ansible/ once and then reuses that copy: drop it so the
	@# checkout is what gets linted.
	rm -rf .ansible/collections/ansible_collections/gpufleet $(STALE_COPY)
	ansible-lint
	antsibull-changelog lint
	$(PY) docs/tools/role_docs.py --check
	$(PY) docs/tools/doc_refs.py --check
	$(PY) docs/tools/troubleshooting.py --check
	$(PY) docs/tools/plugin_docs.py --check
	ansible-playbook playbooks/site.yml -i inventories/h100-64 --syntax-check

# The reference design's plan, twice (the second run must change nothing), and the design's own
# breaker plan as layout input, which must be refused.
plan: venv
	@rm -rf .build/plan-test; mkdir -p .build
	ansible-playbook playbooks/plan.yml -i inventories/h100-64 -e plan_dir=$(ROOT)/.build/plan-test | tee .build/plan-1.log
	ansible-playbook playbooks/plan.yml -i inventories/h100-64 -e plan_dir=$(ROOT)/.build/plan-test | tee .build/plan-2.log
	$(PY) tests/e2e/summarise.py .build/plan-1.log .build/plan-2.log
	@# docs/plan.md shows the recap of these two runs: it must be theirs.
	@for run in "1 first run: " "2 second run:"; do n=$${run%% *}; recap=$$(grep -oE 'ok=[0-9]+ +changed=[0-9]+' .build/plan-$$n.log | tr -s ' '); \
	  grep -qF "$${run#* } localhost : $$recap " docs/plan.md || { echo "docs/plan.md does not show run $$n's recap ($$recap)"; exit 1; }; done
	test -s .build/plan-test/power.json -a -s .build/plan-test/lustre.json -a -s .build/plan-test/nccl/hgx-h100.xml
	@if ansible-playbook playbooks/plan.yml -i inventories/h100-64 -e plan_dir=$(ROOT)/.build/plan-refused -e plan_pdus=as_built >.build/plan-refused.log 2>&1; then \
	  echo "plan.yml accepted the design's overloaded breaker plan"; exit 1; fi
	grep -q "is out of circuits on feed" .build/plan-refused.log
	@# The HTML report, opened in headless Chromium: it renders, every section is there, no console message.
	$(PY) tests/browser/check_report.py .build/plan-test/report.html
	pytest -q tests/browser

# The collection as a user installs it: the built tarball next to exactly galaxy.yml's dependencies (offline, from
# the ansible bundle), nothing else visible; every playbook loads and the plan runs from there, by FQCN; each
# declared dependency left out must fail (docs/install.md).
install-test: venv
	tests/install/run.sh

# Roles that need no container (switch configuration), run against localhost and loopback stand-ins.
local: venv
	tests/local/run-all.sh

sanity: venv
	tests/sanity/run-sanity.sh

unit: venv
	pytest tests/unit

molecule: venv images
	@rm -rf $(STALE_COPY)
	tests/molecule/run-all.sh $(MOLECULE_SCENARIOS)

e2e: venv images
	tests/e2e/run.sh $(E2E_NAME) $(E2E_INV)

# Mutation testing of the engineering core (not part of make test: tens of minutes). mutmut comes from
# requirements-mutation.txt. A module is its path under plugins/module_utils without .py; results and logs under
# .build/mutation/<path with dots>/. One module: make mutation MODULES=slurm/hostlist (docs/testing.md)
MODULES ?=
mutation: venv
	@$(PY) -c 'import mutmut' 2>/dev/null || $(VENV)/bin/pip install -q --disable-pip-version-check -r requirements-mutation.txt
	nice -n 19 $(PY) tests/mutation/run.py $(MODULES)

mutation-scores:
	@$(PY) tests/mutation/scores.py $(MODULES) --survivors

# A copy of this collection that an older molecule prerun installed; ansible searches it before the checkout.
STALE_COPY := $(HOME)/.ansible/collections/ansible_collections/gpufleet

test-clean:
	-@$(LAB) down --name $(E2E_NAME) --inventory $(E2E_INV) >/dev/null 2>&1 || true
	@# molecule destroy only where a scenario left containers (each destroy starts molecule and a playbook).
	-@left=$$(podman ps -a --filter label=owner=molecule --format '{{.Names}}' 2>/dev/null); \
	  for s in $(MOLECULE_SCENARIOS); do \
	    if grep -q "^molecule-$${s//_/-}-" <<<"$$left"; then molecule destroy -s $$s >/dev/null 2>&1 || true; fi; done
	-@podman ps -a --filter label=owner=molecule --format '{{.Names}}' | xargs -r podman rm -f -t 2 >/dev/null 2>&1 || true
