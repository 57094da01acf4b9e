# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How `make mutation` names a module of plugins/module_utils, and where its file, staging tree and mutants are.

A module is named by its path under plugins/module_utils without ``.py``: ``slurm/hostlist`` is
plugins/module_utils/slurm/hostlist.py, imported as ``...plugins.module_utils.slurm.hostlist``. Its staging tree under
.build/mutation/ has a flat name, the path with dots (``slurm.hostlist``): the parts are Python identifiers, so the
two spellings map onto each other exactly. run.py, scores.py and by_hand.py all name modules through this file.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Pattern

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / ".build" / "mutation"
PKG = Path("ansible_collections/gpufleet/cluster")
MODULE_UTILS = Path("plugins") / "module_utils"
_NAME = re.compile(r"[A-Za-z_]\w*(?:/[A-Za-z_]\w*)*\Z")


def canonical(arg: str) -> str:
    """The module's name (``slurm/hostlist``) from that name, its file (``slurm/hostlist.py``,
    ``plugins/module_utils/slurm/hostlist.py``) or its staging name (``slurm.hostlist``); ValueError otherwise."""
    name = arg
    if name.startswith(MODULE_UTILS.as_posix() + "/"):
        name = name[len(MODULE_UTILS.as_posix()) + 1:]
    if name.endswith(".py"):
        name = name[:-3]
    if "/" not in name:
        name = name.replace(".", "/")
    if not _NAME.match(name) or name.rsplit("/", 1)[-1] == "__init__":
        raise ValueError("%r is not a module name: its path under plugins/module_utils without .py, e.g. slurm/hostlist"
                         % arg)
    return name


def source(module: str, root: Path = ROOT) -> Path:
    """plugins/module_utils/<module>.py under root."""
    return root / MODULE_UTILS / (module + ".py")


def relative_source(module: str) -> str:
    return (MODULE_UTILS / (module + ".py")).as_posix()


def dotted(module: str) -> str:
    """The import path under the collection: plugins.module_utils.slurm.hostlist."""
    return ".".join(MODULE_UTILS.parts + tuple(module.split("/")))


def staging_name(module: str) -> str:
    """The flat name of the module's folder under .build/mutation: slurm.hostlist."""
    return module.replace("/", ".")


def mutant_prefix(module: str) -> str:
    """What mutmut's names of the module's mutants start with (the rest is x_<function>__mutmut_<n>)."""
    return "ansible_collections.gpufleet.cluster.%s." % dotted(module)


def staged(work: Path, module: str) -> Path:
    """The staging tree's copy of the module (what mutmut copies into mutants/ and mutates)."""
    return work / PKG / MODULE_UTILS / (module + ".py")


def meta(work: Path, module: str) -> Path:
    """mutmut's results of the module in its staging tree."""
    return work / "mutants" / PKG / MODULE_UTILS / (module + ".py.meta")


def known(root: Path = ROOT) -> List[str]:
    """Every module of plugins/module_utils under root, by name."""
    base = root / MODULE_UTILS
    return sorted(p.relative_to(base).with_suffix("").as_posix() for p in base.rglob("*.py")
                  if p.name != "__init__.py" and "__pycache__" not in p.parts)


def _hint(name: str, modules: List[str]) -> Optional[str]:
    """Modules a flat name of the old layout may have meant: roce_qos -> fabric/roce/qos, slurm_conf -> slurm/conf/*
    (only the module whose path it spells, when there is one: slurm_hostlist -> slurm/hostlist)."""
    flat = name.replace("/", "_")
    near = [m for m in modules if m.replace("/", "_") == flat] or [
        m for m in modules if m.replace("/", "_").endswith("_" + flat) or m.replace("/", "_").startswith(flat + "_")
        or m.rsplit("/", 1)[-1] == flat]
    return "did you mean %s?" % " or ".join(near[:6]) if near else None


def unknown(modules: List[str], root: Path = ROOT) -> Dict[str, str]:
    """For each name that is no module of plugins/module_utils under root: why (and which module it may mean).
    Every such name is reported, none is left out: a run stops before it starts when one is missing."""
    found: Dict[str, str] = {}
    names = known(root)
    for arg in modules:
        try:
            module = canonical(arg)
        except ValueError as exc:
            found[arg] = str(exc)
            continue
        if not source(module, root).is_file():
            hint = _hint(module, names)
            found[arg] = "no %s%s" % (relative_source(module), "; " + hint if hint else "")
    return found


def imports(dotted_path: str) -> Pattern[str]:
    """A regex for the spellings that import a plugin by its dotted path (plugins.module_utils.slurm.hostlist,
    plugins.filter.hostlist_expand): ``...plugins.module_utils.slurm.hostlist`` and
    ``from ...plugins.module_utils.slurm import hostlist`` (also in parentheses over several lines)."""
    package, name = dotted_path.rsplit(".", 1)
    p, n = re.escape(package), re.escape(name)
    return re.compile(r"%s\.%s\b|%s import [^\n(]*\b%s\b|%s import \(\s*[^)]*\b%s\b" % (p, n, p, n, p, n))


def plain_imports(name: str) -> Pattern[str]:
    """A regex for importing a test helper of tests/unit/helpers by its plain name."""
    return re.compile(r"^\s*(?:from %s import|import %s\b)" % ((re.escape(name),) * 2), re.MULTILINE)
