# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check that what README.md, the roles' READMEs and docs/**/*.md name exists in the code.

    python docs/tools/doc_refs.py          list what the docs name and the code lacks (exit 0)
    python docs/tools/doc_refs.py --check  the same, exit 1 when anything is listed (make lint)

Four kinds of name, each line reported as `<file>:<line>: <problem>`:
- a role variable in backticks (a name starting with a role's name and `_`, `gpufleet_` or `__<role>_`, standing
  alone in inline code: `slurm_repository.uris` names the variable, not its key `uris`), or one set in a code block
  (`-e name=`, or a YAML key `name:`): it must be a name the collection knows: a key of some role's defaults/ or
  vars/, an option of meta/argument_specs.yml, a variable of inventories/ or awx/vars/, a `register:`, `set_fact`,
  `vars:` or `loop_var` name of a role, playbook or awx/ playbook, or one of its tags, roles, playbooks, filters,
  tests, modules or module_utils modules (docs name those in backticks too);
- a tag given with `--tags` / `--skip-tags` (inline or in a code block): a tag of a role's tasks or a playbook;
- a repository path in backticks or in a code block (`roles/...`, `playbooks/...`, `docs/...`, `tests/...`,
  `plugins/...`, `inventories/...` and the collection's other top folders), and a relative Markdown link: it must
  exist; `<name>` and `*` in it match any name (`roles/<role>/README.md`);
- a `make` target (`make X Y`, inline or in a code block): a target of the Makefile.

A name that none of those sources defines but that the collection's code uses as a word (a validate check's
name, an input rule, a Python name in plugins/) counts as known too: the check is for names the code lacks.
A private name's public spelling (`common_limits_file` for `__common_limits_file`, as docs/troubleshooting.md
simplifies them) and a prefix ending in `_` (`slurm_node_`) are known when some known name matches them. Paths the
checkout's .gitignore covers (the lab's hosts.yml, bench/results/) are written by the tools and count as there;
a path not at the top is tried under roles/*/, molecule/*/ and tests/unit/ (`meta/argument_specs.yml`,
`tests/test_nccl.py` of a scenario). Placeholders in a path (`<role>`, `*`, `{a,b}`, `NAME`) match any name.
Names that are the reader's own (an example inventory) or not the collection's at all are in ALLOWED, with why.
"""
from __future__ import annotations

import fnmatch
import glob
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Names the docs use that the code rightly lacks. Keep it short; say why. A path here covers what is under it.
ALLOWED = {
    # the reader's own inventory in the runbooks' examples ("INV=inventories/mysite", "inventories/<yours>")
    "inventories/mysite", "inventories/yours", "inventories/<yours>",
    # Slurm's own words in an error it prints (slurm_load_node error: ...), quoted as they are
    "slurm_load_node",
    # a past mutation run's command, recorded in docs/testing.md's table; the file was split since (7723c9c) into
    # tests/unit/plugins/module_utils/nccl/test_values.py and test_topology.py
    "plugins/module_utils/nccl/test_topology_mutants.py",
}

# Top folders of the checkout a backticked path may start with.
PATH_ROOTS = ("roles", "playbooks", "docs", "tests", "plugins", "inventories", "awx", "lab", "molecule", "bench",
              "changelogs", "meta")
BUILTIN_TAGS = {"all", "always", "never", "tagged", "untagged"}

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"(`+)(.+?)\1")
IDENT = re.compile(r"(?<![\w./-])([A-Za-z_][A-Za-z0-9_]*)(?![\w-])")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
EXTRA_VAR = re.compile(r"(?:^|\s)(?:-e|--extra-vars)\s+[\"']?([A-Za-z_][A-Za-z0-9_]*)=")
YAML_KEY = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][A-Za-z0-9_]*):(?:\s|$)")
TAGS = re.compile(r"--(?:skip-)?tags[ =]+[\"']?([A-Za-z0-9_,.-]+)")
# `make` where a command starts: at the start, after an environment assignment, ;, &&, || or $(.
MAKE = re.compile(r"(?:^|[;&|(]\s*)(?:[A-Z_][A-Z0-9_]*=\S*\s+)*make\s+((?:[A-Za-z0-9_.-]+=\S*\s+|-\S+\s+)*)"
                  r"([a-z][a-z0-9_-]*(?:\s+[a-z][a-z0-9_-]*)*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./~$-])((?:%s)/(?:[^\s`'\",;)\]|{]|\{[^}\s]*\})*)" % "|".join(PATH_ROOTS))
PLACEHOLDER = re.compile(r"<[^>/]*>|\.\.\.|(?<![a-z])[A-Z][A-Z_]{2,}(?![a-z])")


# ---------------------------------------------------------------- what the code has
def _yaml(path: str):
    try:
        with open(path, encoding="utf-8") as fh:
            return list(yaml.safe_load_all(fh))
    except (yaml.YAMLError, UnicodeDecodeError):
        return []


def _keys(node, into: set, deep: bool) -> None:
    """Every key of the mappings in node (deep: at any depth, else the top level only)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str):
                into.add(key)
            if deep:
                _keys(value, into, deep)
    elif isinstance(node, list) and deep:
        for item in node:
            _keys(item, into, deep)


