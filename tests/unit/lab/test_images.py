# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/images.py: the package mirrors from the host's apt configuration, and the recipe hash that tags an image."""
from __future__ import annotations

import images


def test_apt_sources_read_deb822_and_one_line(tmp_path, monkeypatch):
    d = tmp_path / "sources.list.d"
    d.mkdir()
    (d / "debian.sources").write_text(
        "Types: deb\n# a comment\nURIs: http://mirror.invalid/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\n\nTypes: deb\nURIs: http://mirror.invalid/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\nTypes: deb\nURIs: http://off.invalid\nSuites: noble\nEnabled: no\n")
    (d / "extra.list").write_text("deb [arch=amd64] http://ubuntu.invalid/ubuntu noble main  # trailing\n")
    real_glob = images.glob.glob
    monkeypatch.setattr(images.glob, "glob",
                        lambda pattern: real_glob(pattern.replace("/etc/apt/sources.list.d", str(d))))
    sources = images.apt_sources()
    assert {"uris": ["http://mirror.invalid/debian"], "suites": ["bookworm", "bookworm-updates"]} in sources
    assert {"uris": ["http://ubuntu.invalid/ubuntu"], "suites": ["noble"]} in sources
    assert all(s["uris"] != ["http://off.invalid"] for s in sources)  # Enabled: no
    monkeypatch.delenv("LAB_UBUNTU_MIRROR", raising=False)
    assert images.mirror_for("noble", "LAB_UBUNTU_MIRROR") == "http://ubuntu.invalid/ubuntu"
    monkeypatch.setenv("LAB_UBUNTU_MIRROR", "http://override.invalid/ubuntu/")
    assert images.mirror_for("noble", "LAB_UBUNTU_MIRROR") == "http://override.invalid/ubuntu"


def test_recipe_hash_follows_the_mirror(monkeypatch):
    debian = images.DISTROS["debian12"]
    monkeypatch.setenv("LAB_DEBIAN_MIRROR", "http://a.invalid/debian")
    first = images.recipe_hash(debian)
    assert first == images.recipe_hash(debian)
    monkeypatch.setenv("LAB_DEBIAN_MIRROR", "http://b.invalid/debian")
    assert images.recipe_hash(debian) != first
