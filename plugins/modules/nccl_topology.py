# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: nccl_topology
version_added: 0.1.0
short_description: Write an NCCL topology XML file from the node's PCI tree in sysfs
description:
  - Reads the node's PCI tree from sysfs and writes the topology XML that NCCL loads through
    C(NCCL_TOPO_FILE), so every rank sees the same PCIe switch layout even inside containers or VMs
    that hide part of sysfs.
  - Takes the NVIDIA GPUs (vendor 0x10de, class 0x0302xx or 0x0300xx), the RDMA NICs
    (C(/sys/class/infiniband/*/device)) and the PCIe switches above them, grouped under one C(cpu)
    element per NUMA node (the top device's C(numa_node)) with the affinity copied from
    C(/sys/devices/system/node/node<N>/cpumap).
  - Builds the tree the way NCCL's own detection does. It walks up the resolved device path two levels
    at a time, so a PCIe switch appears as its upstream port holding the endpoints while downstream
    ports and CPU root ports are skipped. C(link_speed) and C(link_width) are the lower of the device's
    C(max_link_*) and those of the port above it, because idle GPUs train their links down to
    2.5 GT/s and the C(current_link_*) files would understate the slot (they are returned in
    C(devices) for inspection).
  - For NICs the port functions of one card (C(.0), C(.1)) share the function-0 element. One C(net) is
    written per ACTIVE InfiniBand or RoCE port (C(ports/*/state), C(link_layer)), with C(speed) in Mbit/s
    from C(ports/*/rate), and C(dev) numbered over those ports in PCI order, as NCCL's IB plugin numbers
    them by default (C(NCCL_IB_DEVICE_PCI_ORDER=1)).
  - CPU C(arch), C(vendor), C(familyid) and C(modelid) come from the first processor of
    C(<procfs_root>/cpuinfo) (C(vendor_id), C(cpu family), C(model)); C(arch) is C(arm64) when cpuinfo
    has C(CPU implementer) and C(ppc64) for POWER.
  - Validated and rendered by the same code as the P(gpufleet.cluster.nccl_topology_xml#filter) filter.
options:
  dest:
    description:
      - Where to write the XML. Leave it out to only return RV(layout) and RV(xml).
    type: path
  sysfs_root:
    description:
      - Root of the sysfs tree to read; point it at a copy to describe another machine.
    type: path
    default: /sys
  procfs_root:
    description:
      - Root of the procfs tree whose C(cpuinfo) gives the CPU attributes.
    type: path
    default: /proc
  include_nics:
    description:
      - Include RDMA NICs (and the switches above them) with their C(nic)/C(net) elements.
    type: bool
    default: true
  include_ethernet:
    description:
      - Also place Ethernet NICs without an RDMA device (from C(/sys/class/net/*/device)) in the tree,
        without C(net) elements; NCCL's socket transport fills those in at run time.
    type: bool
    default: false
  mode:
    description:
      - Permissions of O(dest), as for M(ansible.builtin.file) (octal string such as C('0644') or symbolic).
    type: raw
    default: '0644'
  owner:
    description:
      - Owner of O(dest).
    type: str
  group:
    description:
      - Group of O(dest).
    type: str
attributes:
  check_mode:
    description: Reads sysfs, computes the XML and reports the change without writing.
  diff_mode:
    description: Shows the old and the new file content.
extends_documentation_fragment:
  - gpufleet.cluster.attributes
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Write /etc/nccl/topo.xml from this node's sysfs
  gpufleet.cluster.nccl_topology:
    dest: /etc/nccl/topo.xml
  register: topo

- name: Check that every GPU shares a switch with a NIC
  ansible.builtin.assert:
    that: topo.devices | selectattr('role', 'eq', 'gpu') | map(attribute='parent') | unique | length == 4

- name: Describe a captured sysfs tree without writing anything
  gpufleet.cluster.nccl_topology:
    sysfs_root: /srv/captures/node17/sys
    procfs_root: /srv/captures/node17/proc
    include_nics: false
"""

RETURN = r"""
xml:
  description: The topology XML.
  returned: success
  type: str
layout:
  description: The layout the XML was rendered from (input format of the nccl_topology_xml filter).
  returned: success
  type: dict
