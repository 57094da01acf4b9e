# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The roce_switch_snapshots_beyond filter: as the roce_switch role calls it, refusals under its name."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import roce_switch_snapshots_beyond as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_snapshots_beyond import (
    roce_switch_snapshots_beyond,
)
from filter_docs import assert_documented
from wrong_types import assert_only_refusals

PATHS = ["/b/config_db.20261129T050000Z.running.json", "/b/config_db.20261128T050000Z.running.json"]


def test_registered_and_documented():
    assert_documented(plugin, "roce_switch_snapshots_beyond")


def test_as_the_role_calls_it():
    assert roce_switch_snapshots_beyond(PATHS, 1) == ["/b/config_db.20261128T050000Z.running.json"]


def test_refusals_carry_the_filter_name():
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.roce_switch_snapshots_beyond: keep 0 is outside"):
        roce_switch_snapshots_beyond(PATHS, 0)


def test_wrong_types_are_refused():
    assert_only_refusals("roce_switch_snapshots_beyond", roce_switch_snapshots_beyond, [PATHS, 1])
