# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: roce_nic_qos
version_added: 0.1.0
short_description: Put RoCE NIC ports in the lossless class - trust DSCP, PFC, ECN, rdma_cm ToS - and pick the GID for NCCL
description:
  - For each RoCE port, reads what is set now and changes only what differs from the lossless class
    O(priority), O(dscp), O(tos).
  - Trust DSCP, the DSCP map (the RoCE DSCPs on O(priority); any other DSCP the NIC maps there moves to
    O(default_priority)) and PFC on O(priority) only, with C(mlnx_qos) or iproute2's C(dcb) (O(tool)).
  - ECN notification point and reaction point on O(priority), in
    C(<sysfs_root>/class/net/<netdev>/ecn/roce_np/enable/<prio>) and C(roce_rp/enable/<prio>).
  - rdma_cm's default RoCE ToS in C(<configfs_root>/rdma_cm/<device>/ports/<port>/default_roce_tos), making the
    device directory first as the C(cma_roce_tos) script does.
  - Everything is read before anything changes; in check mode nothing changes. After the changes trust, PFC and the
    DSCP map are read back, and a tool that accepted a change without making it fails the task.
  - Returns the GID index NCCL should use per device - the lowest RoCE v2 GID with an IPv4-mapped address
    (C(::ffff:a.b.c.d)) on the port's netdev, because only RoCE v2 carries the DSCP and ECN bits and is routed over
    IP - and the matching NCCL environment (C(NCCL_IB_TC), C(NCCL_IB_GID_INDEX), C(NCCL_IB_HCA)).
  - Also returns the shell lines that set the whole class on a port freshly loaded by the driver (RV(boot_commands)),
    for a boot script, since the NIC keeps none of these settings across a driver reload or a reboot.
  - Where the driver has no ECN sysfs (the inbox mlx5 driver; DCQCN is then on by firmware default for every
    priority) ECN is not managed and the module warns.
options:
  devices:
    description:
      - The RoCE ports. Each needs O(devices[].rdma_device) or O(devices[].netdev); the other is found in sysfs.
    type: list
    elements: dict
    required: true
    suboptions:
      rdma_device:
        description: The RDMA device, C(mlx5_0).
        type: str
      port:
        description: Its port.
        type: int
        default: 1
      netdev:
        description:
          - The data netdev (C(eth2), C(ens1f0np0), a bond under RoCE LAG); the GID index is chosen among its GIDs.
            Default - the netdev of the port's GID 0.
        type: str
  priority:
    description: The lossless 802.1p priority, 0..7 (C(gpufleet_roce_class.priority)).
    type: int
    default: 3
  dscp:
    description: The DSCPs that are RoCE, each 0..63 (C(gpufleet_roce_class.dscp)).
    type: list
    elements: int
    default: [26]
  default_priority:
    description:
      - Where a DSCP other than O(dscp) goes when the NIC maps it to O(priority) (the firmware default map is
        C(DSCP >> 3), so DSCPs 24..31 share priority 3); the switch's C(default_priority). Not O(priority).
    type: int
    default: 0
  tos:
    description:
      - rdma_cm's default ToS byte, C(DSCP << 2 | ECN bits); its DSCP must be in O(dscp) and its ECN bits must not be
        11 (CE). Default - the first DSCP with ECT(0), C(26 << 2 | 2 = 106).
    type: int
  ecn:
    description: ECN (DCQCN) on O(priority) - C(np) the notification point (receiver), C(rp) the reaction point (sender).
    type: dict
    suboptions:
      np:
        description: Enable the notification point on O(priority) (false disables it there).
        type: bool
        default: true
      rp:
        description: Enable the reaction point on O(priority) (false disables it there).
        type: bool
        default: true
  tool:
    description:
      - What sets trust, the DSCP map and PFC. C(auto) - C(mlnx_qos) when O(mlnx_qos_command) is found, else C(dcb).
      - C(sysfs) - neither; only ECN, the ToS and the GID choice (sysfs and configfs), trust and PFC are left to
        something else (a NIC managed by its firmware settings or an operator) and reported as not managed.
      - ECN and the ToS are always written through sysfs and configfs, whatever the tool.
    type: str
    choices: [auto, mlnx_qos, dcb, sysfs]
    default: auto
  sysfs_root:
    description: Root of the sysfs tree; point it at a copy to work on a recorded NIC.
    type: path
    default: /sys
  configfs_root:
    description: Where configfs is mounted.
    type: path
    default: /sys/kernel/config
  mlnx_qos_command:
    description: The C(mlnx_qos) to run, a name looked up in PATH or an absolute path.
    type: str
    default: mlnx_qos
  dcb_command:
    description: The iproute2 C(dcb) to run, a name looked up in PATH or an absolute path.
    type: str
    default: dcb
