# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lustre_client_tuning: the four client settings' limits and the lctl arguments."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import LustreClientError
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.tuning import tuning_plan

ISSUE = {"max_pages_per_rpc": 1024, "max_rpcs_in_flight": 64, "max_read_ahead_mb": 1024, "max_read_ahead_per_file_mb": 256}


def test_reference_settings():
    plan = tuning_plan(ISSUE, memtotal_mb=2 * 1024 * 1024)
    assert plan["params"] == ["osc.*.max_pages_per_rpc=1024", "osc.*.max_rpcs_in_flight=64",
                              "llite.*.max_read_ahead_mb=1024", "llite.*.max_read_ahead_per_file_mb=256"]
    assert plan["rpc_bytes"] == 4 * 1024 * 1024               # 1024 pages x 4 KiB
    assert plan["in_flight_bytes_per_ost"] == 256 * 1024 * 1024  # 4 MiB x 64 RPCs
    assert plan["max_pages_per_rpc_limit"] == 4096              # 16 MiB / 4 KiB


def test_page_size_sets_the_limit():
    # 64 KiB pages (aarch64): 16 MiB is 256 pages, so 1024 is refused and 256 is 16 MiB RPCs.
    with pytest.raises(LustreClientError, match="above the maximum of 256"):
        tuning_plan(ISSUE, page_size=65536)
    assert tuning_plan(dict(ISSUE, max_pages_per_rpc=64), page_size=65536)["rpc_bytes"] == 4 * 1024 * 1024


@pytest.mark.parametrize("change, kwargs, message", [
    ({"max_pages_per_rpc": 1000}, {}, r"1000 is not a power of two.*Use 512 or 1024"),
    ({"max_pages_per_rpc": 8192}, {}, r"above the maximum of 4096"),
    ({"max_pages_per_rpc": 0}, {}, r"below the minimum of 1"),
    ({"max_rpcs_in_flight": 257}, {}, r"above the maximum of 256"),
    ({"max_rpcs_in_flight": 0}, {}, r"below the minimum of 1"),
    ({"max_read_ahead_mb": 4096}, {"memtotal_mb": 7000}, r"above half this node's 7000 MiB of RAM \(3500\)"),
    ({"max_read_ahead_per_file_mb": 2048}, {}, r"per_file_mb 2048 is above max_read_ahead_mb 1024"),
    ({"max_dirty_mb": 2048}, {}, r"^lustre_client_tuning has unknown key\(s\) 'max_dirty_mb'; allowed: max_pages_per_rpc, max_read_ahead_mb, "
     r"max_read_ahead_per_file_mb, max_rpcs_in_flight; put other parameters in lustre_client_tuning_extra$"),
    ({"max_rpcs_in_flight": "64"}, {}, r"must be a whole number, got '64' of type str$"),
])
def test_bad_settings_refused(change, kwargs, message):
    with pytest.raises(LustreClientError, match=message):
        tuning_plan(dict(ISSUE, **change), **kwargs)


def test_missing_and_extra():
    with pytest.raises(LustreClientError, match="is missing max_read_ahead_per_file_mb"):
        tuning_plan({k: v for k, v in ISSUE.items() if k != "max_read_ahead_per_file_mb"})
    plan = tuning_plan(ISSUE, extra={"osc.*.checksums": False, "mdc.*.max_rpcs_in_flight": 128})
    assert plan["params"][4:] == ["osc.*.checksums=0", "mdc.*.max_rpcs_in_flight=128"]
    with pytest.raises(LustreClientError, match="which lustre_client_tuning already sets"):
        tuning_plan(ISSUE, extra={"osc.*.max_rpcs_in_flight": 8})
    with pytest.raises(LustreClientError, match="expected an lctl parameter"):
        tuning_plan(ISSUE, extra={"checksums": 0})


@settings(max_examples=200, deadline=None)
@given(exponent=st.integers(0, 12), rif=st.integers(1, 256), ahead=st.integers(0, 4096), per_file=st.integers(0, 4096))
def test_valid_settings_always_give_four_params(exponent, rif, ahead, per_file):
    values = {"max_pages_per_rpc": 2 ** exponent, "max_rpcs_in_flight": rif, "max_read_ahead_mb": ahead,
              "max_read_ahead_per_file_mb": per_file}
    if per_file > ahead:
        with pytest.raises(LustreClientError):
            tuning_plan(values)
        return
    plan = tuning_plan(values)
    assert plan["rpc_bytes"] == 2 ** exponent * 4096 <= 16 * 1024 * 1024
    assert plan["in_flight_bytes_per_ost"] == plan["rpc_bytes"] * rif
    assert len(plan["params"]) == 4
