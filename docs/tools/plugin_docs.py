# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lint the plugins' and roles' documentation and write the reference pages in docs/reference.

    python docs/tools/plugin_docs.py          lint, then rewrite docs/reference
    python docs/tools/plugin_docs.py --check  lint, regenerate into a temporary directory and exit 1 when
                                              docs/reference differs from it (make lint)

Both run antsibull-docs (the version pinned in requirements-dev.txt) on this checkout, which is the collection
gpufleet.cluster (collections/ansible_collections/gpufleet/cluster links back to it):

- `antsibull-docs lint-collection-docs --plugin-docs`: every module's, filter's and test's DOCUMENTATION, EXAMPLES and
  RETURN and every role's meta/argument_specs.yml against the schema, their markup and references, and rstcheck
  on the pages it would write;
- `antsibull-docs collection --output-format simplified-rst`: one page per module, filter, test and role plus index.rst,
  in the RST dialect GitHub renders. Links to this collection's own pages are made relative (`*.rst`), links to
  other collections' plugins point to docs.ansible.com, and every relative link must lead to a page that exists.

docs/reference/README.md, the landing page, lists the pages and links each role's README, whose variable table
docs/tools/role_docs.py writes from the same argument specs.
"""
from __future__ import annotations

import difflib
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = os.path.join(ROOT, "docs", "reference")
COLLECTION = "gpufleet.cluster"
REPOSITORY = "https://github.com/gpufleet/gpufleet.cluster"
ANSIBLE_DOCS = "https://docs.ansible.com/ansible/latest/collections"
REGENERATE = "python docs/tools/plugin_docs.py"

# antsibull-docs configuration (perky format): the collection lives in its repository, not on Galaxy.
CONFIG = f"""collection_url = {{
    {COLLECTION} = "{REPOSITORY}"
    "*" = "https://galaxy.ansible.com/ui/repo/published/{{namespace}}/{{name}}/"
}}
collection_install = {{
    {COLLECTION} = "ansible-galaxy collection install git+{REPOSITORY}.git"
    "*" = "ansible-galaxy collection install {{namespace}}.{{name}}"
}}
"""

# Links antsibull-docs 2.28 writes into simplified RST, which assume its docsite layout or this collection.
HTML_LINK = re.compile(r"""href=(['"])\.\./\.\./([a-z0-9_]+)/([a-z0-9_]+)/([a-z0-9_]+)\.html""")
RST_PLUGIN_LINK = re.compile(r"`([a-z0-9_]+)\.([a-z0-9_]+)\.((?:[a-z0-9]|\\_|_)+) <([a-z0-9_]+)\.rst>`__")
RELATIVE_LINK = re.compile(r"""<([A-Za-z0-9_./-]+\.rst)(?:#[^>]*)?>`|href=['"]([A-Za-z0-9_./-]+\.rst)(?:#[^'"]*)?['"]""")
INDEX_ENTRY = re.compile(r"^\* `(\S+) (module|filter|test|role) <(\S+\.rst)>`_ --(.*)$")
KINDS = (("module", "Modules"), ("filter", "Filters"), ("test", "Tests"), ("role", "Roles"))


def bundle_paths() -> list[str]:
    """The site-packages folders where the ansible package installed its collections (ansible_collections/)."""
    return [entry for entry in sys.path
            if entry and os.path.isfile(os.path.join(entry, "ansible_collections", "ansible_community.py"))]


def tool_env() -> dict[str, str]:
    """The environment for antsibull-docs: this checkout first, then the ansible bundle; a fixed hash seed."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["ANSIBLE_CONFIG"] = os.path.join(ROOT, "ansible.cfg")
    # Not ~/.ansible or .ansible/ (ansible-lint's copy): the checkout itself is what gets documented. The ansible
    # bundle's collections come after it: the linter loads galaxy.yml's dependencies to check references to them.
    env["ANSIBLE_COLLECTIONS_PATH"] = os.pathsep.join([os.path.join(ROOT, "collections"), *bundle_paths()])
    env["ANSIBLE_COLLECTIONS_SCAN_SYS_PATH"] = "false"
    # Error pages list sets; a fixed seed keeps every page the same from run to run.
    env["PYTHONHASHSEED"] = "0"
    env["ANSIBLE_NOCOLOR"] = "1"
    return env


def antsibull_docs() -> str:
    local = os.path.join(os.path.dirname(sys.executable), "antsibull-docs")
    found = local if os.path.exists(local) else shutil.which("antsibull-docs")
    if not found:
        sys.exit("plugin_docs: antsibull-docs not found; install requirements-dev.txt into .venv (make venv)")
    return found


def fix_links(text: str) -> str:
    """Make antsibull-docs' links work on GitHub: own pages relative, other collections on docs.ansible.com."""
    def html(match: re.Match) -> str:
        quote, namespace, name, page = match.groups()
        if f"{namespace}.{name}" == COLLECTION:
            return f"href={quote}{page}.rst"
        return f"href={quote}{ANSIBLE_DOCS}/{namespace}/{name}/{page}.html"

    def rst(match: re.Match) -> str:
        namespace, name, plugin, page = match.groups()
        if f"{namespace}.{name}" == COLLECTION:
            return match.group(0)
        return f"`{namespace}.{name}.{plugin} <{ANSIBLE_DOCS}/{namespace}/{name}/{page}.html>`__"

    return RST_PLUGIN_LINK.sub(rst, HTML_LINK.sub(html, text))


def unrst(text: str) -> str:
    """An index line's short description as Markdown table text."""
    text = re.sub(r":literal:`([^`]*)`", r"`\1`", text)
    text = re.sub(r"`([^`<]+?) <([^>]+)>`__?", r"[\1](\2)", text)
    text = re.sub(r"\\(.)", r"\1", text)
    return text.strip().replace("|", "\\|")


def landing_page(index_rst: str) -> str:
    entries: dict[str, list[tuple[str, str, str]]] = {kind: [] for kind, title in KINDS}
    for line in index_rst.splitlines():
        match = INDEX_ENTRY.match(line)
        if match:
            name, kind, page, description = match.groups()
            entries[kind].append((name, page, unrst(description)))
    out = [
        "# Reference: modules, filters, tests and roles",
        "",
        "<!-- Generated by docs/tools/plugin_docs.py; do not edit. -->",
        "",
        "Generated with antsibull-docs from the plugins' own `DOCUMENTATION`, `EXAMPLES` and `RETURN` and from each",
        "role's `meta/argument_specs.yml`. Do not edit these pages: change the plugin or the argument spec, then run",
        f"`.venv/bin/{REGENERATE}`. `make lint` runs it with `--check` and fails when a page is out of date.",
        "",
        "The topic guides (formulas, worked examples, how a role is meant to be used) are the other files in",
        "[docs/](..); the collection's own index page is [index.rst](index.rst).",
        "",
    ]
    for kind, title in KINDS:
        if kind == "role":
            out += [f"## {title}", "",
                    "Each role's README says how to use the role and lists the same variables as a table, written from",
                    "the same argument specs by `docs/tools/role_docs.py`.", "",
                    "| role | what it does | README |", "|---|---|---|"]
            out += [f"| [{COLLECTION}.{name}]({page}) | {description} | [roles/{name}](../../roles/{name}/README.md) |"
                    for name, page, description in entries[kind]]
        else:
            out += [f"## {title}", "", f"| {kind} | what it does |", "|---|---|"]
            out += [f"| [{COLLECTION}.{name}]({page}) | {description} |" for name, page, description in entries[kind]]
        out.append("")
    return "\n".join(out)


def generate(dest: str, config: str) -> list[str]:
    """Write the reference into dest; return the problems found in what antsibull-docs wrote."""
    raw = os.path.join(dest, ".raw")
    os.makedirs(raw)
    cmd = [antsibull_docs(), "--config-file", config, "collection", "--use-current", "--squash-hierarchy",
           "--output-format", "simplified-rst", "--dest-dir", raw, COLLECTION]
    result = subprocess.run(cmd, cwd=ROOT, env=tool_env(), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return [f"antsibull-docs collection failed (exit {result.returncode}):", result.stdout + result.stderr]
    problems = []
    pages = sorted(name for name in os.listdir(raw) if name.endswith(".rst"))
    for name in pages:
        with open(os.path.join(raw, name), encoding="utf-8") as fh:
            text = fix_links(fh.read())
        if " was malformed." in text:
            problems.append(f"docs/reference/{name}: antsibull-docs wrote an error page (see the lint messages)")
        for match in RELATIVE_LINK.finditer(text):
            target = match.group(1) or match.group(2)
            if target not in pages:
                problems.append(f"docs/reference/{name}: link to {target}, which is not a generated page")
        with open(os.path.join(dest, name), "w", encoding="utf-8") as fh:
            fh.write(text)
    shutil.rmtree(raw)
    with open(os.path.join(dest, "index.rst"), encoding="utf-8") as fh:
        landing = landing_page(fh.read())
    listed = set(re.findall(r"\]\(([a-z0-9_]+_(?:module|filter|test|role)\.rst)\)", landing))
    unlisted = [name for name in pages if name != "index.rst" and name not in listed]
    if unlisted:
        problems.append(f"docs/reference/README.md does not list {', '.join(unlisted)} (index.rst changed format?)")
    with open(os.path.join(dest, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(landing)
    return problems


def lint_command() -> list[str]:
    return [antsibull_docs(), "lint-collection-docs", "--plugin-docs", "--output-format", "simplified-rst", "."]


def compare(generated: str) -> list[str]:
    """What differs between docs/reference and a fresh generation."""
    have = set(os.listdir(REFERENCE)) if os.path.isdir(REFERENCE) else set()
    want = set(os.listdir(generated))
    stale = [f"docs/reference/{name}: should not exist" for name in sorted(have - want)]
    stale += [f"docs/reference/{name}: missing" for name in sorted(want - have)]
    changed = [name for name in sorted(have & want)
               if not filecmp.cmp(os.path.join(REFERENCE, name), os.path.join(generated, name), shallow=False)]
    for count, name in enumerate(changed):
        if count >= 5:  # a new antsibull-docs changes every page: name them, show the first few
            stale.append(f"docs/reference/{name}: out of date")
            continue
        with open(os.path.join(REFERENCE, name), encoding="utf-8") as fh:
            old = fh.readlines()
        with open(os.path.join(generated, name), encoding="utf-8") as fh:
            new = fh.readlines()
        diff = list(difflib.unified_diff(old, new, f"docs/reference/{name}", "generated", n=1))
        stale.append(f"docs/reference/{name}: out of date\n" + "".join(diff[:20]).rstrip())
    return stale


def main(check: bool) -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="plugin-docs-") as tmp:
        config = os.path.join(tmp, "antsibull-docs.cfg")
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(CONFIG)
        generated = os.path.join(tmp, "reference")
        os.makedirs(generated)
        # The linter (about 6 s) and the generator (about 3 s) run side by side.
        with subprocess.Popen(lint_command(), cwd=ROOT, env=tool_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as lint:
            problems = generate(generated, config)
            lint_output = lint.communicate()[0]
        lint_failed = lint.returncode != 0
        if lint_failed:
            print(f"plugin_docs: antsibull-docs lint-collection-docs found documentation errors:\n{lint_output.rstrip()}")
        for problem in problems:
            print(f"plugin_docs: {problem}")
        if check:
            stale = compare(generated)
            for line in stale:
                print(line)
            if stale:
                print(f"plugin_docs: docs/reference is out of date: run {REGENERATE} and commit docs/reference")
        else:
            stale = []
            if os.path.isdir(REFERENCE):
                shutil.rmtree(REFERENCE)
            shutil.copytree(generated, REFERENCE)
            print(f"plugin_docs: wrote {len(os.listdir(REFERENCE))} files to docs/reference")
    print(f"plugin_docs: {'checked' if check else 'generated'} in {time.monotonic() - started:.1f} s")
    return 1 if lint_failed or problems or stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
