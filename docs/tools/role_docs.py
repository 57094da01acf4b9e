# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write each role README's variables section from its meta/argument_specs.yml.

    python docs/tools/role_docs.py          rewrite the sections
    python docs/tools/role_docs.py --check  exit 1 when a README is out of date (make lint)

The section sits between `<!-- BEGIN ARGUMENT SPECS -->` and `<!-- END ARGUMENT SPECS -->`.
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


def render(spec_path: str) -> str:
    with open(spec_path, encoding="utf-8") as fh:
        specs = yaml.safe_load(fh)["argument_specs"]
    out = []
    for entry, spec in specs.items():
        out.append(f"### Entry point `{entry}`\n\n{_text(spec.get('short_description', ''))}\n")
        out.append("| variable | type | default | description |\n|---|---|---|---|")
        for name, opt in sorted(spec.get("options", {}).items()):
            kind = opt.get("type", "str") + (f" of {opt['elements']}" if opt.get("elements") else "")
            default = "*required*" if opt.get("required") else f"`{json.dumps(opt.get('default'))}`"
            out.append(f"| `{name}` | {kind} | {default} | {_text(opt.get('description', ''))} |")
        out.append("")
    return "\n".join(out)


def main(check: bool) -> int:
    stale = []
    for spec_path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))):
        readme = os.path.join(os.path.dirname(os.path.dirname(spec_path)), "README.md")
        with open(readme, encoding="utf-8") as fh:
            text = fh.read()
        if BEGIN not in text or END not in text:
            stale.append(f"{readme}: no {BEGIN} ... {END} section")
            continue
        new = text.split(BEGIN)[0] + BEGIN + "\n" + render(spec_path) + END + text.split(END, 1)[1]
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
