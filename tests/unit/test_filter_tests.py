# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter tests mirror the filters (issue 26): plugins/filter/<name>.py has exactly one test module,
tests/unit/plugins/filter/test_<name>.py, which holds that filter's tests and imports it; nothing else lives there."""
from __future__ import annotations

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILTERS = os.path.join(REPO, "plugins", "filter")
TESTS = os.path.join(REPO, "tests", "unit", "plugins", "filter")


def _filters():
    return sorted(name[:-3] for name in os.listdir(FILTERS) if name.endswith(".py"))


def test_every_filter_has_its_test_module_and_every_test_module_its_filter():
    filters = _filters()
    assert len(filters) >= 42
    tests = sorted(name for name in os.listdir(TESTS) if not name.startswith((".", "__pycache__")))
    assert tests == ["test_%s.py" % name for name in filters], (
        "no test module: %s; no filter: %s" % (sorted(set("test_%s.py" % n for n in filters) - set(tests)),
                                               sorted(set(tests) - set("test_%s.py" % n for n in filters))))


def test_each_test_module_imports_the_filter_it_is_named_after():
    for name in _filters():
        with open(os.path.join(TESTS, "test_%s.py" % name), encoding="utf-8") as handle:
            text = handle.read()
        assert re.search(r"^from ansible_collections\.gpufleet\.cluster\.plugins\.filter(\.%s)? import "
                         r"(\([^)]*|[^\n]*)\b%s\b" % (name, name), text, re.MULTILINE), name
