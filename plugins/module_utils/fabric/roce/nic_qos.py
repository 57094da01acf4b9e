# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the roce_nic_qos module does, all but the AnsibleModule plumbing: put RoCE NIC ports in the lossless class.

:func:`run_module` takes the module's parameters, a command runner (``which`` and ``run``, as
:class:`..common.commands.CommandRunner` has them; the tests pass a fake NIC) and check mode, and for every port

1. checks the names (:func:`check_params`), picks the tool (``mlnx_qos`` or iproute2's ``dcb``; ``sysfs``: neither)
   and resolves each ``devices[]`` entry to (RDMA device, port, netdev), an Ethernet (RoCE) port;
2. reads everything first: the GID table (the RoCE v2 IPv4 GID NCCL should use), ECN and the rdma_cm ToS through
   :mod:`.nic_sysfs`, trust / PFC / the DSCP map through the tool (:mod:`.nic_parse`);
3. plans the changes (:mod:`.nic`), and outside check mode makes them and reads trust, PFC and the DSCP map back:
   a tool that accepted a change without making it fails the run;
4. returns the result (per-port before/after for the diff, commands, boot commands, the NCCL environment) and the
   warnings; a failure raises :class:`NicQosError` with the message the module fails with.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce import nic_sysfs
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import (
    Change, Desired, QosState, RoceNicError, boot_commands, command_line, dcb_argv, default_dscp2prio, desired_state,
    mlnx_qos_argv, nccl_environment, qos_changes,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_parse import (
    dcb_state, parse_dcb_ets, parse_mlnx_qos,
)

Params = Dict[str, Any]
#: One port: (RDMA device, port number, netdev).
Port = Tuple[str, int, str]
#: ECN per point ("np", "rp"): enabled per priority, or None where the driver has no ECN sysfs.
Ecn = Dict[str, Optional[Dict[int, bool]]]


class NicQosError(ValueError):
    """Why roce_nic_qos fails, as the module reports it; raised before any change when the input is refused."""


def _pick_tool(params: Params, runner: Any) -> Tuple[str, Optional[str]]:
    """(tool, path of its command or None)."""
    tool = params["tool"]
    if tool == "sysfs":
        return tool, None
    wanted = ["mlnx_qos", "dcb"] if tool == "auto" else [tool]
    for name in wanted:
        path = runner.which(params[name + "_command"])
        if path:
            return name, path
    looked = " and ".join("%s (%s)" % (n, params[n + "_command"]) for n in wanted)
    raise NicQosError("tool %s: %s not found, so trust and PFC cannot be set; install mlnx-tools (mlnx_qos) or "
                      "iproute2 (dcb), point mlnx_qos_command/dcb_command at it, or use tool sysfs to leave trust "
                      "and PFC alone" % (tool, looked))


def check_params(params: Params) -> None:
    """Refuse names that would leave sysfs (``../``), split a boot-script line or name another option: the RDMA device
    a word (mlx5_0), the netdev an interface name, the ports 1-254, the tool commands a word or an absolute path and
    the roots absolute paths, none with a control character."""
    for index, entry in enumerate(params["devices"] or []):
        where = "devices[%d]" % index
        if entry.get("rdma_device") is not None:
            input_rules.check("word", where + ".rdma_device", entry["rdma_device"], NicQosError)
        if entry.get("netdev") is not None:
            input_rules.check("ifname", where + ".netdev", entry["netdev"], NicQosError)
        if entry.get("port") is not None:
            input_rules.integer(where + ".port", entry["port"], NicQosError, minimum=1, maximum=254)
    for key in ("mlnx_qos_command", "dcb_command"):
        value = params[key]
        if not (isinstance(value, str) and value.startswith("/") and not input_rules.CONTROL_RE.search(value)
                and " " not in value):
            input_rules.check("word", key, value, NicQosError)
    for key in ("sysfs_root", "configfs_root"):
        value = params[key]
        if not isinstance(value, str) or not value.startswith("/") or input_rules.CONTROL_RE.search(value):
            raise NicQosError("%s: %r is not allowed; expected an absolute path without control characters"
                              % (key, value))


def _resolve(entry: Dict[str, Any], sysfs_root: str) -> Port:
    """(rdma_device, port, netdev) of one devices[] entry, checked to be an Ethernet (RoCE) port."""
    device, port, netdev = entry.get("rdma_device"), entry.get("port") or 1, entry.get("netdev")
    if not device and not netdev:
        raise NicQosError("devices entry %s names neither rdma_device nor netdev; give one of them" % entry)
    try:
        if not device:
            device, port = nic_sysfs.find_port_of_netdev(sysfs_root, netdev)
        layer = nic_sysfs.link_layer(sysfs_root, device, port)
        if layer is None:
            raise NicQosError("%s port %d not found: %s has no link_layer" % (
                device, port, nic_sysfs.port_dir(sysfs_root, device, port)))
        if layer != "Ethernet":
            raise NicQosError("%s port %d has link layer %s, so it is not a RoCE port; list only Ethernet "
                              "(RoCE) ports in devices" % (device, port, layer))
        netdev = netdev or nic_sysfs.port_netdev(sysfs_root, device, port)
    except RoceNicError as exc:
        raise NicQosError(str(exc)) from None
    if not netdev:
        raise NicQosError("%s port %d: no netdev in gid_attrs/ndevs/0; give devices[].netdev" % (device, port))
    return device, port, netdev


def _run(runner: Any, argv: List[str], what: str) -> str:
    rc, out, err = runner.run(argv)
    if rc != 0:
        detail = (err or "").strip() or (out or "").strip() or "no output"
        raise NicQosError("%s exited %d while %s: %s" % (command_line(argv), rc, what, detail))
    return out or ""


def _read_qos(tool: str, path: str, netdev: str, runner: Any) -> QosState:
    """QosState of the port through the tool; the ETS traffic class map goes to extra['prio_tc']."""
    try:
        if tool == "mlnx_qos":
            return parse_mlnx_qos(_run(runner, [path, "-i", netdev], "reading trust and PFC"))
        pfc = _run(runner, [path, "pfc", "show", "dev", netdev], "reading PFC")
        app = _run(runner, [path, "-N", "app", "show", "dev", netdev, "dscp-prio"], "reading the DSCP map")
        state = dcb_state(pfc, app)
        ets = parse_dcb_ets(_run(runner, [path, "ets", "show", "dev", netdev], "reading ETS"))
        state.extra["prio_tc"] = {p: int(tc) for p, tc in ets["prio-tc"].items()}
        return state
    except RoceNicError as exc:
        raise NicQosError("%s on %s: output not understood: %s" % (tool, netdev, exc))


def _ecn_changes(current: Optional[Dict[int, bool]], point: str, desired: Desired) -> List[Change]:
    if current is None:
        return []
    wanted = desired.ecn_np if point == "np" else desired.ecn_rp
    if current[desired.priority] == wanted:
        return []
    return [Change("ecn_" + point, current[desired.priority], wanted, key=desired.priority)]


def _view(qos: QosState, ecn: Ecn, tos: Optional[int], desired: Desired, changes: List[Change],
          tool: str) -> Dict[str, Any]:
    """The diff's picture of one port: the DSCPs of the class, those the firmware default puts on the lossless
    priority (DSCP >> 3) and any that move; ECN priorities; ToS. The same DSCPs before and after, run after run."""
    dscps = sorted(set(desired.dscp) | {d for d in range(64) if d >> 3 == desired.priority}
                   | {c.key for c in changes if c.setting == "dscp2prio"})
    out = qos.summary(dscps) if tool != "sysfs" else {}
    for point in ("np", "rp"):
        out["ecn_" + point] = None if ecn[point] is None else [p for p, on in sorted(ecn[point].items()) if on]
    out["roce_tos"] = tos
    return out


def _after(qos: QosState, ecn: Ecn, desired: Desired, changes: List[Change]) -> Tuple[QosState, Ecn, Optional[int]]:
    """What the port is after the changes: the current state with each change applied."""
    new = QosState(trust=qos.trust, pfc=qos.pfc, dscp2prio=dict(qos.dscp2prio or {}))
    new_ecn = {k: (dict(v) if v is not None else None) for k, v in ecn.items()}
    tos = None
    for change in changes:
        if change.setting == "trust":
            new.trust = change.after
        elif change.setting == "pfc":
            new.pfc = tuple(int(v) for v in change.after.split(","))
        elif change.setting == "dscp2prio":
            new.dscp2prio[change.key] = change.after
        elif change.setting in ("ecn_np", "ecn_rp"):
            new_ecn[change.setting[4:]][change.key] = change.after
        elif change.setting == "roce_tos":
            tos = change.after
    if qos.dscp2prio is None:
        # Unknown before (trust pcp): after trust dscp the firmware default holds where nothing was set.
        new.dscp2prio = _merged(default_dscp2prio(), new.dscp2prio)
    return new, new_ecn, tos


def _merged(base: Dict[int, int], top: Dict[int, int]) -> Dict[int, int]:
    out = dict(base)
    out.update(top)
    return out


def _port(params: Params, desired: Desired, tool: str, path: Optional[str], resolved: Port, runner: Any,
          check_mode: bool, warnings: List[str]) -> Dict[str, Any]:
    device, port, netdev = resolved
    sysfs_root, configfs_root = params["sysfs_root"], params["configfs_root"]
    try:
        gid = nic_sysfs.choose_gid(nic_sysfs.read_gids(sysfs_root, device, port), device, port, netdev)
        ecn = {point: nic_sysfs.read_ecn(sysfs_root, netdev, point) for point in ("np", "rp")}
        tos = nic_sysfs.read_tos(configfs_root, device, port)
    except RoceNicError as exc:
        raise NicQosError(str(exc)) from None
    if ecn["np"] is None or ecn["rp"] is None:
        warnings.append("%s has no ECN sysfs (%s): ECN is not managed on %s:%d; the inbox mlx5 driver keeps DCQCN "
                        "on by firmware default for every priority" % (
                            netdev, os.path.dirname(nic_sysfs.ecn_enable_dir(sysfs_root, netdev, "np")), device, port))
    qos = _read_qos(tool, path, netdev, runner) if tool != "sysfs" else QosState()
    changes = qos_changes(qos, desired) if tool != "sysfs" else []
    changes += _ecn_changes(ecn["np"], "np", desired) + _ecn_changes(ecn["rp"], "rp", desired)
    if tos != desired.tos:
        changes.append(Change("roce_tos", tos, desired.tos))
    argvs = []
    if tool == "mlnx_qos":
        argvs = mlnx_qos_argv(path, netdev, changes)
    elif tool == "dcb":
        argvs = dcb_argv(path, netdev, changes, desired)
    before = _view(qos, ecn, tos, desired, changes, tool)
    new_qos, new_ecn, new_tos = _after(qos, ecn, desired, changes)
    after = _view(new_qos, new_ecn, new_tos if new_tos is not None else tos, desired, changes, tool)
    if changes and not check_mode:
        _apply(params, desired, tool, path, resolved, changes, argvs, runner)
    ecn_dirs = {p: (nic_sysfs.ecn_enable_dir(sysfs_root, netdev, p) if ecn[p] is not None else None)
                for p in ("np", "rp")}
    boot = boot_commands(tool, path or "", netdev, desired, ecn_dirs, nic_sysfs.tos_paths(configfs_root, device, port))
    return {"rdma_device": device, "port": port, "netdev": netdev, "tool": tool, "gid_index": gid.index,
            "gid": gid.gid, "gid_ipv4": gid.ipv4, "before": before, "after": after,
            "changes": [c.as_dict() for c in changes], "commands": [command_line(a) for a in argvs],
            "boot_commands": boot, "traffic_class": (qos.extra.get("prio_tc") or {}).get(desired.priority)}


def _apply(params: Params, desired: Desired, tool: str, path: Optional[str], port_of: Port, changes: List[Change],
           argvs: List[List[str]], runner: Any) -> None:
    device, port, netdev = port_of
    sysfs_root, configfs_root = params["sysfs_root"], params["configfs_root"]
    for argv in argvs:
        _run(runner, argv, "setting %s:%d (%s) to trust dscp / PFC on priority %d" % (
            device, port, netdev, desired.priority))
    if argvs:
        left = qos_changes(_read_qos(tool, path, netdev, runner), desired)
        if left:
            raise NicQosError("%s accepted %s but %s still needs %s; the NIC did not take the setting" % (
                tool, "; ".join(command_line(a) for a in argvs), netdev,
                ", ".join("%s%s %s -> %s" % (c.setting, "" if c.key is None else "[%d]" % c.key, c.before, c.after)
                          for c in left)))
    try:
        for change in changes:
            if change.setting in ("ecn_np", "ecn_rp"):
                nic_sysfs.write_ecn(sysfs_root, netdev, change.setting[4:], change.key, change.after)
            elif change.setting == "roce_tos":
                nic_sysfs.write_tos(configfs_root, device, port, change.after)
    except RoceNicError as exc:
        raise NicQosError("setting ECN / the RoCE ToS of %s:%d (%s): %s" % (device, port, netdev, exc))


def run_module(params: Params, runner: Any, check_mode: bool) -> Tuple[Dict[str, Any], List[str]]:
    """Everything but the Ansible plumbing: (result, warnings); raises NicQosError."""
    ecn = params.get("ecn") or {}
    try:
        desired = desired_state(params["priority"], params["dscp"], params["tos"], params["default_priority"],
                                ecn.get("np", True), ecn.get("rp", True))
    except RoceNicError as exc:
        raise NicQosError(str(exc)) from None
    if not params["devices"]:
        raise NicQosError("devices is empty: list the RoCE ports as {rdma_device} or {netdev}")
    check_params(params)
    tool, path = _pick_tool(params, runner)
    resolved = [_resolve(entry, params["sysfs_root"]) for entry in params["devices"]]
    seen = set()
    for device, port, _netdev in resolved:
        if (device, port) in seen:
            raise NicQosError("%s:%d is listed twice in devices; list each port once" % (device, port))
        seen.add((device, port))
    warnings = []
    ports = [_port(params, desired, tool, path, r, runner, check_mode, warnings) for r in resolved]
    gid_index = {p["rdma_device"]: p["gid_index"] for p in ports}
    nccl = nccl_environment(desired, [(p["rdma_device"], p["port"]) for p in ports], gid_index)
    if nccl["NCCL_IB_GID_INDEX"] is None:
        warnings.append("the RoCE v2 IPv4 GID has different indexes on the devices (%s) but NCCL_IB_GID_INDEX is one "
                        "number for all; give the netdevs their addresses in the same order, or leave "
                        "NCCL_IB_GID_INDEX unset and set NCCL_IB_ROCE_VERSION_NUM=2 / NCCL_IB_ADDR_FAMILY=AF_INET "
                        "(NCCL 2.21+)" % ", ".join("%s %d" % item for item in sorted(gid_index.items())))
    changed = any(p["changes"] for p in ports)
    name = "%s:%d"
    count = sum(len(p["changes"]) for p in ports)
    what = ("%d setting(s) %s" % (count, "to change (check mode)" if check_mode else "changed")) if changed \
        else "already set"
    index = nccl["NCCL_IB_GID_INDEX"] if nccl["NCCL_IB_GID_INDEX"] is not None else gid_index
    msg = "%d RoCE port(s), %s; GID index %s" % (len(ports), what, index)
    result = dict(
        changed=changed, devices=ports, gid_index=gid_index, nccl=nccl, msg=msg,
        commands=[c for p in ports for c in p["commands"]],
        boot_commands=[c for p in ports for c in p["boot_commands"]],
        diff={"before": {name % (p["rdma_device"], p["port"]): p["before"] for p in ports},
              "after": {name % (p["rdma_device"], p["port"]): p["after"] for p in ports}})
    return result, warnings
