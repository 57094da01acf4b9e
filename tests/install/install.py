# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Install a built gpufleet.cluster tarball into an empty collections path next to exactly the collections it
declares (MANIFEST.json's dependencies, i.e. galaxy.yml's, and theirs in turn), offline.

Galaxy cannot be reached here, so each dependency is taken from the copy the `ansible` PyPI bundle installed
(the versions make test runs with). The bundle's copies are installed collections, not artifacts, so they are
placed in the collections path first; `ansible-galaxy collection install --offline` then installs the tarball
and resolves its dependencies against what is there: a version outside a declared range, or a declared
collection missing from the bundle, fails the install. Last, `ansible-galaxy collection list` must show that
collections path alone, holding exactly gpufleet.cluster and the closure of its declared dependencies.

    install.py TARBALL DEST [--without NS.NAME ...]

--without drops a dependency from the tarball's MANIFEST.json before installing, as if galaxy.yml did not
declare it: run.sh's self-check uses it to show that a collection the roles need, left undeclared, fails.
Run with ANSIBLE_CONFIG set to tests/install/ansible.cfg (it names no collections path and no callback).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from typing import Dict, List, Tuple

SELF = "gpufleet.cluster"


class InstallError(Exception):
    pass


def manifest_of_tarball(path: str) -> dict:
    with tarfile.open(path, "r:gz") as tar:
        member = tar.extractfile("MANIFEST.json")
        if member is None:
            raise InstallError(f"{path}: no MANIFEST.json")
        return json.load(member)


def without(tarball: str, dropped: List[str], out_dir: str) -> str:
    """A copy of TARBALL whose MANIFEST.json no longer declares DROPPED (FILES.json does not cover MANIFEST.json)."""
    manifest = manifest_of_tarball(tarball)
    deps = manifest["collection_info"]["dependencies"]
    for name in dropped:
        if name not in deps:
            raise InstallError(f"--without {name}: the tarball does not declare it (it declares {sorted(deps)})")
        del deps[name]
    out = os.path.join(out_dir, os.path.basename(tarball))
    if os.path.abspath(out) == os.path.abspath(tarball):
        raise InstallError("--without would overwrite the tarball it reads")
    data = json.dumps(manifest, indent=4, sort_keys=True).encode()
    with tarfile.open(tarball, "r:gz") as src, tarfile.open(out, "w:gz") as dst:
        for member in src.getmembers():
            if member.name == "MANIFEST.json":
                member.size = len(data)
                dst.addfile(member, io.BytesIO(data))
            else:
                dst.addfile(member, src.extractfile(member) if member.isfile() else None)
    return out


def bundle_roots() -> List[str]:
    """Where the `ansible` PyPI package put its collections (site-packages/ansible_collections)."""
    roots = []
    for entry in sys.path:
        root = os.path.join(entry or ".", "ansible_collections")
        if os.path.isfile(os.path.join(root, "ansible_community.py")) and root not in roots:
            roots.append(root)
    if not roots:
        raise InstallError("the ansible package's collections (site-packages/ansible_collections) were not found; "
                           "requirements-dev.txt installs them (pip install ansible)")
    return roots


def find_in_bundle(name: str, roots: List[str]) -> Tuple[str, dict]:
    namespace, collection = name.split(".", 1)
    for root in roots:
        path = os.path.join(root, namespace, collection)
        manifest = os.path.join(path, "MANIFEST.json")
        if os.path.isfile(manifest):
            with open(manifest, encoding="utf-8") as fh:
                return path, json.load(fh)
    raise InstallError(f"{name} is declared but the ansible bundle has no copy of it (looked in {roots})")


def closure(declared: Dict[str, str], roots: List[str]) -> Dict[str, Tuple[str, str]]:
    """{name: (bundle path, version)} for the declared collections and, recursively, their own dependencies."""
    found: Dict[str, Tuple[str, str]] = {}
    todo = sorted(declared)
    while todo:
        name = todo.pop(0)
        if name in found:
            continue
        path, manifest = find_in_bundle(name, roots)
        info = manifest["collection_info"]
        found[name] = (path, info["version"])
        todo.extend(sorted(set(info.get("dependencies") or {}) - set(found)))
    return found


def place(name: str, src: str, dest: str) -> None:
    namespace, collection = name.split(".", 1)
    target = os.path.join(dest, "ansible_collections", namespace, collection)

    def link_or_copy(a: str, b: str) -> None:
        try:
            os.link(a, b)  # the bundle's files are only read; links make this instant
        except OSError:
            shutil.copy2(a, b)

    shutil.copytree(src, target, copy_function=link_or_copy, ignore=shutil.ignore_patterns("__pycache__"))


def galaxy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-galaxy"), *args],
                          capture_output=True, text=True, check=False)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tarball")
    parser.add_argument("dest", help="an empty or missing directory: the collections path")
    parser.add_argument("--without", action="append", default=[], metavar="NS.NAME")
    args = parser.parse_args(argv)

    dest = os.path.abspath(args.dest)
    if os.path.exists(dest) and os.listdir(dest):
        raise InstallError(f"{dest} is not empty")
    os.makedirs(dest, exist_ok=True)
    if os.environ.get("ANSIBLE_COLLECTIONS_PATH") != dest or os.environ.get("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH") != "false":
        raise InstallError("set ANSIBLE_COLLECTIONS_PATH to DEST alone and ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false")

    version = manifest_of_tarball(args.tarball)["collection_info"]["version"]
    with tempfile.TemporaryDirectory() as scratch:
        tarball = without(args.tarball, args.without, scratch) if args.without else args.tarball
        declared = manifest_of_tarball(tarball)["collection_info"]["dependencies"] or {}
        needed = closure(declared, bundle_roots())
        for name, (path, _version) in sorted(needed.items()):
            place(name, path, dest)
        result = galaxy("collection", "install", "--offline", tarball)
        print(result.stdout, end="")
        if result.returncode != 0:
            raise InstallError(f"ansible-galaxy collection install --offline failed:\n{result.stdout}{result.stderr}")

    listed = galaxy("collection", "list", "--format", "json")
    if listed.returncode != 0:
        raise InstallError(f"ansible-galaxy collection list failed: {listed.stderr}")
    by_path = json.loads(listed.stdout)
    ours = os.path.join(dest, "ansible_collections")
    seen = {name: info["version"] for name, info in by_path.pop(ours, {}).items()}
    # ansible-core's own internal collection (ansible._protomatter, under ansible/_internal) is part of ansible-core.
    others = {path: sorted(cols) for path, cols in by_path.items() if set(cols) - {"ansible._protomatter"}}
    expected = {name: version for name, (_path, version) in needed.items()}
    expected[SELF] = version
    if others:
        raise InstallError(f"collections outside {dest} are visible: {others}")
    if seen != expected:
        raise InstallError(f"{dest} holds {seen}, expected exactly {expected}")
    print(f"{dest}: " + ", ".join(f"{name} {version}" for name, version in sorted(seen.items())))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InstallError as exc:
        print(f"install.py: {exc}", file=sys.stderr)
        sys.exit(1)
