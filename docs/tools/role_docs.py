# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write each role README's variables section from its meta/argument_specs.yml.

    python docs/tools/role_docs.py          rewrite the sections
    python docs/tools/role_docs.py --check  exit 1 when a README is out of date (make lint)

The section sits between `<!-- BEGIN ARGUMENT SPECS -->` and `<!-- END ARGUMENT SPECS -->`.

The default column says what the role really starts from. Role defaults (defaults/main.yml) win over the
argument spec's `default` (Ansible loads them first), so a value there is the default. A default that is a
template is shown as "computed: `<expression>`"; one that reads the role's internal `__` variables needs a
`# computed from: <what>` comment on the line above it in defaults/main.yml, which is shown instead. A long
literal (the metrics list, the scheduling defaults) points at defaults/main.yml.

Both modes also check each role README's `## Tags` section: it must list exactly the tags the role's tasks use
(a README is hand-written, so this check is what keeps it true).
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEGIN, END = "<!-- BEGIN ARGUMENT SPECS -->", "<!-- END ARGUMENT SPECS -->"


def _text(value) -> str:
    lines = value if isinstance(value, list) else [value]
    text = " ".join(str(line) for line in lines)
    text = re.sub(r"[CVO]\(([^)]*)\)", r"`\1`", text)
    return text.replace("|", "\\|")


COMPUTED_NOTE = re.compile(r"^#\s*computed from:\s*(.+?)\s*$")
LONG_LITERAL = 200


def role_defaults(role_dir: str) -> tuple:
    """defaults/main.yml of a role, and the `# computed from:` notes keyed by the variable below each note."""
    path = os.path.join(role_dir, "defaults", "main.yml")
    if not os.path.exists(path):
        return {}, {}
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    notes, pending = {}, None
    for line in text.splitlines():
        match = COMPUTED_NOTE.match(line.strip())
        top = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):", line)
        if match:
            pending = (pending + " " if pending else "") + match.group(1)
        elif top:
            if pending:
                notes[top.group(1)] = pending
            pending = None
        elif not line.strip():
            pending = None
    return yaml.safe_load(text) or {}, notes


def _is_template(value) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _expression(value: str) -> str:
    """The Jinja expression of a one-expression template, whitespace folded."""
    text = " ".join(value.split())
    match = re.fullmatch(r"\{\{\s*(.*?)\s*\}\}", text)
    return match.group(1) if match else text


def default_cell(name: str, opt: dict, defaults: dict, notes: dict) -> tuple:
    """The default column of one variable, and a problem (or None) for --check."""
    if opt.get("required"):
        return "*required*", None
    value = defaults[name] if name in defaults else opt.get("default")
    if name in notes:
        return f"computed from {_text(notes[name])}", None
    if _is_template(value):
        expression = _expression(value)
        if "__" in expression:
            return (f"computed: `{expression}`",
                    f"{name}: its default reads internal variables ({expression}); put a "
                    f"'# computed from: <what>' comment above it in defaults/main.yml")
        return f"computed: `{expression.replace('|', chr(92) + '|')}`", None
    shown = json.dumps(value)
    if len(shown) > LONG_LITERAL and isinstance(value, (list, dict)):
        what = f"{len(value)} entries" if isinstance(value, list) else f"{len(value)} keys"
        return f"see `defaults/main.yml` ({what})", None
    return f"`{shown.replace('|', chr(92) + '|')}`", None


def render(spec_path: str, problems: list = None) -> str:
    with open(spec_path, encoding="utf-8") as fh:
        specs = yaml.safe_load(fh)["argument_specs"]
    defaults, notes = role_defaults(os.path.dirname(os.path.dirname(spec_path)))
    out = []
    for entry, spec in specs.items():
        out.append(f"### Entry point `{entry}`\n\n{_text(spec.get('short_description', ''))}\n")
        out.append("| variable | type | default | description |\n|---|---|---|---|")
        for name, opt in sorted(spec.get("options", {}).items()):
            kind = opt.get("type", "str") + (f" of {opt['elements']}" if opt.get("elements") else "")
            default, problem = default_cell(name, opt, defaults, notes)
            if problem and problems is not None:
                problems.append(f"{os.path.relpath(spec_path, ROOT)}: {problem}")
            out.append(f"| `{name}` | {kind} | {default} | {_text(opt.get('description', ''))} |")
        out.append("")
    return "\n".join(out)


def task_tags(role_dir: str) -> set:
    """Every tag the role's task files set, blocks and imports included."""
    tags = set()

    def walk(node):
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            found = node.get("tags") or []
            tags.update([found] if isinstance(found, str) else found)
            for key in ("block", "rescue", "always"):
                walk(node.get(key))

    for path in sorted(glob.glob(os.path.join(role_dir, "tasks", "*.yml"))):
        with open(path, encoding="utf-8") as fh:
            walk(yaml.safe_load(fh))
    return tags


def tags_problem(role_dir: str, text: str):
    """None when the README's `## Tags` section lists exactly the tags of the role's tasks."""
    tags = task_tags(role_dir)
    section = re.search(r"^## Tags\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    readme = os.path.relpath(os.path.join(role_dir, "README.md"), ROOT)
    if not tags:
        return None
    if not section:
        return f"{readme}: no '## Tags' section; the tasks use {', '.join(sorted(tags))}"
    role = os.path.basename(role_dir)
    listed = {tag for tag in re.findall(r"`([a-z0-9_]+)`", section.group(1)) if tag == role or tag.startswith(role + "_")}
    if listed != tags:
        missing, extra = sorted(tags - listed), sorted(listed - tags)
        return (f"{readme}: '## Tags' is out of date" + (f"; not listed: {', '.join(missing)}" if missing else "")
                + (f"; no task has: {', '.join(extra)}" if extra else ""))
    return None


def main(check: bool) -> int:
    stale = []
    for spec_path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))):
        role_dir = os.path.dirname(os.path.dirname(spec_path))
        readme = os.path.join(role_dir, "README.md")
        with open(readme, encoding="utf-8") as fh:
            text = fh.read()
        if BEGIN not in text or END not in text:
            stale.append(f"{readme}: no {BEGIN} ... {END} section")
            continue
        problem = tags_problem(role_dir, text)
        if problem:
            stale.append(problem)
        new = text.split(BEGIN)[0] + BEGIN + "\n" + render(spec_path, stale) + END + text.split(END, 1)[1]
        if new != text:
            if check:
                stale.append(f"{os.path.relpath(readme, ROOT)} is out of date: run python docs/tools/role_docs.py")
            else:
                with open(readme, "w", encoding="utf-8") as fh:
                    fh.write(new)
    for line in stale:
        print(line)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
