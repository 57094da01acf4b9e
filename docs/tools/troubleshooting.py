# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write docs/troubleshooting.md from the roles' own refusals, so the page cannot drift from them.

    python docs/tools/troubleshooting.py          rewrite docs/troubleshooting.md
    python docs/tools/troubleshooting.py --check  exit 1 when the page is out of date, a refusal has no
                                                  explanation, or an explanation names a task that is gone

A refusal is an `ansible.builtin.assert` (its `fail_msg`) or an `ansible.builtin.fail` (its `msg`) task in
roles/*/tasks/*.yml, blocks included. The page shows each message as the role writes it, with its Jinja
simplified (`{{ inventory_hostname }}` becomes <host>, a variable becomes <its name>, anything longer <...>).
What a refusal means and how to fix it come from docs/tools/troubleshooting.yml, keyed by role and task name;
the daemons' log locations come from the same file.
"""
from __future__ import annotations

import glob
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "troubleshooting.md")
EXPLANATIONS = os.path.join(ROOT, "docs", "tools", "troubleshooting.yml")
KINDS = {"ansible.builtin.assert": "assert", "ansible.builtin.fail": "fail"}


def refusals(root: str = ROOT) -> list:
    """Every assert and fail task of every role, in role, file and task order."""
    found = []

    def walk(node, role, path):
        if isinstance(node, list):
            for item in node:
                walk(item, role, path)
            return
        if not isinstance(node, dict):
            return
        for key, kind in KINDS.items():
            if key in node:
                args = node[key] or {}
                found.append({
                    "role": role, "file": os.path.relpath(path, os.path.join(root, "roles", role)),
                    "name": str(node.get("name", "")), "kind": kind,
                    "message": str(args.get("fail_msg" if kind == "assert" else "msg") or ""),
                    "that": args.get("that") if isinstance(args.get("that"), list) else
                    ([args["that"]] if args.get("that") else []),
                    "vars": node.get("vars") or {},
                })
        for key in ("block", "rescue", "always"):
            walk(node.get(key), role, path)

    for path in sorted(glob.glob(os.path.join(root, "roles", "*", "tasks", "*.yml"))):
        role = os.path.basename(os.path.dirname(os.path.dirname(path)))
        with open(path, encoding="utf-8") as fh:
            walk(yaml.safe_load(fh), role, path)
    return found


def _placeholder(expression: str, role: str) -> str:
    expression = expression.strip()
    if expression == "inventory_hostname":
        return "<host>"
    match = re.fullmatch(r"ansible_facts\[['\"](\w+)['\"]\](\s*\|.*)?", expression, re.S)
    if match:
        return f"<{match.group(1)}>"
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\s*\|.*)?", expression, re.S)
    if match:
        name = re.sub(r"^__" + re.escape(role) + "_", "", match.group(1))
        return f"<{name.lstrip('_')}>"
    return "<...>"


def simplify(message: str, role: str) -> str:
    """A templated message in words: each `{{ ... }}` becomes a <placeholder>, `{% ... %}` goes."""
    text = " ".join(message.split())
    text = re.sub(r"\{%.*?%\}", "", text)
    return re.sub(r"\{\{(.*?)\}\}", lambda m: _placeholder(m.group(1), role), text).strip()


def message_parts(refusal: dict, name: str = "") -> list:
    """For a message that only joins a list of problems the task's `vars` assemble: the text of each problem,
    its string literals in order with <...> where an expression goes. A problem worded in a variable of its own
    (`[__role_x_message]`) is that variable's text, or the parts of the list it joins in turn."""
    message = str(refusal["vars"].get(name, "")) if name else refusal["message"]
    match = re.fullmatch(r"\s*(?:\{\{\s*inventory_hostname\s*\}\}:\s*)?\{\{\s*(__\w+)\s*\|\s*join\([^)]*\)\s*\}\}\.?\s*",
                         message)
    if not match or match.group(1) not in refusal["vars"]:
        return []
    template = str(refusal["vars"][match.group(1)])
    parts = []
    for start in re.finditer(r"\[\(|\[(__\w+)\]", template):
        if start.group(1):
            if start.group(1) in refusal["vars"]:
                parts += (message_parts(refusal, start.group(1))
                          or [simplify(str(refusal["vars"][start.group(1)]), refusal["role"])])
            continue
        problem = re.split(r"\)\]", template[start.end():])[0]
        pieces, last = [], 0
        # Jinja's single- or double-quoted literals (a text holding an apostrophe is written in double quotes)
        for literal in re.finditer(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", problem):
            if re.search(r"\w[\[(]\s*$", problem[:literal.start()]):
                continue  # a subscript (hv['x']) or a filter's argument (join(', ')), not message text
            if re.sub(r"[\s~()]", "", problem[last:literal.start()]):
                pieces.append("<...>")
            text = literal.group(1) if literal.group(1) is not None else literal.group(2)
            pieces.append(text.replace("\\'", "'"))  # a quote escaped in the literal
            last = literal.end()
        text = " ".join("".join(pieces).split())
        if len(text) > 40:
            parts.append(text)
    return parts


def _markdown(text: str) -> str:
    """Message text safe in Markdown: placeholders and <...> as code, emphasis characters escaped."""
    out = []
    for index, chunk in enumerate(re.split(r"(`[^`]*`|<[^<>\s][^<>]*>)", text)):
        if index % 2:
            out.append(chunk if chunk.startswith("`") else f"`{chunk}`")
        else:
            out.append(re.sub(r"(\*|\||(?<![\w.])_)", r"\\\1", chunk))
    return "".join(out)


def load_explanations(path: str = EXPLANATIONS) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


def problems(found: list, explanations: dict) -> list:
    """What --check refuses besides a stale page: refusals without an explanation, explanations of no refusal."""
    out = []
    known = {}
    for refusal in found:
        key = (refusal["role"], refusal["name"])
        if key in known:
            out.append(f"roles/{refusal['role']}: two refusals are named {refusal['name']!r} "
                       f"({known[key]}, {refusal['file']}); give them distinct names")
        known[key] = refusal["file"]
    roles = explanations.get("roles") or {}
    for role, name in known:
        entry = (roles.get(role) or {}).get(name)
        if not entry:
            out.append(f"roles/{role}/{known[(role, name)]}: {name!r} has no explanation in "
                       f"docs/tools/troubleshooting.yml (roles.{role})")
        elif not str(entry.get("means", "")).strip() or not str(entry.get("fix", "")).strip():
            out.append(f"docs/tools/troubleshooting.yml: roles.{role}.{name!r} needs both means and fix")
    for role, entries in roles.items():
        for name in entries or {}:
            if (role, name) not in known:
                out.append(f"docs/tools/troubleshooting.yml: roles.{role}.{name!r} explains no task of "
                           f"roles/{role}/tasks (renamed or removed?)")
    return out


def render(found: list, explanations: dict) -> str:
    roles = explanations.get("roles") or {}
    lines = [
        "# Troubleshooting",
        "",
        "<!-- Generated by docs/tools/troubleshooting.py from roles/*/tasks and docs/tools/troubleshooting.yml."
        " Do not edit: change those, then run python docs/tools/troubleshooting.py. -->",
        "",
        "Every role checks its input and the node before it changes anything (its preflight), and stops with a"
        " message that names the value, the limit and the fix. This page lists every such refusal of every role,"
        " with the message as the role writes it (`<host>` is the node, `<name>` a variable's value, `<...>` a"
        " longer expression), what it means and what to do. `make lint` checks that the page matches the roles.",
        "",
        "A refusal in preflight stops the run on every host before any change (the roles set `any_errors_fatal`"
        " on their preflight), so after the fix the same command runs again from the start.",
        "",
        "## Where each daemon logs",
        "",
        "| daemon | runs on | log | read it with |",
        "|---|---|---|---|",
    ]
    for entry in explanations.get("logs") or []:
        lines.append(f"| {entry['daemon']} | {entry['hosts']} | {entry['log']} | {entry['read']} |")
    lines += ["", str(explanations.get("logs_note", "")).strip(), "", "## Refusals, role by role", ""]
    by_role = {}
    for refusal in found:
        by_role.setdefault(refusal["role"], []).append(refusal)
    lines.append(" ".join(f"[{role}](#{role})" for role in by_role))
    lines.append("")
    for role, items in by_role.items():
        lines += [f"### {role}", ""]
        intro = str((explanations.get("role_notes") or {}).get(role, "")).strip()
        if intro:
            lines += [intro, ""]
        for refusal in items:
            entry = (roles.get(role) or {}).get(refusal["name"]) or {}
            lines.append(f"#### {simplify(refusal['name'], role).replace('*', chr(92) + '*')}")
            lines.append("")
            lines.append(f"`roles/{role}/{refusal['file']}`, {refusal['kind']}.")
            lines.append("")
            message = simplify(refusal["message"], role)
            if message:
                lines.append(f"> {_markdown(message)}")
                lines.append("")
            parts = message_parts(refusal)
            if parts:
                lines.append("The message joins whichever of these apply:")
                lines.append("")
                lines += [f"- {_markdown(part)}" for part in parts]
                lines.append("")
            if not message:
                lines.append("No message of its own: Ansible prints `Assertion failed` and the first condition"
                             " that does not hold:")
                lines.append("")
                lines += [f"- `{' '.join(str(cond).split())}`" for cond in refusal["that"]]
                lines.append("")
            lines.append(f"**Means:** {' '.join(str(entry.get('means', '')).split())}")
            lines.append("")
            lines.append(f"**Fix:** {' '.join(str(entry.get('fix', '')).split())}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(check: bool) -> int:
    found = refusals()
    explanations = load_explanations()
    errors = problems(found, explanations)
    page = render(found, explanations)
    if check:
        current = open(PAGE, encoding="utf-8").read() if os.path.exists(PAGE) else ""
        if current != page:
            errors.append("docs/troubleshooting.md is out of date: run python docs/tools/troubleshooting.py")
    elif not errors:
        with open(PAGE, "w", encoding="utf-8") as fh:
            fh.write(page)
    for line in errors:
        print(line)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
