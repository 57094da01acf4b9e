# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NVLink health: ``nvidia-smi nvlink -s`` (link speeds) and ``nvidia-smi nvlink -e`` (error counters), and a judge.

Standard library only: the health script imports this on the nodes, without Ansible.

What nvidia-smi prints (recordings in tests/fixtures/health/nvlink/: V100 SXM2, H100 PCIe on 555.42.02, H100 SXM5,
RTX A6000):

* ``-s``: per GPU a header ``GPU 0: NVIDIA H100 PCIe (UUID: GPU-...)``, then one line per link, indented by a tab and
  a space or by 9 spaces: ``Link 0: 26.562 GB/s`` or ``Link 4: <inactive>``. A GPU whose links are all down prints,
  instead of link lines, ``NVML: Unable to retrieve NVLink information as all links are inActive``.
* ``-e``: the same header, then per link ``Link 0: Replay Errors: 0``, ``Link 0: Recovery Errors: 0``,
  ``Link 0: CRC Errors: 0`` with a blank line between links. Counter names are kept as printed; the judge sorts
  them by what they name (replay, recovery, CRC), so other names a driver prints are read, not refused.

Neither listing carries the GPU's PCI bus id: ``judge`` takes it from the caller (``bus_ids``, e.g. from
``nvidia-smi --query-gpu=index,pci.bus_id``) to name the GPU the way a drain reason must.

A line the parser does not know raises ``NvlinkError``: an output it cannot read is never taken as healthy.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = ["NvlinkError", "Link", "GpuLinks", "LinkCounters", "GpuCounters", "Finding", "EXPECTED_LINKS",
           "CRC_ERRORS_PER_SECOND_LIMIT", "parse_status", "parse_errors", "expected_links", "judge"]


class NvlinkError(Exception):
    """nvidia-smi nvlink output that cannot be read, or an expectation that cannot be met (no link count known)."""


# Links per GPU, from NVIDIA's datasheets (bandwidth per GPU / bandwidth per link of that NVLink generation):
# - H100 SXM5 and H200 SXM: 18 NVLink 4 links, 900 GB/s (NVIDIA H100 Tensor Core GPU datasheet; H200 datasheet;
#   NVIDIA H100 Tensor Core GPU Architecture whitepaper: "18 NVLink links per GPU").
# - H100 PCIe: 600 GB/s over NVLink bridges = 12 links (H100 PCIe datasheet); the recording
#   nvlink-s.2xH100-pcie-bridge-12of18 shows 12 of 18 links active on each GPU and `topo -m` NV12.
# - B200: 18 NVLink 5 links, 1.8 TB/s (NVIDIA Blackwell datasheet / DGX B200 datasheet).
# - A100 SXM4: 12 NVLink 3 links, 600 GB/s (NVIDIA A100 datasheet; Ampere architecture whitepaper).
# - V100 SXM2: 6 NVLink 2 links, 300 GB/s (NVIDIA V100 datasheet).
# - RTX A6000: 4 links over a 2-way NVLink bridge, 112.5 GB/s (NVIDIA RTX A6000 datasheet); the recording
#   nvlink-s.3xRTXA6000 shows 4 links at 14.062 GB/s.
# Keys are matched (re.fullmatch) against the product name nvidia-smi prints in the GPU header.
EXPECTED_LINKS: Tuple[Tuple[str, int], ...] = (
    (r"NVIDIA H100 80GB HBM3", 18),
    (r"NVIDIA H100 PCIe", 12),
    (r"NVIDIA H200(?: [0-9]+GB HBM3e)?", 18),
    (r"NVIDIA B200", 18),
    (r"NVIDIA A100-SXM4-(?:40|80)GB|A100-SXM4-(?:40|80)GB", 12),
    (r"Tesla V100-SXM2-(?:16|32)GB", 6),
    (r"NVIDIA RTX A6000", 4),
)

# NVIDIA DCGM's health watch fails a GPU whose NVLink CRC error counters grow at 100 or more per second and warns
# below that: DCGM_LIMIT_MAX_NVLINK_CRC_ERROR = 100.0 in NVIDIA/DCGM DcgmGpuHardwareLimits.h ("RM has informed us
# that CRC errors only matter at rates of 100+ per second"), used by DcgmHealthWatch's NVLink check
# (DCGM_FR_NVLINK_CRC_ERROR_THRESHOLD fail, DCGM_FR_NVLINK_ERROR_THRESHOLD warn). We use the same limit.
CRC_ERRORS_PER_SECOND_LIMIT = 100.0