def _task_names(node, into: set, tags: set) -> None:
    """register, set_fact, vars and loop_var names, and tags, anywhere in a task file or playbook."""
    if isinstance(node, list):
        for item in node:
            _task_names(item, into, tags)
    elif isinstance(node, dict):
        if isinstance(node.get("register"), str):
            into.add(node["register"])
        for key in ("set_fact", "ansible.builtin.set_fact", "vars"):
            _keys(node.get(key), into, deep=False)
        _keys(node.get("loop_control", {}).get("loop_var") and {node["loop_control"]["loop_var"]: 0}, into, False)
        found = node.get("tags") or []
        tags.update([found] if isinstance(found, str) else [t for t in found if isinstance(t, str)])
        for value in node.values():
            if isinstance(value, (list, dict)):
                _task_names(value, into, tags)


def _code_words(root: str) -> set:
    """Every word of the collection's code (roles, playbooks, plugins, awx, meta; not its Markdown)."""
    words = set()
    for top in ("roles", "playbooks", "plugins", "awx", "meta"):
        for path in glob.glob(os.path.join(root, top, "**", "*"), recursive=True):
            if os.path.isfile(path) and not path.endswith((".md", ".pyc")):
                try:
                    with open(path, encoding="utf-8") as fh:
                        words.update(WORD.findall(fh.read()))
                except UnicodeDecodeError:
                    continue
    return words


def _ignored(root: str) -> list:
    """The .gitignore patterns of the checkout: what its tools write (the lab's inventory, bench results)."""
    path = os.path.join(root, ".gitignore")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return [line.strip().rstrip("/") for line in fh if line.strip() and not line.startswith("#")]


def known(root: str = ROOT) -> dict:
    """What the collection defines: variables and the other names the docs put in backticks (tags, roles,
    playbooks, plugins), the words of its code, tags, make targets, role names and .gitignore patterns."""
    names, tags = set(), set()
    roles = sorted(os.path.basename(p) for p in glob.glob(os.path.join(root, "roles", "*")) if os.path.isdir(p))
    names.update(roles)
    for role in roles:
        base = os.path.join(root, "roles", role)
        for sub in ("defaults", "vars"):
            for path in glob.glob(os.path.join(base, sub, "**", "*.yml"), recursive=True):
                for doc in _yaml(path):
                    _keys(doc, names, deep=False)
        for doc in _yaml(os.path.join(base, "meta", "argument_specs.yml")):
            _keys(doc, names, deep=True)
        for path in glob.glob(os.path.join(base, "tasks", "**", "*.yml"), recursive=True) + \
                glob.glob(os.path.join(base, "handlers", "*.yml")):
            for doc in _yaml(path):
                _task_names(doc, names, tags)
    for top in ("playbooks", "awx"):
        for path in glob.glob(os.path.join(root, top, "**", "*.yml"), recursive=True):
            if top == "playbooks":
                names.add(os.path.splitext(os.path.basename(path))[0])
            for doc in _yaml(path):
                _task_names(doc, names, tags)
                if top == "awx" and "vars" in path.split(os.sep):
                    _keys(doc, names, deep=False)
    for path in glob.glob(os.path.join(root, "inventories", "**", "*.yml"), recursive=True):
        for doc in _yaml(path):
            _keys(doc, names, deep=True)
    for kind in ("filter", "modules", "test", "module_utils/**"):
        for path in glob.glob(os.path.join(root, "plugins", kind, "*.py"), recursive=True):
            names.add(os.path.splitext(os.path.basename(path))[0])
    names.update(tags)
    targets = set()
    makefile = os.path.join(root, "Makefile")
    if os.path.exists(makefile):
        with open(makefile, encoding="utf-8") as fh:
            for line in fh:
                match = re.match(r"^([A-Za-z0-9_.\- ]+):(?!=)", line)
                if match:
                    targets.update(match.group(1).split())
    return {"names": names, "words": _code_words(root), "tags": tags | BUILTIN_TAGS, "targets": targets,
            "roles": roles, "ignored": _ignored(root)}


# ---------------------------------------------------------------- what the docs name
def documents(root: str = ROOT) -> list:
    """README.md, each role's README.md and docs/**/*.md."""
    found = [os.path.join(root, "README.md")] if os.path.exists(os.path.join(root, "README.md")) else []
    return found + sorted(glob.glob(os.path.join(root, "roles", "*", "README.md"))) \
        + sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))


