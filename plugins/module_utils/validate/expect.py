# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Thresholds of validate.yml, derived from the inventory's hardware description (docs/validate.md).

`hardware` is a dict of the inventory variables by their own names: gpufleet_fabric, gpufleet_hardware,
gpufleet_lustre, gpufleet_plan_lustre, gpu_tuning_profiles, gpu_tuning_profile_overrides,
gpu_tuning_node_profile. Every expectation is {kind, applicable, value, unit, compare, derivation, inputs};
`compare` is ">=" (a floor: bandwidths) or "<=" (a ceiling: latency). Not applicable ones carry `reason`
("not applicable: no <hardware>") and value None.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

# perftest bandwidth floor: 90 % of the link's data rate (IB HDR 4x: 4 lanes x 50 Gb/s = 200 Gb/s of data).
RDMA_FRACTION = 0.9
# One-way small-message latency ceilings (ib_write_lat t_typical, 2 bytes), in usec. perftest prints half
# the round trip; published runs show ~1.8 us on InfiniBand (ib_read_lat, one switch) and ~7 us on RoCE
# through SR-IOV pods. The ceilings sit above a healthy path and far below a port fallen back to a slow
# width/speed or a path through the wrong switch tier.
LATENCY_CEILING_US = {"infiniband": 3.0, "roce": 5.0}
# NCCL all-reduce busbw floor: 75 % of the bound. Healthy recorded runs reach 78.4 % of the NVLink bound
# (8x A100 SXM4: 235.26 of 300 GB/s) and 95.8 % of the network bound (4x DGX A100, 8 x HDR: 191.56 of 200).
NCCL_FRACTION = 0.75
# Per-GPU unidirectional NVLink bandwidth, GB/s (half the bidirectional figure NVIDIA quotes):
# H100/H200 SXM NVLink4 18 links, 900 GB/s -> 450; A100 SXM4 NVLink3 12 links, 600 GB/s -> 300;
# B200 NVLink5 1800 GB/s -> 900.
NVLINK_GBS = {"H100-SXM": 450.0, "H200-SXM": 450.0, "A100-SXM": 300.0, "B200": 900.0, "GB200": 900.0}
# Lustre aggregate read floor: 80 % of the OSTs' summed bandwidth.
LUSTRE_FRACTION = 0.8


class ExpectationError(ValueError):
    """The inventory lacks what an expectation is derived from; the message names the variable."""


def _fmt(value: float) -> str:
    return ("%.3f" % value).rstrip("0").rstrip(".")


def _dict(hardware: Dict[str, Any], name: str, required: bool = True) -> Dict[str, Any]:
    value = hardware.get(name)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise must_be(name, value, "a dict", ExpectationError, "see docs/inventory.md; pass it in hardware=")
    return value


# A number as an inventory gives it: int, float, or its decimal text (a templated value arrives as a string).
# Applied with fullmatch: 'nan', 'inf', '1e400' and '8\n' are not numbers here.
_DECIMAL = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,12})?")
_WHOLE = re.compile(r"[0-9]{1,9}")
#: Upper bounds of a threshold's inputs: far above any real hardware, low enough that no product overflows.
MAX_NUMBER = 1e7
MIN_NUMBER = 1e-3
MIN_FRACTION = 0.01
MAX_COUNT = 100000
KINDS = "one of rdma, rdma_lat, nccl, lustre, filesystem, gpu"


def positive_number(value: Any, name: str, maximum: float = MAX_NUMBER) -> float:
    """A finite number MIN_NUMBER..maximum (int, float or decimal text); NaN, infinity, 0, negatives, booleans
    and anything else are refused, naming ``name``, the value and what is allowed."""
    number: Any = value
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = float(value)
    if (isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number)
            or not MIN_NUMBER <= number <= maximum):
        raise must_be(name, value, "a finite number > 0 (%s..%s)" % (_fmt(MIN_NUMBER), _fmt(maximum)),
                      ExpectationError, "NaN, infinity, 0 and negative numbers would make every run pass or every "
                      "run fail")
    return float(number)


def count(value: Any, name: str, minimum: int = 0, maximum: int = MAX_COUNT) -> int:
    """A whole number minimum..maximum (int or digit text); 'eight', 8.5, True are refused."""
    number: Any = value
    if isinstance(value, str) and _WHOLE.fullmatch(value):
        number = int(value)
    if isinstance(number, bool) or not isinstance(number, int) or not minimum <= number <= maximum:
        raise must_be(name, value, "a whole number %d..%d" % (minimum, maximum), ExpectationError)
    return number


def _positive(container: Dict[str, Any], key: str, where: str) -> float:
    return positive_number(container.get(key), "%s.%s" % (where, key))


