# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: apt_sources
version_added: 0.1.0
short_description: Read a host's APT source files, both formats, the way apt reads them
description:
  - Parses the contents of C(/etc/apt/sources.list), C(*.list) (one-line format) and C(*.sources) (deb822)
    files into one entry per line or stanza, with apt 2.6's rules (a C(#) ends a one-line entry anywhere;
    in deb822 only a line starting with C(#) is a comment; whitespace-only lines continue a field; a
    repeated field replaces the earlier one; an C(Enabled) field set to C(no) switches a stanza off).
  - A file apt itself would refuse (unknown type, missing suite or component, a component on a flat
    C(/) suite) is refused with the file, the line and the fix.
  - With O(uri), only the enabled binary entries that name that URI are returned (trailing slash
    ignored), for example to find a second source for a repository another file already lists.
positional: _input
options:
  _input:
    description:
      - The source files, as a list of dicts with C(path) (the file name decides the format) and
        C(content) (the text, for example C(slurp)'s content passed through C(b64decode)).
    type: list
    elements: dict
    required: true
  uri:
    description: Return only the enabled C(deb) entries that name this URI.
    type: str
  exclude:
    description: Paths whose entries are left out (the file the caller writes itself).
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Find other sources of NVIDIA's CUDA repository (the cuda-keyring package writes one)
  ansible.builtin.set_fact:
    __cuda_elsewhere: >-
      {{ __files | gpufleet.cluster.apt_sources(uri='https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/',
                                                exclude=['/etc/apt/sources.list.d/gpufleet-cuda.sources']) }}
  # [{"path": "/etc/apt/sources.list.d/cuda-debian12-x86_64.list", "line": 1, "format": "one-line",
  #   "types": ["deb"], "uris": ["https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"],
  #   "suites": ["/"], "components": [], "enabled": true,
  #   "options": {"signed-by": "/usr/share/keyrings/cuda-archive-keyring.gpg"}}]
"""

RETURN = r"""
_value:
  description:
    - One dict per entry, in file order - C(path), C(line) (first line of the entry), C(format)
      (C(one-line) or C(deb822)), C(types), C(uris), C(suites), C(components), C(enabled) and C(options)
      (one-line option names, for example C(signed-by), C(arch), C(trusted)).
  type: list
  elements: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    collection_filter,
    non_empty_strings,
    slurped_files,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("apt_sources")
def apt_sources(files, uri=None, exclude=None):
    """Entries of the host's APT source files (optionally: those naming one URI)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.sources import check_field, parse_files, serving
    pairs = slurped_files("input", files)
    skip = non_empty_strings("exclude", exclude, if_none=[])
    if uri is not None:
        check_field("uri", "uri", uri)
    entries = [e for e in parse_files(pairs) if e.path not in skip]
    if uri is not None:
        entries = serving(entries, uri)
    return [e.as_dict() for e in entries]


class FilterModule:
    def filters(self):
        return {"apt_sources": apt_sources}
