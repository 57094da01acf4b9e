# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host side of the RoCE lossless class: what a RoCE NIC port must be set to, and the commands that do it.

* :func:`desired_state` -- {priority, DSCP list, ToS, default priority, ECN} checked: the ToS byte's DSCP
  (``tos >> 2``) must be one of the RoCE DSCPs, its ECN bits (``tos & 3``) must not be CE.
* :func:`pfc_vector`, :func:`desired_dscp2prio` -- PFC on the lossless priority only; the RoCE DSCPs on the
  lossless priority, every other DSCP that the NIC puts there moved to the default priority, the rest kept.
* :func:`qos_changes` -- current vs desired trust / PFC / DSCP map, as a list of :class:`Change`.
* :func:`mlnx_qos_argv`, :func:`dcb_argv` -- the argv lists that make those changes with ``mlnx_qos``
  (MLNX_OFED / mlnx-tools) or ``dcb`` (iproute2); :func:`boot_commands` -- the full setting as shell lines for
  the boot script (the NIC forgets trust, PFC, ECN and the ToS when the driver reloads).

Parsers of the tools' output are in :mod:`.nic_parse`; sysfs/configfs (ECN, ToS, GID table) in
:mod:`.nic_sysfs`; the module's run over its ports in :mod:`.nic_qos`.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import integer_in, list_of, must_be


class RoceNicError(ValueError):
    """A RoCE NIC setting that would not give a lossless RoCE path, or a NIC state that cannot be read."""


PRIORITIES = tuple(range(8))
DSCPS = tuple(range(64))
ECN_NAMES = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}
# ECT(0): the packet says "ECN-capable transport", so a switch marks it CE instead of dropping it (RFC 3168).
DEFAULT_ECN_BITS = 2
TRUST_DSCP = "dscp"


# ---------------------------------------------------------------- ToS byte
def tos_from_dscp(dscp: int, ecn_bits: int = DEFAULT_ECN_BITS) -> int:
    """The IP ToS byte: DSCP in the upper 6 bits, ECN in the lower 2. DSCP 26, ECT(0) -> 26 << 2 | 2 = 106."""
    _check_int("dscp", dscp, 0, 63, "DSCP is the 6-bit field of the ToS byte; RoCE uses 26")
    _check_int("ecn_bits", ecn_bits, 0, 3, "the ECN field is 2 bits: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE")
    return dscp << 2 | ecn_bits


def dscp_of_tos(tos: int) -> int:
    """106 = 0b01101010 -> 0b011010 = 26."""
    return tos >> 2


def ecn_of_tos(tos: int) -> int:
    """106 = 0b01101010 -> 0b10 = 2, ECT(0)."""
    return tos & 3


def _check_int(where: str, value: Any, low: int, high: int, fix: str) -> int:
    return integer_in(where, value, low, high, RoceNicError, fix)


# ---------------------------------------------------------------- desired state
@dataclass(frozen=True)
class Desired:
    priority: int
    dscp: Tuple[int, ...]
    tos: int
    default_priority: int = 0
    ecn_np: bool = True
    ecn_rp: bool = True


def desired_state(priority: Any = 3, dscp: Any = (26,), tos: Any = None, default_priority: Any = 0,
                  ecn_np: bool = True, ecn_rp: bool = True) -> Desired:
    """Check the host side of the class; ``tos`` None is the first DSCP with ECT(0) (26 -> 106)."""
    priority = _check_int("priority", priority, 0, 7, "the 802.1p priority PFC pauses; RoCE convention is 3")
    default_priority = _check_int("default_priority", default_priority, 0, 7,
                                  "the priority other DSCPs move to when the NIC maps them to the lossless one")
    if default_priority == priority:
        raise RoceNicError("default_priority %d equals priority %d: DSCPs moved off the lossless priority would "
                           "land on it again; use the switch's default_priority (normally 0)"
                           % (default_priority, priority))
    if isinstance(dscp, int) and not isinstance(dscp, bool):
        dscp = [dscp]
    list_of("dscp", dscp, RoceNicError, "a non-empty list of DSCP values 0..63", allow_empty=False,
            hint="RoCE uses [26]")
    values: List[int] = []
    for i, item in enumerate(dscp):
        value = _check_int("dscp[%d]" % i, item, 0, 63, "DSCP is the 6-bit field of the ToS byte")
        if value in values:
            raise RoceNicError("dscp lists %d twice; list each DSCP once" % value)
        values.append(value)
    if tos is None:
        tos = tos_from_dscp(values[0])
    tos = _check_int("tos", tos, 0, 255, "the IP ToS byte, DSCP << 2 | ECN bits; DSCP 26 with ECT(0) is 106")
    if dscp_of_tos(tos) not in values:
        raise RoceNicError(
            "tos %d carries DSCP %d (tos >> 2), which is not a RoCE DSCP %s: rdma_cm traffic would leave on a "
            "lossy priority; use tos %d (DSCP %d << 2 | ECT(0))"
            % (tos, dscp_of_tos(tos), _list(values), tos_from_dscp(values[0]), values[0]))
    if ecn_of_tos(tos) == 3:
        raise RoceNicError("tos %d has the ECN bits 11 (CE, congestion experienced): every packet would read as "
                           "congested and the receiver would send a CNP for each; use tos %d (ECT(0))"
                           % (tos, tos - 1))
    for where, value in (("ecn.np", ecn_np), ("ecn.rp", ecn_rp)):
        if not isinstance(value, bool):
            raise must_be(where, value, "true or false", RoceNicError)
    return Desired(priority, tuple(values), tos, default_priority, ecn_np, ecn_rp)


