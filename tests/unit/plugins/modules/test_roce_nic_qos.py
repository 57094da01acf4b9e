# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.roce_nic_qos: its documentation against its argument spec, and main() through Ansible on a fake
ConnectX-7 port (what it does is tested in tests/unit/plugins/module_utils/fabric/roce/test_nic_qos.py)."""
from __future__ import annotations

from ansible_collections.gpufleet.cluster.plugins.modules import roce_nic_qos as module

from module_results import assert_options_match_spec  # noqa: I100
from fake_roce_nic import FakeMlnxQos, connectx7


def test_doc_matches_spec():
    doc = assert_options_match_spec(module)
    assert doc["attributes"]["check_mode"]["support"] == "full"
    assert doc["attributes"]["diff_mode"]["support"] == "full"
    assert set(doc["options"]["ecn"]["suboptions"]) == {"np", "rp"}
    assert set(doc["options"]["devices"]["suboptions"]) == set(module.ARGUMENT_SPEC["devices"]["options"])


def test_main_through_ansible(run_main, tmp_path, monkeypatch):
    tree = connectx7(tmp_path)
    nic = FakeMlnxQos()
    monkeypatch.setattr(module, "CommandRunner", lambda _module: nic)
    args = {"devices": [{"rdma_device": "mlx5_0"}], "sysfs_root": tree[0], "configfs_root": tree[1],
            "_ansible_check_mode": True, "_ansible_diff": True}
    result = run_main(module, args)
    assert result["changed"] is True and result["nccl"]["NCCL_IB_GID_INDEX"] == 5
    assert result["msg"] == "1 RoCE port(s), 12 setting(s) to change (check mode); GID index 5"
    failed = run_main(module, dict(args, priority=9))
    assert failed["failed"] is True and failed["msg"].startswith("priority 9 is outside 0..7")
