# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Who runs perftest against whom in validate.yml's RDMA checks, computed once per run (docs/validate.md).

A run validates the GPU nodes of its own hosts (all of them, or a --limit / AWX slice). Its nodes that can take
part (`ready`: perftest present, an ACTIVE port) are paired among themselves; where they cannot be, a peer outside
the run is taken from the inventory's RDMA nodes:

* ``peer`` (validate_rdma_peer) set: every ready node runs against it, one at a time, each result naming the
  tested node alone. A peer outside the run is probed first (reachable, perftest, an ACTIVE port).
* no peer, two or more ready nodes: sorted and taken two by two, all pairs at once; an odd node out runs in a
  second round against the first node.
* no peer, one ready node (validating one node): the first healthy of the inventory's RDMA nodes outside the run
  (at most CANDIDATES probed, in inventory order) is its peer, the one sharing the most rails with it.
  No RDMA node outside the run at all: "not run: not paired", not applicable, not a failure.

Step one (no ``probed``) says whom to probe (``probe``); step two (``probed``: the probe's registered loop results)
gives the rounds. Stdlib only; no Ansible import.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of, must_be

#: How many of the inventory's RDMA nodes outside the run are probed for a peer (one task each, in one loop).
CANDIDATES = 3
NOT_PAIRED = "not run: not paired"


class PairsError(ValueError):
    """An input of the RDMA pairing that cannot be used; the message names the variable."""


def _name(where: str, value: Any) -> str:
    if not (input_rules.is_valid("slurm_name", value) or input_rules.is_valid("hostname", value)):
        raise must_be(where, value, "a node name (letters, digits, '.', '_' and '-')", PairsError)
    return value


def _names(where: str, value: Any) -> List[str]:
    return [_name("%s[%d]" % (where, index), item) for index, item in enumerate(list_of(where, value, PairsError))]


def _ready(value: Any) -> Dict[str, List[str]]:
    mapping_of("ready", value, PairsError, "a dict of node -> its ACTIVE RDMA devices")
    return {_name("ready key", node): sorted(_names("ready[%s]" % node, devices)) for node, devices in value.items()}


def _probe_results(where: str, value: Any) -> Dict[str, Mapping[str, Any]]:
    """{node: registered result} from a loop's `results` (each carries its `item`, the node probed)."""
    out: Dict[str, Mapping[str, Any]] = {}
    for index, result in enumerate(list_of(where, value, PairsError)):
        mapping_of("%s[%d]" % (where, index), result, PairsError, "a registered loop result (with its item)")
        out[_name("%s[%d].item" % (where, index), result.get("item"))] = result
    return out


def _health(node: str, info: Optional[Mapping[str, Any]], which: Optional[Mapping[str, Any]],
            tests: Sequence[str]) -> Dict[str, Any]:
    """A probed node: {ok, devices, reason}. Unreachable, a failed read, no perftest or no ACTIVE port is not ok."""
    for result, what in ((info, "rdma_info"), (which, "which")):
        if result is None:
            return {"ok": False, "devices": [], "reason": "not probed (%s)" % what}
        if result.get("unreachable"):
            return {"ok": False, "devices": [], "reason": "unreachable: %s" % str(result.get("msg", ""))[:120]}
        if result.get("failed") or result.get("skipped"):
            return {"ok": False, "devices": [], "reason": "%s %s: %s" % (
                what, "skipped" if result.get("skipped") else "failed", str(result.get("msg", ""))[:120])}
    found = {str(line).rsplit("/", 1)[-1] for line in (which or {}).get("stdout_lines") or []}
    missing = [test for test in tests if test not in found]
    if missing:
        return {"ok": False, "devices": [], "reason": "perftest missing: %s" % ", ".join(missing)}
    ports = (info or {}).get("ports") or []
    devices = sorted({port.get("device") for port in ports if isinstance(port, Mapping)
                      and port.get("state") == "ACTIVE" and isinstance(port.get("device"), str)})
    if not devices:
        return {"ok": False, "devices": [], "reason": "no ACTIVE RDMA port"}
    return {"ok": True, "devices": devices, "reason": ""}


def _in_run_rounds(nodes: List[str]) -> List[List[List[str]]]:
    rounds = [[[client, server] for client, server in zip(nodes[0::2], nodes[1::2])]] if len(nodes) > 1 else []
    if len(nodes) > 1 and len(nodes) % 2:
        rounds.append([[nodes[-1], nodes[0]]])
    return rounds


def _plan(rounds: List[List[List[str]]], ready: Dict[str, List[str]], peer: str = "", outside: bool = False,
          source: str = "", unpaired: Optional[Dict[str, Dict[str, str]]] = None,
          peer_devices: Optional[List[str]] = None, summary: str = "") -> Dict[str, Any]:
    devices = dict(ready)
    if peer and peer_devices is not None:
        devices[peer] = peer_devices
    untested = {}
    for pair in (pair for one in rounds for pair in one):
        left = [device for device in devices.get(pair[0], []) if device not in devices.get(pair[1], [])]
        if left:
            untested[pair[0]] = left
    return {"probe": [], "rounds": rounds, "peer": peer, "peer_outside": outside, "peer_source": source,
            "peer_devices": peer_devices or [], "unpaired": unpaired or {}, "untested_rails": untested,
            "summary": summary}


def _against(peer: str, ready: Dict[str, List[str]], outside: bool, source: str,
             devices: Optional[List[str]]) -> Dict[str, Any]:
    where = "outside this run" if outside else "in this run"
    how = "validate_rdma_peer" if source == "validate_rdma_peer" else "the first healthy RDMA node of the inventory"
    rounds = [[[node, peer]] for node in sorted(ready) if node != peer]
    return _plan(rounds, ready, peer, outside, source, peer_devices=devices,
                 summary="against peer %s (%s, %s), one node at a time" % (peer, how, where))


def _unpaired(nodes: Sequence[str], status: str, detail: str) -> Dict[str, Dict[str, str]]:
    return {node: {"status": status, "detail": detail} for node in nodes}


def rdma_pairs(ready: Any, run: Any, inventory: Any, peer: Any = "", tests: Any = ("ib_write_bw",),
               probed_info: Any = None, probed_which: Any = None) -> Dict[str, Any]:
    """The rounds of [client, server] pairs, or (step one) the nodes outside the run to probe for a peer.

    ready: {node: ACTIVE devices} of the run's nodes that can take part; run: the run's hosts; inventory: the
    inventory's RDMA nodes (GPU nodes with rdma_hcas > 0), in inventory order; peer: validate_rdma_peer;
    tests: validate_rdma_tests; probed_info / probed_which: the probe's loop results (rdma_info, which)."""
    ready_map = _ready(ready)
    in_run = set(_names("run", run))
    rdma_nodes = _names("inventory", inventory)
    tests = [input_rules.check("word", "tests[%d]" % index, test, PairsError)
             for index, test in enumerate(list_of("tests", tests, PairsError))]
    if peer is None:
        peer = ""
    if peer != "":
        _name("validate_rdma_peer", peer)
        if peer not in rdma_nodes:
            raise PairsError("validate_rdma_peer %r is not one of the inventory's RDMA nodes (GPU nodes with "
                             "gpufleet_hardware.rdma_hcas > 0: %s); leave it empty to pair the nodes of the run"
                             % (peer, ", ".join(rdma_nodes[:10]) + (", ..." if len(rdma_nodes) > 10 else "")))
    probing = probed_info is not None or probed_which is not None
    info = _probe_results("probed_info", probed_info) if probing else {}
    which = _probe_results("probed_which", probed_which) if probing else {}
    if not ready_map:
        return _plan([], ready_map, summary="no node of this run can take part")
    if peer and peer in in_run:
        if peer in ready_map:
            return _against(peer, ready_map, False, "validate_rdma_peer", None)
        return _plan([], ready_map, peer, False, "validate_rdma_peer", _unpaired(
            ready_map, "error", "not paired: validate_rdma_peer %s cannot take part (no ACTIVE RDMA port or "
            "perftest missing on it)" % peer), summary="validate_rdma_peer %s cannot take part" % peer)
    if not peer and len(ready_map) > 1:
        return _plan(_in_run_rounds(sorted(ready_map)), ready_map,
                     summary="pairs of the nodes of this run, rail to rail")
    candidates = [peer] if peer else [node for node in rdma_nodes if node not in in_run][:CANDIDATES]
    if not candidates:
        return _plan([], ready_map, unpaired=_unpaired(
            ready_map, "not_applicable", "%s: no other RDMA node in this run or in the inventory (groups' GPU "
            "nodes with gpufleet_hardware.rdma_hcas > 0) to pair with" % NOT_PAIRED), summary=NOT_PAIRED)
    if not probing:
        return dict(_plan([], ready_map), probe=candidates, summary="probe %s for a peer" % ", ".join(candidates))
    health = {node: _health(node, info.get(node), which.get(node), tests) for node in candidates}
    if peer:
        if health[peer]["ok"]:
            return _against(peer, ready_map, True, "validate_rdma_peer", health[peer]["devices"])
        return _plan([], ready_map, peer, True, "validate_rdma_peer", _unpaired(
            ready_map, "error", "not paired: validate_rdma_peer %s (outside this run) cannot serve: %s"
            % (peer, health[peer]["reason"])), summary="validate_rdma_peer %s cannot serve" % peer)
    node = sorted(ready_map)[0]
    shared = {name: len(set(health[name]["devices"]) & set(ready_map[node])) for name in candidates}
    usable = [name for name in candidates if health[name]["ok"] and shared[name]]
    if usable:
        best = max(usable, key=lambda name: (shared[name], -candidates.index(name)))
        return _against(best, ready_map, True, "inventory", health[best]["devices"])
    reasons = "; ".join("%s: %s" % (name, health[name]["reason"] or "no ACTIVE port on a rail of %s (%s)"
                                    % (node, ", ".join(ready_map[node]))) for name in candidates)
    return _plan([], ready_map, unpaired=_unpaired(
        ready_map, "error", "not paired: no healthy peer outside this run among %s (%s); set validate_rdma_peer "
        "to a known-good node" % (", ".join(candidates), reasons)), summary="no healthy peer")