def _list(values: Sequence[int]) -> str:
    return "[%s]" % ", ".join(str(v) for v in values)


def pfc_vector(priority: int) -> Tuple[int, ...]:
    """PFC on the lossless priority only: 3 -> (0, 0, 0, 1, 0, 0, 0, 0)."""
    return tuple(1 if p == priority else 0 for p in PRIORITIES)


def default_dscp2prio() -> Dict[int, int]:
    """The mlx5 firmware map with trust dscp and no entries set: DSCP >> 3 (26 -> 3), as mlnx_qos prints it."""
    return {d: d >> 3 for d in DSCPS}


def desired_dscp2prio(current: Optional[Dict[int, int]], desired: Desired) -> Dict[int, int]:
    """RoCE DSCPs -> the lossless priority; any other DSCP the NIC puts there -> default_priority; rest unchanged.

    Only the lossless priority matters: other traffic on it would be paused with RoCE and fill its buffer, which
    is what the switch avoids by mapping every other DSCP to default_priority. An unknown map (trust pcp, empty
    dcb APP table) is taken as the firmware default, so one run gives the final map.
    """
    base = dict(default_dscp2prio())
    base.update(current or {})
    out: Dict[int, int] = {}
    for d in DSCPS:
        if d in desired.dscp:
            out[d] = desired.priority
        elif base[d] == desired.priority or base[d] < 0:
            out[d] = desired.default_priority
        else:
            out[d] = base[d]
    return out


# ---------------------------------------------------------------- current vs desired
@dataclass
class QosState:
    """What trust, PFC and the DSCP map are now; None where the tool did not say."""
    trust: Optional[str] = None
    pfc: Optional[Tuple[int, ...]] = None
    dscp2prio: Optional[Dict[int, int]] = None      # -1: the APP table has several priorities for that DSCP
    extra: Dict[str, Any] = field(default_factory=dict)

    def summary(self, dscps: Sequence[int]) -> Dict[str, Any]:
        """For diff and result: trust, the PFC priorities, the map of the given DSCPs."""
        return {"trust": self.trust,
                "pfc_priorities": None if self.pfc is None else [p for p in PRIORITIES if self.pfc[p]],
                "dscp_priority": {str(d): (None if self.dscp2prio is None else self.dscp2prio.get(d))
                                  for d in sorted(dscps)}}


@dataclass(frozen=True)
class Change:
    setting: str          # trust | pfc | dscp2prio | ecn_np | ecn_rp | roce_tos
    before: Any
    after: Any
    key: Optional[int] = None   # the DSCP (dscp2prio) or priority (ecn_*)

    def as_dict(self) -> Dict[str, Any]:
        out = {"setting": self.setting, "before": self.before, "after": self.after}
        if self.key is not None:
            out["key"] = self.key
        return out


def qos_changes(current: QosState, desired: Desired) -> List[Change]:
    """Trust, DSCP map and PFC changes, in the order the tools must apply them (trust first)."""
    changes: List[Change] = []
    if current.trust != TRUST_DSCP:
        changes.append(Change("trust", current.trust, TRUST_DSCP))
    wanted = desired_dscp2prio(current.dscp2prio, desired)
    known = current.dscp2prio or {}
    for d in DSCPS:
        before = known.get(d)
        # An unknown map counts as the firmware default; with trust pcp that default is what trust dscp gives.
        effective = before if before is not None else default_dscp2prio()[d]
        if effective != wanted[d]:
            changes.append(Change("dscp2prio", before, wanted[d], key=d))
    vector = pfc_vector(desired.priority)
    if current.pfc != vector:
        changes.append(Change("pfc", _csv(current.pfc), _csv(vector)))
    return changes


