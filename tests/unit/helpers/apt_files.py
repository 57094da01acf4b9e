# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""APT source files as the apt filters read them ({path, content}, slurp's content decoded), for their tests."""
from __future__ import annotations

# The lab image's /etc/apt/sources.list (mirror name replaced by an example.org name).
LAB_IMAGE = {"path": "/etc/apt/sources.list", "content": (
    "deb http://mirror.example.org/debian bookworm main\n"
    "deb http://mirror.example.org/debian bookworm-updates main\n"
    "deb http://mirror.example.org/debian-security bookworm-security main\n")}
# What NVIDIA's cuda-keyring 1.1 package installs.
CUDA_KEYRING = {"path": "/etc/apt/sources.list.d/cuda-debian12-x86_64.list", "content": (
    "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
    "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/ /\n")}
# The Debian 12 image's deb822 file.
DEBIAN = {"path": "/etc/apt/sources.list.d/debian.sources",
          "content": "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
                     "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"}
# Lists the apt filters refuse before reading any file: no list, or items without a string path and content.
BAD_FILE_LISTS = [
    "deb http://x bookworm main",
    [{"path": "/etc/apt/sources.list"}],
    [{"path": 1, "content": ""}],
    ["/etc/apt/sources.list"],
]
