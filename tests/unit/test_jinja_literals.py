# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""No Jinja string literal in a template of the roles or playbooks holds a doubled backslash.

ansible-core 2.19 (the release this collection runs on) does not undo escapes in the string literals of a template:
in a plain or folded YAML value, ``regex_replace('(\\\\s+)', '\\\\1')`` hands Python's re the two characters ``\\\\``
(a literal backslash) and a replacement ``\\\\1`` that is no back-reference, so the expression silently matches
nothing. Found twice in one review (the staged slurm.conf kept Include lines pointing at the live files; the kernel's
flavour headers were never named); written ``'\\s'``, ``'\\1'`` (one backslash, as Python's re reads it) it works. A
double-quoted YAML value is unescaped by YAML first, so what reaches Jinja there is checked the same way.
Conditionals (``when``, ``until``, ``that``, ...) are expressions, not templates, and are left out.
"""
from __future__ import annotations

import glob
import os
import re
from typing import Any, Iterator, List, Tuple

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONDITIONALS = {"when", "until", "that", "failed_when", "changed_when"}
TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


class _Loader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
    """safe_load that reads ansible's tags (!vault, !unsafe) as plain values."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_scalar(node)
                              if isinstance(node, yaml.ScalarNode) else None)


def strings(value: Any, key: str = "") -> Iterator[Tuple[str, str]]:
    """Every string under value with the key it sits under (list items keep their list's key)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from strings(v, key)
    elif isinstance(value, str):
        yield key, value


def doubled_backslashes(text: str) -> List[str]:
    """The Jinja string literals of text's templates that hold two backslashes in a row."""
    found = []
    for block in TEMPLATE.findall(text):
        for literal in LITERAL.finditer(block):
            body = literal.group(1) if literal.group(1) is not None else literal.group(2)
            if "\\\\" in body:
                found.append(literal.group(0))
    return found


def files() -> List[str]:
    patterns = ["roles/*/tasks/*.yml", "roles/*/vars/*.yml", "roles/*/defaults/*.yml", "roles/*/handlers/*.yml",
                "playbooks/*.yml"]
    return sorted(p for pattern in patterns for p in glob.glob(os.path.join(ROOT, pattern)))


def test_the_check_finds_what_it_is_for():
    assert doubled_backslashes("{{ x | regex_replace('(\\\\s+)', '\\\\1') }}") == ["'(\\\\s+)'", "'\\\\1'"]
    assert doubled_backslashes("{{ x | regex_replace('(\\s+)', '\\1') }}") == []
    assert doubled_backslashes("a '\\\\' outside a template") == []
    assert list(strings({"a": [{"when": "x"}, "y"]})) == [("when", "x"), ("a", "y")]


def test_no_template_literal_holds_a_doubled_backslash():
    assert files(), "no role or playbook files found"
    bad = []
    for path in files():
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
        for key, text in strings(data):
            if key in CONDITIONALS:
                continue
            for literal in doubled_backslashes(text):
                bad.append(f"{os.path.relpath(path, ROOT)}: {key}: {literal}")
    assert not bad, "Jinja literals with a doubled backslash (one is what re needs):\n" + "\n".join(bad)