def _fraction(value: Any, name: str) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or not MIN_FRACTION <= value <= 1):
        raise must_be(name, value, "a fraction in [%s, 1]" % _fmt(MIN_FRACTION), ExpectationError, "e.g. 0.9")
    return float(value)


def na(kind: str, what: str, inputs: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    return {"kind": kind, "applicable": False, "reason": "not applicable: no %s" % what, "value": None,
            "unit": None, "compare": None, "derivation": "not applicable: no %s" % what, "inputs": inputs or {}}


def _port_rate(rdma_info: Any, device: Optional[str]) -> Optional[Dict[str, Any]]:
    """The rate of the tested port from rdma_info's result (its `ports`, or the list itself): the slowest ACTIVE one
    with a rate in (0, MAX_NUMBER] Gb/s; a port reporting none (or an impossible one) is not the tested port."""
    ports = rdma_info.get("ports") if isinstance(rdma_info, dict) else rdma_info
    if not isinstance(ports, list):
        raise must_be("rdma_info", rdma_info, "the rdma_info module's result or its ports list", ExpectationError)
    active = [port for port in ports if isinstance(port, dict) and port.get("state") == "ACTIVE"
              and isinstance(port.get("rate_gbps"), (int, float)) and not isinstance(port.get("rate_gbps"), bool)
              and math.isfinite(port["rate_gbps"]) and 0 < port["rate_gbps"] <= MAX_NUMBER
              and (device is None or port.get("device") == device)]
    if not active:
        return None
    slowest = min(active, key=lambda port: port["rate_gbps"])
    return {"rate_gbps": float(slowest["rate_gbps"]), "device": slowest.get("device"),
            "detail": slowest.get("rate_detail")}


def expect_rdma(hardware: Dict[str, Any], rdma_info: Any = None, device: Optional[str] = None,
                fraction: float = RDMA_FRACTION, bidirectional: bool = False, metric: str = "bw") -> Dict[str, Any]:
    """bw: fraction x port rate (x 2 bidirectional) in Gb/s; lat: the ceiling of the link type in usec."""
    name = "rdma_lat" if metric == "lat" else "rdma"
    node = _dict(hardware, "gpufleet_hardware", required=False)
    if node and not node.get("rdma_hcas"):
        return na(name, "RDMA HCAs (gpufleet_hardware.rdma_hcas is 0)")
    fabric = _dict(hardware, "gpufleet_fabric")
    kind = fabric.get("kind")
    if device is not None and not isinstance(device, str):
        raise must_be("device", device, "an RDMA device name such as mlx5_0", ExpectationError)
    if not isinstance(bidirectional, bool):
        raise must_be("bidirectional", bidirectional, "true or false", ExpectationError)
    if not isinstance(kind, str) or kind not in LATENCY_CEILING_US:
        raise must_be("gpufleet_fabric.kind", kind, "infiniband or roce", ExpectationError)
    if metric == "lat":
        ceiling = LATENCY_CEILING_US[kind]
        return {"kind": name, "applicable": True, "value": ceiling, "unit": "usec", "compare": "<=",
                "derivation": "ib_write_lat t_typical (2 bytes, one-way = half the round trip) at most %s usec on "
                              "%s (gpufleet_fabric.kind)" % (_fmt(ceiling), kind),
                "inputs": {"fabric_kind": kind}}
    if metric != "bw":
        raise must_be("metric", metric, "bw or lat", ExpectationError)
    fraction = _fraction(fraction, "fraction")
    port = _port_rate(rdma_info, device) if rdma_info is not None else None
    if port is not None:
        rate, source = port["rate_gbps"], "rdma_info port %s%s" % (port["device"], " (%s)" % port["detail"]
                                                                   if port["detail"] else "")
    else:
        rate, source = _positive(fabric, "rate_gbps", "gpufleet_fabric"), "gpufleet_fabric.rate_gbps"
    factor = 2 if bidirectional else 1
    value = fraction * rate * factor
    text = "%s %% of %s Gb/s (%s)%s = %s Gb/s = %s GB/s" % (
        _fmt(fraction * 100), _fmt(rate), source, " x 2 directions (bidirectional test)" if bidirectional else "",
        _fmt(value), _fmt(value / 8))
    return {"kind": "rdma", "applicable": True, "value": value, "unit": "Gb/s", "compare": ">=", "derivation": text,
            "inputs": {"rate_gbps": rate, "source": source, "fraction": fraction, "bidirectional": bidirectional}}


def nvlink_gbs(model: str) -> Optional[float]:
    upper = model.upper().replace(" ", "-")
    for prefix, value in NVLINK_GBS.items():
        if upper.startswith(prefix):
            return value
    return None


def expect_nccl(hardware: Dict[str, Any], nodes: Optional[int] = None, fraction: float = NCCL_FRACTION,
                nvlink: Optional[float] = None, rdma_info: Any = None) -> Dict[str, Any]:
    """busbw floor of all_reduce_perf at the largest size over `nodes` nodes of gpufleet_hardware.gpus GPUs."""
    node = _dict(hardware, "gpufleet_hardware")
    gpus = count(node.get("gpus") or 0, "gpufleet_hardware.gpus", 0, 1024)
    if gpus < 1:
        return na("nccl", "GPUs (gpufleet_hardware.gpus is 0)")
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_COUNT:
        raise must_be("nodes", nodes, "the number of nodes in the run (an integer 1..%d)" % MAX_COUNT,
                      ExpectationError)
    fraction = _fraction(fraction, "fraction")
    model = str(node.get("gpu_model", ""))
    link = positive_number(nvlink, "nvlink_gbs", 100000) if nvlink is not None else nvlink_gbs(model)
    if link is None:
        raise ExpectationError("no NVLink bandwidth known for gpufleet_hardware.gpu_model %r (known: %s); pass "
                               "nvlink_gbs=<per-GPU unidirectional GB/s>" % (model, ", ".join(sorted(NVLINK_GBS))))
    parts: List[str] = ["NVLink bound %s GB/s per GPU (%s, unidirectional)" % (_fmt(link), model or "nvlink_gbs")]
    bound = float(link)
    inputs: Dict[str, Any] = {"nodes": nodes, "gpus_per_node": gpus, "nvlink_gbs": link, "fraction": fraction}
    if nodes > 1:
        rate = expect_rdma(hardware, rdma_info=rdma_info, fraction=1.0)
        if not rate["applicable"]:
            return na("nccl", "RDMA HCAs for a %d-node run (gpufleet_hardware.rdma_hcas is 0)" % nodes)
        nics = count(node.get("rdma_hcas"), "gpufleet_hardware.rdma_hcas", 1, 1024)
        network = nics * rate["inputs"]["rate_gbps"] / 8
        parts.append("network bound %d HCAs x %s Gb/s / 8 = %s GB/s per node (a ring crosses each node boundary "
                     "over all HCAs at once)" % (nics, _fmt(rate["inputs"]["rate_gbps"]), _fmt(network)))
        inputs.update(hcas=nics, rate_gbps=rate["inputs"]["rate_gbps"], network_gbs=network)
        bound = min(bound, network)
    value = fraction * bound
    text = "%s; busbw at the largest size >= %s %% of min = %s x %s = %s GB/s (%d node%s x %d GPUs)" % (
        "; ".join(parts), _fmt(fraction * 100), _fmt(fraction), _fmt(bound), _fmt(value), nodes,
        "" if nodes == 1 else "s", gpus)
    inputs["bound_gbs"] = bound
    return {"kind": "nccl", "applicable": True, "value": value, "unit": "GB/s", "compare": ">=", "derivation": text,
            "inputs": inputs}


def expect_lustre(hardware: Dict[str, Any], fraction: float = LUSTRE_FRACTION) -> Dict[str, Any]:
    """Aggregate read floor of all clients at once: fraction x OSTs x per-OST bandwidth."""
    node = _dict(hardware, "gpufleet_hardware", required=False)
    lustre = _dict(hardware, "gpufleet_lustre", required=False)
    if not lustre or (node and not node.get("lustre_servers")):
        return na("lustre", "Lustre servers (gpufleet_hardware.lustre_servers is false)" if lustre
                  else "Lustre file system (gpufleet_lustre is not set)")
    plan = _dict(hardware, "gpufleet_plan_lustre")
    fraction = _fraction(fraction, "fraction")
    osts = count(lustre.get("osts"), "gpufleet_lustre.osts", 1)
    ost_bw = _positive(plan, "ost_bw_gbs", "gpufleet_plan_lustre")
    oss = lustre.get("oss")
    total = osts * ost_bw
    value = fraction * total
    text = "%s %% of %d OSTs%s x %s GB/s (gpufleet_plan_lustre.ost_bw_gbs) = %s x %s = %s GB/s aggregate read" % (
        _fmt(fraction * 100), osts, " on %s OSS" % oss if oss else "", _fmt(ost_bw), _fmt(fraction), _fmt(total),
        _fmt(value))
    return {"kind": "lustre", "applicable": True, "value": value, "unit": "GB/s", "compare": ">=", "derivation": text,
            "inputs": {"osts": osts, "oss": oss, "ost_bw_gbs": ost_bw, "fraction": fraction,
                       "mountpoint": lustre.get("mountpoint")}}


def expect_filesystem(min_gbs: Any, path: Optional[str] = None) -> Dict[str, Any]:
    """A local mount's read floor (the lab's stand-in for Lustre): given, not derived."""
    if (isinstance(min_gbs, bool) or not isinstance(min_gbs, (int, float)) or not math.isfinite(min_gbs)
            or not MIN_NUMBER <= min_gbs <= MAX_NUMBER):
        raise must_be("min_gbs", min_gbs, "the floor in GB/s (a finite number > 0, %s..%s)"
                      % (_fmt(MIN_NUMBER), _fmt(MAX_NUMBER)), ExpectationError)
    if path is not None and not isinstance(path, str):
        raise must_be("path", path, "the mount's path", ExpectationError)
    return {"kind": "filesystem", "applicable": True, "value": float(min_gbs), "unit": "GB/s", "compare": ">=",
            "derivation": "read from %s at least %s GB/s (min_gbs, set for the lab's local disk)"
                          % (path or "the local mount", _fmt(min_gbs)), "inputs": {"path": path}}


def expect_gpu(hardware: Dict[str, Any], model: Optional[str] = None) -> Dict[str, Any]:
    """Power limit and clocks the gpu_tuning role sets for a model (profiles, overrides, node profile)."""
    node = _dict(hardware, "gpufleet_hardware", required=False)
    if node and not node.get("gpus"):
        return na("gpu", "GPUs (gpufleet_hardware.gpus is 0)")
    node_profile = _dict(hardware, "gpu_tuning_node_profile", required=False)
    profiles = _dict(hardware, "gpu_tuning_profiles", required=False)
    overrides = _dict(hardware, "gpu_tuning_profile_overrides", required=False)
    if node_profile:
        profile, source = dict(node_profile), "gpu_tuning_node_profile"
    else:
        if model is None or not isinstance(model, str):
            raise ExpectationError("model is required unless gpu_tuning_node_profile is set (the GPU name as "
                                   "nvidia-smi prints it, e.g. 'NVIDIA H100 80GB HBM3')")
        profile = dict(profiles.get(model) or {})
        profile.update(overrides.get(model) or {})
        source = "gpu_tuning_profiles[%r]%s" % (model, " + overrides" if overrides.get(model) else "")
        if not profile:
            return na("gpu", "gpu_tuning profile for %r (only persistence mode is set)" % model, {"model": model})
    power = profile.get("power_limit_w")
    if power is not None and power != "default":
        power = positive_number(power, "%s.power_limit_w (watts or default)" % source, 10000)
    clocks = profile.get("application_clocks")
    if isinstance(clocks, (list, tuple)):
        if len(clocks) != 2:
            raise must_be("%s.application_clocks" % source, clocks, "[memory_mhz, graphics_mhz]", ExpectationError)
        clocks = {"memory": count(clocks[0], "%s.application_clocks[0] (memory MHz)" % source, 1),
                  "graphics": count(clocks[1], "%s.application_clocks[1] (graphics MHz)" % source, 1)}
    elif clocks not in (None, "default"):
        raise must_be("%s.application_clocks" % source, clocks, "[memory_mhz, graphics_mhz] or default",
                      ExpectationError)
    parts = []
    if power is not None:
        parts.append("power limit %s" % ("%s W" % _fmt(power) if power != "default" else "= the board's default"))
    if clocks is not None:
        shown = ("= the defaults" if clocks == "default"
                 else "memory %d / graphics %d MHz" % (clocks["memory"], clocks["graphics"]))
        parts.append("application clocks %s" % shown)
    derivation = "%s from %s" % (", ".join(parts) or "nothing set", source)
    return {"kind": "gpu", "applicable": True, "value": power, "unit": "W", "compare": "==", "derivation": derivation,
            "power_limit_w": power, "application_clocks_mhz": clocks, "locked_clocks": profile.get("locked_clocks"),
            "inputs": {"model": model, "source": source}}


def expect(kind: str, hardware: Dict[str, Any], **options: Any) -> Dict[str, Any]:
    """Dispatch on kind: rdma, rdma_lat, nccl, lustre, filesystem, gpu."""
    if not isinstance(hardware, dict):
        raise must_be("hardware", hardware, "a dict of the inventory variables (gpufleet_fabric, gpufleet_hardware, "
                      "...)", ExpectationError)
    if not isinstance(kind, str):
        raise must_be("kind", kind, KINDS, ExpectationError)
    if kind == "rdma":
        return expect_rdma(hardware, **options)
    if kind == "rdma_lat":
        return expect_rdma(hardware, metric="lat", **options)
    if kind == "nccl":
        return expect_nccl(hardware, **options)
    if kind == "lustre":
        return expect_lustre(hardware, **options)
    if kind == "filesystem":
        return expect_filesystem(**options)
    if kind == "gpu":
        return expect_gpu(hardware, **options)
    raise must_be("kind", kind, KINDS, ExpectationError)