_HEADER = re.compile(r"GPU ([0-9]{1,4}): (.*?)(?: \(UUID: (GPU-[0-9A-Za-z-]+)\))?")
_STATUS_LINE = re.compile(r"Link ([0-9]{1,4}): (?:([0-9]{1,6}(?:\.[0-9]{1,6})?) GB/s|(<inactive>))")
_COUNTER_LINE = re.compile(r"Link ([0-9]{1,4}): ([A-Za-z][A-Za-z0-9 ./-]*?): (\S.*)")
_ALL_INACTIVE = re.compile(r"NVML: Unable to retrieve NVLink information as all links are inActive")
_INT = re.compile(r"[0-9]{1,20}")


@dataclass(frozen=True)
class Link:
    number: int
    active: bool
    speed_gbs: Optional[float]  # GB/s as printed; None when <inactive>


@dataclass
class GpuLinks:
    index: int
    name: str
    uuid: Optional[str]
    links: List[Link] = field(default_factory=list)
    all_inactive: bool = False  # NVML said every link is inactive (no link lines follow)


@dataclass
class LinkCounters:
    number: int
    counters: Dict[str, int] = field(default_factory=dict)  # integer counters by the name printed
    other: Dict[str, str] = field(default_factory=dict)     # values that are not counts (a rate, N/A), kept as text


@dataclass
class GpuCounters:
    index: int
    name: str
    uuid: Optional[str]
    links: Dict[int, LinkCounters] = field(default_factory=dict)
    all_inactive: bool = False


@dataclass(frozen=True)
class Finding:
    """One thing wrong with one GPU's NVLinks. severity: "fail" (drain) or "warn" (log, keep the node)."""
    severity: str
    code: str
    gpu: int
    bus_id: Optional[str]
    links: Tuple[int, ...]
    message: str
    action: str


def _lines(text: str, what: str) -> List[Tuple[int, str]]:
    if not isinstance(text, str):
        raise NvlinkError("%s: expected the text nvidia-smi printed, got %s" % (what, type(text).__name__))
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _unknown(what: str, number: int, line: str, expected: str) -> NvlinkError:
    return NvlinkError("%s line %d: %r is not %s; refusing to judge an output this parser does not know"
                       % (what, number, line[:120], expected))


@dataclass
class _Block:
    index: int
    name: str
    uuid: Optional[str]
    lines: List[Tuple[int, str]] = field(default_factory=list)
    all_inactive: bool = False


def _blocks(text: str, what: str) -> List[_Block]:
    """The GPU blocks of either listing: a header, then its non-blank lines (NVML's all-inactive line taken out)."""
    blocks: List[_Block] = []
    for number, line in _lines(text, what):
        header = _HEADER.fullmatch(line)
        if header:
            index = int(header.group(1))
            if any(block.index == index for block in blocks):
                raise NvlinkError("%s line %d: GPU %d is listed twice" % (what, number, index))
            blocks.append(_Block(index, header.group(2).strip(), header.group(3)))
        elif not blocks:
            raise _unknown(what, number, line, "a 'GPU <n>: <name> (UUID: ...)' header")
        elif _ALL_INACTIVE.fullmatch(line):
            blocks[-1].all_inactive = True
        else:
            blocks[-1].lines.append((number, line))
        if blocks and blocks[-1].all_inactive and blocks[-1].lines:
            raise NvlinkError("%s line %d: GPU %d has link lines and NVML's 'all links are inActive'"
                              % (what, number, blocks[-1].index))
    if not blocks:
        raise NvlinkError("%s printed no GPU: the output is empty or has no 'GPU <n>: ...' header" % what)
    return blocks


def parse_status(text: str) -> List[GpuLinks]:
    """``nvidia-smi nvlink -s`` (or ``--status``, with or without ``-i``) -> one GpuLinks per GPU, in printed order."""
    what = "nvidia-smi nvlink -s"
    gpus: List[GpuLinks] = []
    for block in _blocks(text, what):
        gpu = GpuLinks(block.index, block.name, block.uuid, all_inactive=block.all_inactive)
        for number, line in block.lines:
            status = _STATUS_LINE.fullmatch(line)
            if not status:
                raise _unknown(what, number, line, "'Link <n>: <GB/s> GB/s' or 'Link <n>: <inactive>'")
            link = int(status.group(1))
            if any(known.number == link for known in gpu.links):
                raise NvlinkError("%s line %d: GPU %d link %d is listed twice" % (what, number, gpu.index, link))
            speed = float(status.group(2)) if status.group(2) else None
            gpu.links.append(Link(link, bool(speed), speed))  # "0 GB/s" is a link that carries nothing: down
        gpus.append(gpu)
    return gpus


