# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: apt_add_components
version_added: 0.1.0
short_description: Plan the deb822 stanzas that add components to the archives a host already uses
description:
  - Reads the host's own APT source files (as M(ansible.builtin.slurp) returns them, decoded) and returns
    the deb822 stanzas that give the named suites the components their entries lack - for example
    C(contrib non-free non-free-firmware) for a Debian host whose sources list only C(main).
  - The archive URIs come from the host (the mirror it already uses, whatever its name), or from O(uris)
    when the user names them. The first suite is the release and must be served by some enabled entry;
    other suites (C(-updates), C(-security)) are planned only where the host uses them.
  - Each stanza repeats the release options (C(Signed-By), C(Trusted), C(Check-Valid-Until) ...) of the
    host's entries for the same URI and suite, because apt refuses a list whose entries for one archive
    disagree on them ("Conflicting values set for option Signed-By"). Components already present are
    not repeated. An empty list means nothing is missing.
positional: _input
options:
  _input:
    description: The source files, a list of dicts with C(path) and C(content) (text).
    type: list
    elements: dict
    required: true
  suites:
    description: The release first, then the suites beside it (C([bookworm, bookworm-updates, bookworm-security])).
    type: list
    elements: str
    required: true
  components:
    description: The components every suite should offer.
    type: list
    elements: str
    required: true
  uris:
    description: Archive URIs to use instead of the host's own (all suites, every URI).
    type: list
    elements: str
    default: []
  exclude:
    description: Source files to ignore, above all the file the caller writes from this plan (so a re-run plans the same).
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Plan Debian's non-free components for the archive this host uses
  ansible.builtin.set_fact:
    __nonfree: >-
      {{ __files | gpufleet.cluster.apt_add_components(
           suites=['bookworm', 'bookworm-updates', 'bookworm-security'],
           components=['contrib', 'non-free', 'non-free-firmware'],
           exclude=['/etc/apt/sources.list.d/gpufleet-debian-nonfree.sources']) }}
  # with /etc/apt/sources.list holding
  #   deb http://mirror.example.org/debian bookworm main
  #   deb http://mirror.example.org/debian bookworm-updates main
  #   deb http://mirror.example.org/debian-security bookworm-security main
  # gives two stanzas:
  #   {uris: [http://mirror.example.org/debian], suites: [bookworm, bookworm-updates],
  #    components: [contrib, non-free, non-free-firmware], options: {}, sources: [/etc/apt/sources.list:1, ...],
  #    deb822: "Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm bookworm-updates\n..."}
  #   {uris: [http://mirror.example.org/debian-security], suites: [bookworm-security], ...}
"""

RETURN = r"""
_value:
  description:
    - One dict per stanza - C(types) (C([deb])), C(uris), C(suites), C(components), C(options) (deb822 field
      name to value, copied from the host's entries), C(sources) (the C(path:line) entries it extends) and
      C(deb822) (the stanza's text, ending in a newline).
  type: list
  elements: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    FilterInputError,
    collection_filter,
    non_empty_strings,
    slurped_files,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("apt_add_components")
def apt_add_components(files, suites, components, uris=None, exclude=None):
    """deb822 stanzas adding ``components`` to the archives serving ``suites``."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.sources import parse_files, plan_components
    pairs = slurped_files("input", files)
    suite_list = non_empty_strings("suites", suites)
    component_list = non_empty_strings("components", components)
    uri_list = non_empty_strings("uris", uris, if_none=[])
    skip = non_empty_strings("exclude", exclude, if_none=[])
    if not suite_list or not component_list:
        raise FilterInputError("suites and components must each name at least one, got %r and %r"
                               % (suites, components))
    entries = parse_files((path, text) for path, text in pairs if path not in skip)
    return [s.as_dict() for s in plan_components(entries, suite_list, component_list, uri_list, skip)]


class FilterModule:
    def filters(self):
        return {"apt_add_components": apt_add_components}
