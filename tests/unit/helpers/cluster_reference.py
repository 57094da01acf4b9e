# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The per-host templates the cluster description replaced (issue 29), as the roles held them at 8a8733f, rendered
by Ansible's own templar: the reference the description's tests compare it with, value for value."""
from __future__ import annotations

from typing import Any, Dict

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import is_valid

# roles/slurm/tasks/preflight.yml: the node list and the gres entries.
NODE_LIST = """\
{% set out = [] %}{% for host in __slurm_computes %}{% set hv = hostvars[host] %}{%
set gpus = hv['slurm_gpu_count'] | default(slurm_gpu_count) | int %}{%
set _node = out.append({
  'name': host,
  'cpus': hv['slurm_node_cpus'] | default(slurm_node_cpus) | int,
  'sockets': hv['slurm_node_sockets'] | default(slurm_node_sockets) | int,
  'cores_per_socket': hv['slurm_node_cores_per_socket'] | default(slurm_node_cores_per_socket) | int,
  'threads_per_core': hv['slurm_node_threads_per_core'] | default(slurm_node_threads_per_core) | int,
  'real_memory': hv['slurm_node_real_memory_mib'] | default(slurm_node_real_memory_mib) | int,
  'features': hv['slurm_node_features'] | default(slurm_node_features),
  'gres': [{'type': 'gpu', 'model': hv['slurm_gpu_type'] | default(slurm_gpu_type), 'count': gpus}] if gpus > 0 else [],
}) %}{% endfor %}{{ out }}"""
GRES_ENTRIES = """\
{% set layouts = {} %}{% for host in __slurm_computes %}{% set hv = hostvars[host] %}{%
set gpus = hv['slurm_gpu_count'] | default(slurm_gpu_count) | int %}{%
set numa = hv['slurm_gpu_numa'] | default(slurm_gpu_numa) %}{%
set entry = {'type': hv['slurm_gpu_type'] | default(slurm_gpu_type)} %}{%
set auto = hv['slurm_gres_autodetect'] | default(slurm_gres_autodetect) %}{%
if auto %}{% set _auto = entry.update({'autodetect': auto, 'count': gpus}) %}{%
else %}{% set gpu_list = [] %}{% for index in range(gpus) %}{%
  set _gpu = gpu_list.append({'index': index, 'numa_node': numa[index] | default(numa[index | string] | default(none))}) %}{%
  endfor %}{% set _gpus = entry.update({'gpus': gpu_list}) %}{%
  if hv['slurm_numa_cores'] | default(slurm_numa_cores) %}{%
  set _cores = entry.update({'numa_cores': hv['slurm_numa_cores'] | default(slurm_numa_cores)}) %}{% endif %}{%
endif %}{% if gpus > 0 %}{% set key = entry | to_json %}{%
set _host = layouts.update({key: layouts[key] | default([]) + [host]}) %}{% endif %}{% endfor %}{%
set out = [] %}{% for key, hosts in layouts | dictsort %}{%
set _layout = out.append(key | from_json | combine({'nodes': hosts})) %}{% endfor %}{{ out }}"""

# roles/common/tasks/hosts.yml: the block; roles/common/tasks/preflight.yml: the entries it checked, each with what its
# missing-address check read (the preflight applied gpufleet.cluster.valid to these: input_rules.is_valid, which the
# tests apply, as the templar here does not load the collection's test plugins).
HOSTS_BLOCK = """\
{% for host in groups[common_hosts_group] | sort %}
{% set address = hostvars[host]['gpufleet_ip'] | default(hostvars[host]['ansible_host']) %}
{{ '%-15s' | format(address) }} {{ (host ~ '.' ~ common_hosts_domain ~ ' ') if common_hosts_domain else '' }}{{ host }}
{% endfor %}"""
HOST_ENTRIES = """\
{% set out = [] %}{% for host in groups[common_hosts_group] | default([]) %}{%
set _ = out.append({'host': host, 'address': hostvars[host]['gpufleet_ip']
                    | default(hostvars[host]['ansible_host'] | default('')),
                    'ip_defined': hostvars[host]['gpufleet_ip'] is defined,
                    'ansible_host': hostvars[host]['ansible_host'] | default('')}) %}{% endfor %}{{ out }}"""

# roles/roce_switch/vars/main.yml: the hosts' sides (roce_switch_host_side empty).
ROCE_SIDES = """\
{% set out = [] %}{%
for host in groups[roce_switch_host_group] | default([]) %}{%
  set hv = hostvars[host] %}{%
  set cls = hv['gpufleet_roce_class'] | default({}) %}{%
  if hv['roce_host_enabled'] | default(true) | bool %}{%
    set _ = out.append({'source': host,
        'priority': hv[roce_switch_host_vars['priority']] | default(cls['priority'] | default(3)),
        'dscp': hv[roce_switch_host_vars['dscp']] | default(cls['dscp'] | default([26]))}) %}{%
  endif %}{%
endfor %}{{ out }}"""


def render(template: str, variables: Dict[str, Any]) -> Any:
    """``template`` rendered with ``variables`` by ansible-core's templar (native types, the collection's plugins)."""
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(template))


def hosts_checks(variables: Dict[str, Any]) -> Dict[str, Any]:
    """What the common preflight found in the group's hosts: missing, bad_addresses, bad_names."""
    entries = render(HOST_ENTRIES, variables)
    return {"missing": [e["host"] for e in entries if not e["ip_defined"] and not is_valid("ip", e["ansible_host"])],
            "bad_addresses": [{"host": e["host"], "address": e["address"]} for e in entries
                              if not is_valid("ip", e["address"])],
            "bad_names": [e["host"] for e in entries if not is_valid("hostname", e["host"])]}