def parse_errors(text: str) -> List[GpuCounters]:
    """``nvidia-smi nvlink -e`` (``--errorcounters``) -> one GpuCounters per GPU, in printed order."""
    what = "nvidia-smi nvlink -e"
    gpus: List[GpuCounters] = []
    for block in _blocks(text, what):
        gpu = GpuCounters(block.index, block.name, block.uuid, all_inactive=block.all_inactive)
        for number, line in block.lines:
            counter = _COUNTER_LINE.fullmatch(line)
            if not counter:
                raise _unknown(what, number, line, "'Link <n>: <counter name>: <value>'")
            link, name, value = int(counter.group(1)), counter.group(2).strip(), counter.group(3).strip()
            counters = gpu.links.setdefault(link, LinkCounters(link))
            if name in counters.counters or name in counters.other:
                raise NvlinkError("%s line %d: GPU %d link %d prints %r twice" % (what, number, gpu.index, link, name))
            if _INT.fullmatch(value):
                counters.counters[name] = int(value)
            else:
                counters.other[name] = value
        gpus.append(gpu)
    return gpus


def expected_links(name: str) -> int:
    """The datasheet link count for a GPU product name as nvidia-smi prints it (EXPECTED_LINKS)."""
    for pattern, count in EXPECTED_LINKS:
        if re.fullmatch(pattern, name.strip()):
            return count
    raise NvlinkError("no NVLink link count is known for %r; give expected_links_per_gpu (the datasheet's links per "
                      "GPU) for this GPU type" % (name,))


def _kind(counter: str) -> Optional[str]:
    key = counter.lower()
    for kind in ("crc", "replay", "recovery"):
        if kind in key:
            return kind
    return "other" if key.endswith("errors") else None


def _gpu_label(index: int, bus_id: Optional[str]) -> str:
    return "GPU %d (%s)" % (index, bus_id) if bus_id else "GPU %d" % index


def _links_text(links: Sequence[int]) -> str:
    return ("link " if len(links) == 1 else "links ") + ", ".join(str(n) for n in links)


def _status_findings(gpus: List[GpuLinks], expected: Optional[int], bus_ids: Mapping[int, str]) -> List[Finding]:
    findings: List[Finding] = []
    # "The others": the most common speed among the active links of GPUs of the same product on this node.
    usual: Dict[str, float] = {}
    for name in {gpu.name for gpu in gpus}:
        speeds = Counter(link.speed_gbs for gpu in gpus if gpu.name == name for link in gpu.links if link.active)
        if speeds:
            usual[name] = max(speeds.items(), key=lambda item: (item[1], item[0]))[0]
    for gpu in gpus:
        bus = bus_ids.get(gpu.index)
        label = _gpu_label(gpu.index, bus)
        want = expected if expected is not None else expected_links(gpu.name)
        active = sorted(link.number for link in gpu.links if link.active)
        inactive = sorted(link.number for link in gpu.links if not link.active)
        if gpu.all_inactive:
            findings.append(Finding(
                "fail", "nvlink_all_inactive", gpu.index, bus, (),
                "%s %s: every NVLink is inactive (NVML: all links are inActive); %d expected up"
                % (label, gpu.name, want),
                "drain; check nvidia-fabricmanager (NVSwitch systems), then reset the GPU or reboot; a link that "
                "stays down after a reboot needs the vendor (RMA)"))
        elif len(active) < want:
            shown = inactive if inactive else active
            findings.append(Finding(
                "fail", "nvlink_down", gpu.index, bus, tuple(inactive),
                "%s %s: %d of %d NVLinks up%s" % (
                    label, gpu.name, len(active), want,
                    "; %s inactive" % _links_text(shown) if inactive else " (fewer links listed than expected)"),
                "drain; reset the GPU or reboot; a link that stays down after a reboot needs the vendor (RMA)"))
        base = usual.get(gpu.name)
        slow = sorted(link.number for link in gpu.links
                      if link.active and base is not None and link.speed_gbs is not None and link.speed_gbs < base)
        if slow:
            speeds = ", ".join("%g" % link.speed_gbs for link in gpu.links if link.number in slow and link.speed_gbs)
            findings.append(Finding(
                "fail", "nvlink_slow", gpu.index, bus, tuple(slow),
                "%s %s: %s at %s GB/s, below the %g GB/s of the node's other %s links"
                % (label, gpu.name, _links_text(slow), speeds, base, gpu.name),
                "drain; reset the GPU or reboot to retrain the link; if it trains slow again, the vendor (RMA)"))
    return findings


def _key(gpu: GpuCounters) -> Tuple[str, object]:
    return ("uuid", gpu.uuid) if gpu.uuid else ("index", gpu.index)


def _growth(now: int, before: int) -> int:
    """Counters only grow until reset (nvidia-smi nvlink -re, driver reload, reboot): a smaller value means a reset,
    and then everything it counts is new."""
    return now - before if now >= before else now


