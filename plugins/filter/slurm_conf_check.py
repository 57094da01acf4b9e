# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: slurm_conf_check
version_added: 0.1.0
short_description: Validate Slurm settings for the installed release and render them as Key=Value lines
description:
  - Checks every key of a slurm.conf, slurmdbd.conf, cgroup.conf or gres.conf settings mapping against
    the keys that Slurm's own parser accepts in that release (22.05, 23.11 or 24.11; the version is
    matched by major.minor, so C(22.05.8) is 22.05). Keys are case-insensitive, as in Slurm.
  - Old spellings are translated (C(ControlMachine)/C(ControlAddr)/C(BackupController)/C(BackupAddr) to
    C(SlurmctldHost), C(CryptoType) to C(CredType), C(KeepAliveTime) to C(CommunicationParameters)
    C(keepalivetime=)). Removed keys are refused with the fix; unknown keys are refused naming the
    closest real keys.
  - Values follow Slurm's grammar, namely lists comma joined, C(true)/C(false) only for the parser's
    yes/no keys (written YES/NO), numbers range checked, no whitespace, C(#) or double quotes. A
    mapping renders as C(opt,key=value) for option-list keys such as C(SchedulerParameters).
positional: _input, conf, version
options:
  _input:
    description: Mapping of Slurm keys to values.
    type: dict
    required: true
  conf:
    description: Which file the settings are for.
    type: str
    choices: [slurm.conf, slurmdbd.conf, cgroup.conf, gres.conf]
    required: true
  version:
    description: Installed Slurm version, for example C(22.05.8) or C(23.11.4).
    type: str
    required: true
  defaults:
    description:
      - For C(cgroup.conf) only, start from the collection's cgroup.conf (C(CgroupPlugin=autodetect),
        C(ConstrainCores), C(ConstrainDevices), C(ConstrainRAMSpace) all yes) and lay the input over it.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: slurm.conf settings for the lab (Debian 12, Slurm 22.05.8)
  ansible.builtin.set_fact:
    gpufleet_slurm_conf: "{{ gpufleet_slurm_settings | gpufleet.cluster.slurm_conf_check('slurm.conf', '22.05.8') }}"
  # {ControlMachine: head1, ControlAddr: 10.0.0.1} gives
  # settings: {SlurmctldHost: head1(10.0.0.1)}, lines: [SlurmctldHost=head1(10.0.0.1)],
  # translated: [{from: ControlMachine, to: SlurmctldHost, why: ...}, ...]

- name: cgroup.conf from the defaults
  ansible.builtin.copy:
    dest: /etc/slurm/cgroup.conf
    content: "{{ ({} | gpufleet.cluster.slurm_conf_check('cgroup.conf', '23.11.4', defaults=true)).lines | join('\n') }}\n"
"""

RETURN = r"""
_value:
  description: The checked settings and their lines.
  type: dict
  contains:
    settings:
      description: Settings with Slurm's canonical key names, old spellings translated.
      type: dict
    translated:
      description: One C({from, to, why}) per translated key.
      type: list
      elements: dict
    warnings:
      description: Keys Slurm still honours but logs as deprecated.
      type: list
      elements: str
    lines:
      description: The C(Key=Value) lines, one per key (several for repeatable keys such as SlurmctldHost).
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm_conf import (
    CONF_FILES,
    SlurmConfError,
    cgroup_conf,
    check_settings,
    render_conf_lines,
)

_FQCN = "gpufleet.cluster.slurm_conf_check"


def slurm_conf_check(settings, conf, version, defaults=False):
    """Validate and translate Slurm settings; return settings, translations, warnings and lines."""
    if not isinstance(settings, dict):
        raise AnsibleFilterError("%s: input must be a mapping of Slurm keys, got %s" % (_FQCN, type(settings).__name__))
    if conf not in CONF_FILES:
        raise AnsibleFilterError("%s: conf must be one of %s, got %r" % (_FQCN, ", ".join(CONF_FILES), conf))
    if not isinstance(version, str):
        raise AnsibleFilterError("%s: version must be a string such as '22.05.8', got %r" % (_FQCN, version))
    if not isinstance(defaults, bool):
        raise AnsibleFilterError("%s: defaults must be true or false, got %r" % (_FQCN, defaults))
    try:
        merged = dict(settings)
        if defaults:
            if conf != "cgroup.conf":
                raise SlurmConfError("defaults=true exists for cgroup.conf only")
            base = dict(line.split("=", 1) for line in cgroup_conf(version))
            lowered = {str(k).lower() for k in settings}
            merged = {k: v for k, v in base.items() if k.lower() not in lowered}
            merged.update(settings)
        result = check_settings(conf, merged, version)
        result["lines"] = render_conf_lines(result["settings"], conf, version)
    except SlurmConfError as exc:
        raise AnsibleFilterError("%s: %s" % (_FQCN, exc))
    return result


class FilterModule:
    def filters(self):
        return {"slurm_conf_check": slurm_conf_check}
