# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the slurm/conf tests share: a refusal's whole text, the key catalogue's sources as the messages name them,
and the nodes the NodeName= tests are written with.

Imported by plain name (tests/unit/helpers is on sys.path through tests/unit/conftest.py).
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError

SRC_22 = "SchedMD/slurm tag slurm-22-05-8-1 (read from the source)"
SRC_23 = "SchedMD/slurm tag slurm-23-11-4-1 (read from the source, kept as its differences from 22.05.8)"
UNKNOWN = "slurmctld would stop at 'Parsing error at unrecognized key'"
#: The NodeName= fields of :func:`small` as node_lines writes them.
SMALL_LINE = "CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000"


def said(call, *args, **kwargs):
    """The whole text of the SlurmConfError that call(*args, **kwargs) raises."""
    with pytest.raises(SlurmConfError) as error:
        call(*args, **kwargs)
    return str(error.value)


def node(node_name, **over):
    """The reference H100 node: 2 sockets x 52 cores x 1 thread = 104 CPUs, 8 GPUs.

    From outputs/nvidia-smi/topo-m.8xH100-NV18.ml-engineering.txt: 8 GPUs, CPU affinity 0-51 (GPU0-3, NUMA 0) and
    52-103 (GPU4-7, NUMA 1) = 104 logical CPUs in 2 NUMA nodes. ASSUMPTION (the capture has no lscpu): 2 sockets x 52
    cores, SMT off (1 thread), one NUMA node per socket; RealMemory 2063937 MiB (about 2 TiB less the kernel's share)
    is assumed.
    """
    spec = {"name": node_name, "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1, "cpus": 104,
            "real_memory": 2063937, "gres": [{"type": "gpu", "model": "h100", "count": 8}], "features": ["h100", "ib"]}
    spec.update(over)
    return spec


def small(node_name, **over):
    """A 1 x 4 x 1 node without gres or features (lines short enough to compare whole)."""
    spec = {"name": node_name, "sockets": 1, "cores_per_socket": 4, "threads_per_core": 1, "real_memory": 1000}
    spec.update(over)
    return spec