devices:
  description:
    - One entry per PCI element written, with C(busid), C(role) (gpu, nic, ethernet, bridge), C(parent)
      (a busid or C(cpu)), C(numa_node), C(class), C(vendor), C(device), the C(link_speed)/C(link_width)
      written and the raw C(max_link_*) and C(current_link_*) texts.
  returned: success
  type: list
  elements: dict
rdma_ports:
  description: One entry per RDMA port seen, with C(name), C(busid), C(port), C(state), C(link_layer),
    C(rate_mbps) and the C(dev) given (null for ports not written).
  returned: success
  type: list
  elements: dict
dest:
  description: The file written, when O(dest) was given.
  returned: when dest is set
  type: str
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import NcclTopologyError
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.pci_sysfs import build_layout

ARGUMENT_SPEC = dict(
    dest=dict(type="path"),
    sysfs_root=dict(type="path", default="/sys"),
    procfs_root=dict(type="path", default="/proc"),
    include_nics=dict(type="bool", default=True),
    include_ethernet=dict(type="bool", default=False),
    mode=dict(type="raw", default="0644"),
    owner=dict(type="str"),
    group=dict(type="str"),
)


class ModuleFailure(Exception):
    """A failure to report through fail_json."""


def _chmod(path, params, check_mode):
    """Octal modes only; main() replaces this with AnsibleModule's full file-attribute handling."""
    mode = params.get("mode")
    if mode is None or not os.path.exists(path):
        return False
    try:
        wanted = int(mode, 8) if isinstance(mode, str) else int(mode)
    except ValueError:
        raise ModuleFailure("mode %r is not an octal mode such as '0644'" % (mode,))
    if os.stat(path).st_mode & 0o7777 == wanted:
        return False
    if not check_mode:
        os.chmod(path, wanted)
    return True


def _write_atomically(dest, text):
    directory = os.path.dirname(os.path.abspath(dest))
    handle, tmp = tempfile.mkstemp(prefix=".nccl_topology.", dir=directory)
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_module(params, check_mode=False, set_attributes=None):
    """Everything but the Ansible plumbing; returns the result dict or raises ModuleFailure.

    set_attributes(path, changed) -> changed applies mode/owner/group; defaults to an octal chmod.
    """
    try:
        scan = build_layout(params["sysfs_root"], params["procfs_root"], params["include_nics"],
                            params["include_ethernet"])
        xml = render_xml(scan.layout)
    except NcclTopologyError as exc:
        raise ModuleFailure("could not build the NCCL topology from sysfs_root=%s: %s" % (params["sysfs_root"], exc))
    result = dict(changed=False, xml=xml, layout=scan.layout, devices=scan.devices, rdma_ports=scan.rdma_ports,
                  warnings=scan.warnings)
    dest = params.get("dest")
    if not dest:
        return result
    result["dest"] = dest
    if os.path.isdir(dest):
        raise ModuleFailure("cannot write the NCCL topology to %s: it is a directory; give a file path" % dest)
    before = None
    if os.path.exists(dest):
        try:
            with open(dest) as handle:
                before = handle.read()
        except (IOError, OSError, UnicodeDecodeError) as exc:
            raise ModuleFailure("cannot read the existing %s to compare it: %s" % (dest, exc))
    if before != xml:
        result["changed"] = True
        result["diff"] = dict(before=before or "", after=xml, before_header=dest if before is not None else "(absent)",
                              after_header=dest)
        if not check_mode:
            parent = os.path.dirname(os.path.abspath(dest))
            if not os.path.isdir(parent):
                raise ModuleFailure("cannot write the NCCL topology to %s: directory %s does not exist; create it "
                                    "first (ansible.builtin.file state=directory)" % (dest, parent))
            try:
                _write_atomically(dest, xml)
            except (IOError, OSError) as exc:
                raise ModuleFailure("cannot write the NCCL topology to %s: %s" % (dest, exc))
    if set_attributes is None:
        result["changed"] = _chmod(dest, params, check_mode) or result["changed"]
    elif os.path.exists(dest):
        result["changed"] = set_attributes(dest, result["changed"])
    return result


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)

    def set_attributes(path, changed):
        return module.set_fs_attributes_if_different(module.load_file_common_arguments(module.params, path=path),
                                                     changed)

    try:
        result = run_module(module.params, module.check_mode, set_attributes)
    except ModuleFailure as exc:
        module.fail_json(msg=str(exc))
    for warning in result.pop("warnings"):
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
