# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The modules' attributes, written once.

Every module of the collection runs in check mode, and on a POSIX target. A module names the fragment in
``extends_documentation_fragment`` and keeps under ``attributes`` only what is its own (each key it gives
replaces the fragment's key of that attribute):

* ``gpufleet.cluster.attributes``: a module that changes things - check mode and diff mode supported in full;
  the module says in its own words what check mode reports and what the diff shows;
* ``gpufleet.cluster.attributes.info_module``: a module that only reads - check mode changes nothing, and there
  is no diff.
"""
from __future__ import annotations


class ModuleDocFragment:
    """The attributes every module shares; see the module docstring. Every module runs on a POSIX target (a module
    names its own platforms' details where they narrow this). Each block is one plain string: ansible-test's yamllint
    reads the fragment's assignments as literals."""

    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    support: full
    description: Can run in check mode and report what would change without changing it.
  diff_mode:
    support: full
    description: Returns what changed (or would change in check mode) as a diff.
  platform:
    support: full
    platforms: posix
    description: Target OS/families that can be operated against.
"""

    INFO_MODULE = r"""
options: {}
attributes:
  check_mode:
    support: full
    description: Only reads; check mode changes nothing.
  diff_mode:
    support: none
    description: Changes nothing, so there is nothing to diff.
  platform:
    support: full
    platforms: posix
    description: Target OS/families that can be operated against.
"""