def _error_findings(gpus: List[GpuCounters], previous: Optional[List[GpuCounters]], interval_s: Optional[float],
                    bus_ids: Mapping[int, str], crc_limit: float) -> List[Finding]:
    if previous is None:
        return []  # first pass: the counts are the baseline (they count since the driver loaded, not since a job)
    before = {_key(gpu): gpu for gpu in previous}
    findings: List[Finding] = []
    for gpu in gpus:
        old = before.get(_key(gpu))
        if old is None:
            continue  # a GPU the last pass did not see (replaced, renumbered): this pass is its baseline
        bus = bus_ids.get(gpu.index)
        label = _gpu_label(gpu.index, bus)
        grown: Dict[str, Dict[int, int]] = {}
        for number, link in sorted(gpu.links.items()):
            old_link = old.links.get(number)
            if old_link is None:
                continue
            for name, value in link.counters.items():
                kind = _kind(name)
                if kind is None or name not in old_link.counters:
                    continue
                delta = _growth(value, old_link.counters[name])
                if delta > 0:
                    grown.setdefault(kind, {})
                    grown[kind][number] = grown[kind].get(number, 0) + delta
        for kind in ("crc", "recovery", "replay", "other"):
            per_link = grown.get(kind)
            if not per_link:
                continue
            links = tuple(sorted(per_link))
            detail = ", ".join("link %d +%d" % (n, per_link[n]) for n in links)
            if kind == "crc":
                # Per second over the interval between the passes; without it, as if one second had passed
                # (a count of 100 or more since the last pass fails), which errs towards draining.
                seconds = interval_s if interval_s else 1.0
                worst = max(per_link.values()) / seconds
                if worst >= crc_limit:
                    findings.append(Finding(
                        "fail", "nvlink_crc_errors", gpu.index, bus, links,
                        "%s %s: NVLink CRC errors grew (%s) at up to %.1f/s%s, at or above the %g/s limit of DCGM's "
                        "health check" % (label, gpu.name, detail, worst,
                                          "" if interval_s else " (interval unknown, taken as 1 s)", crc_limit),
                        "drain; reseat or replace what carries the link (the vendor, RMA) if the errors continue "
                        "after a reboot"))
                else:
                    findings.append(Finding(
                        "warn", "nvlink_crc_errors", gpu.index, bus, links,
                        "%s %s: NVLink CRC errors grew (%s), %.1f/s, below the %g/s limit"
                        % (label, gpu.name, detail, worst, crc_limit),
                        "keep in service; watch the counters"))
            else:
                words = {"replay": "replay", "recovery": "recovery", "other": "other error"}[kind]
                findings.append(Finding(
                    "warn", "nvlink_%s_errors" % kind, gpu.index, bus, links,
                    "%s %s: NVLink %s counters grew since the last pass (%s)" % (label, gpu.name, words, detail),
                    "keep in service; watch the counters, and drain if they keep growing"))
    return findings


def judge(status: List[GpuLinks], errors: Optional[List[GpuCounters]], expected_links_per_gpu: Optional[int],
          previous_errors: Optional[List[GpuCounters]] = None, interval_s: Optional[float] = None,
          bus_ids: Optional[Mapping[int, str]] = None,
          crc_errors_per_second_limit: float = CRC_ERRORS_PER_SECOND_LIMIT) -> List[Finding]:
    """Findings for parsed ``-s`` and ``-e`` outputs (an empty list: the NVLinks are healthy).

    expected_links_per_gpu: links each GPU must have up; None takes it from EXPECTED_LINKS by product name.
    previous_errors: the ``-e`` reading of the last pass, to judge growth; None judges no counter (first pass).
    interval_s: seconds between that reading and this one, for the CRC rate.
    bus_ids: GPU index -> PCI bus id, to name the GPU in messages (nvidia-smi nvlink prints none).
    """
    if expected_links_per_gpu is not None and (isinstance(expected_links_per_gpu, bool)
                                               or not isinstance(expected_links_per_gpu, int)
                                               or expected_links_per_gpu < 1):
        raise NvlinkError("expected_links_per_gpu: %r is not a link count; expected a whole number of 1 or more "
                          "(18 for H100 SXM5, 12 for A100 SXM4)" % (expected_links_per_gpu,))
    if not isinstance(crc_errors_per_second_limit, (int, float)) or crc_errors_per_second_limit <= 0:
        raise NvlinkError("crc_errors_per_second_limit: %r is not a positive rate" % (crc_errors_per_second_limit,))
    if interval_s is not None and (isinstance(interval_s, bool) or not isinstance(interval_s, (int, float))
                                   or not interval_s > 0 or interval_s == float("inf")):
        raise NvlinkError("interval_s: %r is not a number of seconds above 0 (the time between the two -e readings)"
                          % (interval_s,))
    if not status:
        raise NvlinkError("no GPU in the nvlink -s reading: nothing to judge")
    names = bus_ids or {}
    findings = _status_findings(status, expected_links_per_gpu, names)
    if errors is not None:
        findings.extend(_error_findings(errors, previous_errors, interval_s, names, float(crc_errors_per_second_limit)))
    return findings