def _csv(vector: Optional[Sequence[int]]) -> Optional[str]:
    return None if vector is None else ",".join(str(v) for v in vector)


# ---------------------------------------------------------------- commands
def mlnx_qos_argv(command: str, netdev: str, changes: Sequence[Change]) -> List[List[str]]:
    """One mlnx_qos call per change, so a failure names the setting: trust, then DSCP map, then PFC."""
    out: List[List[str]] = []
    for change in changes:
        if change.setting == "trust":
            out.append([command, "-i", netdev, "--trust", change.after])
        elif change.setting == "dscp2prio":
            out.append([command, "-i", netdev, "--dscp2prio", "set,%d,%d" % (change.key, change.after)])
        elif change.setting == "pfc":
            out.append([command, "-i", netdev, "--pfc", change.after])
    return out


def dcb_argv(command: str, netdev: str, changes: Sequence[Change], desired: Desired) -> List[List[str]]:
    """dcb app replace for the DSCP map (on mlx5 the first DSCP APP entry switches trust to dscp, so with trust
    not yet dscp every RoCE DSCP is written even where the default map already agrees), then dcb pfc set."""
    out: List[List[str]] = []
    trust = any(c.setting == "trust" for c in changes)
    entries = {c.key: c.after for c in changes if c.setting == "dscp2prio"}
    if trust:
        entries.update({d: desired.priority for d in desired.dscp})
    if entries:
        out.append([command, "app", "replace", "dev", netdev, "dscp-prio"]
                   + ["%d:%d" % (d, entries[d]) for d in sorted(entries)])
    for change in changes:
        if change.setting == "pfc":
            flags = change.after.split(",")
            out.append([command, "pfc", "set", "dev", netdev, "prio-pfc"]
                       + ["%d:%s" % (p, "on" if flags[p] == "1" else "off") for p in PRIORITIES])
    return out


def command_line(argv: Sequence[str]) -> str:
    """argv as one shell-quoted line, for messages, results and the boot script."""
    return " ".join(shlex.quote(a) for a in argv)


def boot_commands(tool: str, command: str, netdev: str, desired: Desired, ecn_dirs: Dict[str, Optional[str]],
                  tos_dir: Optional[Tuple[str, str]]) -> List[str]:
    """The whole setting of one port as shell lines, from the state the driver starts in (trust pcp, the
    default DSCP map, PFC off, ECN and ToS unset): the boot script runs them with set -e.

    ecn_dirs: {"np": <.../ecn/roce_np/enable>, "rp": ...} or None where the driver has no ECN sysfs;
    tos_dir: (<configfs>/rdma_cm/<dev>, ports/<n>/default_roce_tos) or None where the ToS is not managed.
    """
    lines: List[str] = []
    if tool in ("mlnx_qos", "dcb"):
        changes = qos_changes(QosState(trust="pcp"), desired)
        argvs = (mlnx_qos_argv(command, netdev, changes) if tool == "mlnx_qos"
                 else dcb_argv(command, netdev, changes, desired))
        lines.extend(command_line(argv) for argv in argvs)
    for name, enabled in (("np", desired.ecn_np), ("rp", desired.ecn_rp)):
        directory = ecn_dirs.get(name)
        if directory:
            lines.append("echo %d > %s" % (int(enabled), shlex.quote("%s/%d" % (directory, desired.priority))))
    if tos_dir:
        # configfs: the device's directory appears only once it is made; its ports/ the kernel fills in.
        lines.append("mkdir -p %s" % shlex.quote(tos_dir[0]))
        lines.append("echo %d > %s" % (desired.tos, shlex.quote("%s/%s" % tos_dir)))
    return lines


def nccl_environment(desired: Desired, hcas: Sequence[Tuple[str, int]], gid_indexes: Dict[str, int]
                     ) -> Dict[str, Any]:
    """NCCL_IB_TC (the ToS byte: NCCL puts it in the GRH traffic class, the IP ToS of RoCE v2),
    NCCL_IB_GID_INDEX (one number for every HCA: None when the HCAs disagree) and NCCL_IB_HCA
    ('=' = exactly these devices, not prefixes: =mlx5_0:1,mlx5_1:1)."""
    indexes = sorted(set(gid_indexes.values()))
    return {"NCCL_IB_TC": desired.tos,
            "NCCL_IB_GID_INDEX": indexes[0] if len(indexes) == 1 else None,
            "NCCL_IB_HCA": "=" + ",".join("%s:%d" % hca for hca in hcas) if hcas else None}
