# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: nccl_conf_merge
version_added: 0.1.0
short_description: Merge a role's NCCL settings with the RoCE settings file, refusing conflicts
description:
  - Builds the settings of C(/etc/nccl.conf), which NCCL reads in every process (C(KEY=VALUE) per line, split at
    the first C(=), nothing unquoted or stripped; the environment beats the file).
  - The input is the role's own settings, C([{key, value, source}]) in the order to write them; an empty or null
    value means "not set". Keys must match C(^NCCL_[A-Z0-9_]+$) (the whole key, so a trailing newline is refused) and
    be a variable NCCL reads (the catalogue of C(NCCL_PARAM) and C(ncclGetEnv) names in NCCL's source, per version;
    an unknown name is refused with the closest known ones). Values are one line of at most 1023 characters
    without control characters or C(#) (NCCL has no inline comment) (strings or integers; booleans are refused,
    NCCL takes 0 or 1). C(source) is written above each setting as a C(#) comment, so it must be one printable
    line without C(=). C(NCCL_IB_HCA) and C(NCCL_SOCKET_IFNAME) are
    checked for NCCL's list syntax (optional C(^) then C(=), then a comma list of names, HCAs with an optional
    C(:port)).
  - O(roce_text) is the text of the RoCE settings file the roce_host role writes (C(NCCL_IB_TC),
    C(NCCL_IB_GID_INDEX), C(NCCL_IB_HCA); C(#) comments), or null when it does not exist. Its keys are added after
    the role's own. A key set in both with different values is refused, naming the key, both values and both
    sources; every conflict is listed at once. A key set twice among the role's own settings is refused too.
  - With O(fabric=infiniband), the RoCE-only settings C(NCCL_IB_GID_INDEX), C(NCCL_IB_TC) and
    C(NCCL_IB_ROCE_VERSION_NUM) are refused, from either input.
positional: _input, roce_text, roce_source
options:
  _input:
    description: The role's settings, a list of C({key, value, source}); C(source) names the variable.
    type: list
    elements: dict
    required: true
  roce_text:
    description: The RoCE settings file's text, or null (or omitted) when the file does not exist.
    type: str
    required: false
  roce_source:
    description: The RoCE settings file's path, named in messages and in each setting's C(source).
    type: str
    default: /etc/gpufleet/nccl-roce.conf
  nccl_version:
    description:
      - The NCCL version the node gets, in apt's form (C(2.27.7-1+cuda12.9)) or C(2.28.9); keys are checked against
        the variables that version reads. Null or empty (the newest) checks against every catalogued version
        (2.27, 2.28, 2.29); so does a version the catalogue lacks.
    type: str
    required: false
  fabric:
    description: The fabric kind (C(gpufleet_fabric.kind)); C(infiniband) refuses the RoCE-only settings. Null when unknown.
    type: str
    choices: [infiniband, roce]
    required: false
"""

EXAMPLES = r"""
- name: Merge the role's settings with roce_host's
  ansible.builtin.set_fact:
    nccl_settings: >-
      {{ [{'key': 'NCCL_TOPO_FILE', 'value': '/etc/nccl/topo.xml', 'source': 'nccl_topology_file'},
          {'key': 'NCCL_SOCKET_IFNAME', 'value': '=eth0', 'source': 'nccl_socket_ifname'}]
         | gpufleet.cluster.nccl_conf_merge("NCCL_IB_TC=106\nNCCL_IB_GID_INDEX=3\n", fabric='roce') }}
  # [{"key": "NCCL_TOPO_FILE", "value": "/etc/nccl/topo.xml", "source": "nccl_topology_file"},
  #  {"key": "NCCL_SOCKET_IFNAME", "value": "=eth0", "source": "nccl_socket_ifname"},
  #  {"key": "NCCL_IB_TC", "value": "106", "source": "/etc/gpufleet/nccl-roce.conf"},
  #  {"key": "NCCL_IB_GID_INDEX", "value": "3", "source": "/etc/gpufleet/nccl-roce.conf"}]
"""

RETURN = r"""
_value:
  description:
    - The settings to write, C([{key, value, source}]), values as strings; the role's own first, then the RoCE
      file's other keys in file order. A key both set (to the same value) has the source C("<variable> and <file>").
  type: list
  elements: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("nccl_conf_merge")
def nccl_conf_merge(own, roce_text=None, roce_source="/etc/gpufleet/nccl-roce.conf", nccl_version=None, fabric=None):
    """The merged /etc/nccl.conf settings; refuses bad keys, bad values and conflicts."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.conf import merge_settings
    of_type("input", own, (list, tuple), "a list of {key, value, source}")
    of_type("roce_text", roce_text, str, "the file's text or null", optional=True)
    require(isinstance(roce_source, str) and roce_source, "roce_source", roce_source,
            "the path of the RoCE settings file")
    return [setting.as_dict() for setting in merge_settings(list(own), roce_text, roce_source,
                                                            nccl_version=nccl_version, fabric=fabric)]


class FilterModule:
    def filters(self):
        return {"nccl_conf_merge": nccl_conf_merge}