def pieces(text: str):
    """(line number, kind, text) of each inline code span ('inline'), each code block line ('block') and each
    prose line ('prose'). HTML line breaks and entities (in mermaid charts) are read as text."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"<br\s*/?>", " ", line).replace("&lt;", "<").replace("&gt;", ">")
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            yield number, "block", line
            continue
        yield number, "prose", line
        for match in INLINE.finditer(line):
            yield number, "inline", match.group(2).strip()


def _is_var_like(name: str, roles: list) -> bool:
    bare = name[2:] if name.startswith("__") else name
    return bare.startswith("gpufleet_") or any(bare.startswith(role + "_") for role in roles)


def _name_known(name: str, have: dict) -> bool:
    if name in ALLOWED or name in have["names"] or name in have["words"]:
        return True
    # a private name as docs/troubleshooting.md simplifies it: __common_limits_file, __nvidia_driver_<name>
    if "__" + name in have["names"] or any("__%s_%s" % (role, name) in have["names"] for role in have["roles"]):
        return True
    # a prefix standing for a family of names (`slurm_node_`)
    return name.endswith("_") and any(known_name.startswith(name) for known_name in have["names"] | have["words"])


def _braces(path: str) -> list:
    """Shell brace expansion, as the docs write families of files (`test_gpu_{info,settings}.py`)."""
    match = re.search(r"\{([^{}]*)\}", path)
    if not match:
        return [path]
    return [expanded for part in match.group(1).split(",")
            for expanded in _braces(path[:match.start()] + part + path[match.end():])]


def _glob_one(pattern: str, root: str) -> bool:
    if "*" not in pattern:
        return os.path.exists(os.path.join(root, pattern))
    if glob.glob(os.path.join(root, pattern)):
        return True
    # a placeholder may stand for a path of several parts (MODULE: slurm/hostlist)
    deep = "/".join("**/" + part if "*" in part else part for part in pattern.split("/"))
    return bool(glob.glob(os.path.join(root, deep), recursive=True))


def _path_exists(path: str, have: dict, root: str) -> bool:
    path = re.sub(r"::.*$", "", path)
    path = re.sub(r":\d+(-\d+)?$", "", path.rstrip(".:")).rstrip("/")
    if any(path == allowed or path.startswith(allowed + "/") for allowed in ALLOWED):
        return True
    parts = path.split("/")
    if any(fnmatch.fnmatch("/".join(parts[:n]), pattern) or fnmatch.fnmatch(parts[n - 1], pattern)
           for pattern in have["ignored"] for n in range(1, len(parts) + 1)):
        return True
    for candidate in _braces(path):
        pattern = PLACEHOLDER.sub("*", candidate)
        if any(_glob_one(where + pattern, root) for where in ("", "roles/*/", "molecule/*/", "tests/unit/")):
            continue
        return False
    return True


def check_text(rel: str, text: str, have: dict, root: str = ROOT) -> list:
    """The problems of one Markdown file (rel: its path in the checkout, for links and the report)."""
    problems = []
    for number, kind, piece in pieces(text):
        where = f"{rel}:{number}"
        if kind == "inline":
            # Paths are not variables: take the identifiers standing alone.
            for name in IDENT.findall(PATH.sub(" ", piece)):
                if _is_var_like(name, have["roles"]) and not _name_known(name, have):
                    problems.append(f"{where}: `{name}` is no variable, tag, plugin or name of the collection's code")
        if kind == "block":
            for name in EXTRA_VAR.findall(piece) + YAML_KEY.findall(piece):
                if _is_var_like(name, have["roles"]) and not _name_known(name, have):
                    problems.append(f"{where}: {name} (set in a code block) is no variable the collection has")
        if kind in ("inline", "block"):
            command = piece.split(" #")[0]
            for group in TAGS.findall(command):
                for tag in filter(None, group.split(",")):
                    if tag not in have["tags"] and tag not in ALLOWED:
                        problems.append(f"{where}: --tags {tag}: no role or playbook has the tag '{tag}'")
            for match in MAKE.finditer(command):
                for target in match.group(2).split():
                    if target not in have["targets"] and target not in ALLOWED:
                        problems.append(f"{where}: make {target}: the Makefile has no target '{target}'")
            for path in PATH.findall(piece):
                if not _path_exists(path, have, root):
                    problems.append(f"{where}: {path} does not exist")
        else:
            for target in LINK.findall(piece):
                if re.match(r"^([a-z]+:|#|/)", target):
                    continue
                local = target.split("#")[0]
                resolved = os.path.normpath(os.path.join(os.path.dirname(rel), local))
                if local and not os.path.exists(os.path.join(root, resolved)):
                    problems.append(f"{where}: the link {target} leads nowhere ({resolved} does not exist)")
    return problems


def check(root: str = "") -> list:
    root = root or ROOT
    have = known(root)
    problems = []
    for path in documents(root):
        with open(path, encoding="utf-8") as fh:
            problems += check_text(os.path.relpath(path, root), fh.read(), have, root)
    return problems


def main(argv: list) -> int:
    problems = check()
    for problem in problems:
        print(problem)
    if problems:
        print(f"doc_refs: {len(problems)} name(s) in the docs that the code lacks", file=sys.stderr)
    return 1 if problems and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
