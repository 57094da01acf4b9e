# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Jinja string literals of the roles' and playbooks' templates are written as ansible-core 2.19 reads them.

ansible-core 2.19 (the release this collection runs on) reads the string literals of a template two ways, measured
with ansible-playbook on a folded YAML value:
- inside ``{{ ... }}`` a literal is taken as written: ``'\\\\1'`` is three characters (a backslash kept doubled, so
  as a regex it matches a backslash and as a replacement it is no back-reference), and ``'\\n'`` is a backslash and an
  n, no newline;
- inside ``{% ... %}`` Jinja undoes the escapes: ``'\\\\1'`` is the back-reference ``\\1``, ``'\\1'`` is the character
  chr(1), ``'\\n'`` a newline.
So a doubled backslash inside ``{{ }}`` is a mistake (the flavour headers of a Debian kernel were never named), as is
a single backslash inside ``{% %}`` other than ``\\n``, ``\\t`` or a quote (it became chr(1), or relies on an escape
Python deprecates), and a literal that is just ``'\\n'`` or ``'\\t'`` inside ``{{ }}`` builds text with a backslash
in it (set it in a ``{% set %}`` instead). A double-quoted YAML value is unescaped by YAML first; what reaches Jinja
is checked the same way. Conditionals (``when``, ``until``, ``that``, ...) are expressions, not templates, and are
left out.
"""
from __future__ import annotations

import glob
import os
import re
from typing import Any, Iterator, List, Tuple

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONDITIONALS = {"when", "until", "that", "failed_when", "changed_when"}
EXPRESSION = re.compile(r"\{\{.*?\}\}", re.S)
STATEMENT = re.compile(r"\{%.*?%\}", re.S)
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


def _literals(block: str) -> Iterator[Tuple[str, str]]:
    for literal in LITERAL.finditer(block):
        body = literal.group(1) if literal.group(1) is not None else literal.group(2)
        yield literal.group(0), body


def misread_literals(text: str) -> List[str]:
    """The string literals of text's templates that ansible-core 2.19 reads otherwise than they mean."""
    found = []
    for block in EXPRESSION.findall(text):
        for whole, body in _literals(block):
            if "\\\\" in body or body in ("\\n", "\\t"):
                found.append(whole)
    for block in STATEMENT.findall(text):
        for whole, body in _literals(block):
            if re.search(r"(?<!\\)\\(?![\\nt'\"])", body.replace("\\\\", "")):
                found.append(whole)
    return found


def files() -> List[str]:
    patterns = ["roles/*/tasks/*.yml", "roles/*/vars/*.yml", "roles/*/defaults/*.yml", "roles/*/handlers/*.yml",
                "playbooks/*.yml"]
    return sorted(p for pattern in patterns for p in glob.glob(os.path.join(ROOT, pattern)))


def test_the_check_finds_what_it_is_for():
    assert misread_literals("{{ x | regex_replace('(\\\\s+)', '\\\\1') }}") == ["'(\\\\s+)'", "'\\\\1'"]
    assert misread_literals("{{ x | regex_replace('(\\s+)', '\\1') ~ '\\n' }}") == ["'\\n'"]
    assert misread_literals("{% set x = y | regex_replace('(\\\\s+)', '\\\\1') ~ '\\n' %}") == []
    assert misread_literals("{% set x = y | regex_replace('(\\s+)', '\\1') %}") == ["'(\\s+)'", "'\\1'"]
    assert misread_literals("a '\\\\' outside a template") == []
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
            for literal in misread_literals(text):
                bad.append(f"{os.path.relpath(path, ROOT)}: {key}: {literal}")
    assert not bad, "Jinja literals ansible-core 2.19 reads otherwise (see this file's docstring):\n" + "\n".join(bad)