attributes:
  check_mode:
    description: Reads everything and reports the changes it would make; runs no setting command and writes nothing.
  diff_mode:
    description: Per port C(<device>:<port>) - trust, PFC priorities, the map of the DSCPs that matter, ECN and ToS.
  idempotent:
    support: full
    description: A second run with the same options changes nothing.
  platform:
    description: Linux with RoCE NICs (mlx5).
extends_documentation_fragment:
  - gpufleet.cluster.attributes
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: RoCE class on the two RoCE ports, as the switches have it
  gpufleet.cluster.roce_nic_qos:
    devices:
      - {rdma_device: mlx5_0}
      - {netdev: ens2f0np0}
    priority: "{{ gpufleet_roce_class.priority }}"
    dscp: "{{ gpufleet_roce_class.dscp }}"
  register: roce

- name: NCCL environment
  ansible.builtin.debug:
    msg: "NCCL_IB_TC={{ roce.nccl.NCCL_IB_TC }} NCCL_IB_GID_INDEX={{ roce.nccl.NCCL_IB_GID_INDEX }}"

- name: Through iproute2 dcb, ECN on the receiving side only
  gpufleet.cluster.roce_nic_qos:
    devices: [{rdma_device: mlx5_0, netdev: eth2}]
    tool: dcb
    ecn: {np: true, rp: false}
"""

RETURN = r"""
devices:
  description:
    - One entry per port with C(rdma_device), C(port), C(netdev), C(tool), C(gid_index), C(gid), C(gid_ipv4),
      C(before) and C(after) (as in the diff), C(changes) (C(setting), C(before), C(after), C(key) - the DSCP or
      priority), C(commands) (run, or in check mode to be run) and C(boot_commands).
  returned: always
  type: list
  elements: dict
gid_index:
  description: Chosen GID index per RDMA device.
  returned: always
  type: dict
  sample: {mlx5_0: 3}
nccl:
  description:
    - C(NCCL_IB_TC) (the ToS byte), C(NCCL_IB_GID_INDEX) (null when the devices' indexes differ - NCCL takes one for
      all) and C(NCCL_IB_HCA) (C(=mlx5_0:1,mlx5_1:1) - C(=) makes NCCL match the names exactly).
  returned: always
  type: dict
  sample: {NCCL_IB_TC: 106, NCCL_IB_GID_INDEX: 3, NCCL_IB_HCA: "=mlx5_0:1"}
commands:
  description: Every setting command as a shell-quoted line, in order; in check mode the ones that would run.
  returned: always
  type: list
  elements: str
  sample: ["mlnx_qos -i eth2 --trust dscp", "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0"]
boot_commands:
  description: Shell lines that set the whole class on every port after a driver load, for a boot script.
  returned: always
  type: list
  elements: str
msg:
  description: One line - ports, what changed (or would), the GID index.
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import CommandRunner
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_qos import NicQosError, run_module

ARGUMENT_SPEC = dict(
    devices=dict(type="list", elements="dict", required=True, options=dict(
        rdma_device=dict(type="str"),
        port=dict(type="int", default=1),
        netdev=dict(type="str"),
    )),
    priority=dict(type="int", default=3),
    dscp=dict(type="list", elements="int", default=[26]),
    default_priority=dict(type="int", default=0),
    tos=dict(type="int"),
    ecn=dict(type="dict", apply_defaults=True, options=dict(
        np=dict(type="bool", default=True),
        rp=dict(type="bool", default=True),
    )),
    tool=dict(type="str", choices=["auto", "mlnx_qos", "dcb", "sysfs"], default="auto"),
    sysfs_root=dict(type="path", default="/sys"),
    configfs_root=dict(type="path", default="/sys/kernel/config"),
    mlnx_qos_command=dict(type="str", default="mlnx_qos"),
    dcb_command=dict(type="str", default="dcb"),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    try:
        result, warnings = run_module(module.params, CommandRunner(module), module.check_mode)
    except NicQosError as exc:
        module.fail_json(msg=str(exc))
    for warning in warnings:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
