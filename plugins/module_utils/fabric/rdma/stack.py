# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma role's decisions, as plain functions: which RDMA stack to install from where, which stack a node
already has, whether the memlock limits let RDMA pin memory, the IPoIB interfaces as systemd-networkd files,
and whether the HCA ports match what the site expects. Stdlib only; docs/rdma.md has the worked examples."""
from __future__ import annotations

import ipaddress
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    list_of, mapping_of, must_be, unknown_keys,
)

STACKS = ("inbox", "doca", "mlnx_ofed")
# NVIDIA's repositories name the CPU architecture their own way (hpc-container-maker's doca_ofed building block:
# x86_64, arm64-sbsa; MLNX_OFED's apt repositories: x86_64, arm64).
ARCH_LABELS = {
    "doca": {"x86_64": "x86_64", "aarch64": "arm64-sbsa"},
    "mlnx_ofed": {"x86_64": "x86_64", "aarch64": "arm64"},
}
# Every pattern here is applied with fullmatch ($ would let a trailing newline through).
VENDOR_PACKAGE_RE = {"doca": re.compile(r"doca-[a-z0-9][a-z0-9+.-]*"),
                     "mlnx_ofed": re.compile(r"mlnx-ofed-[a-z0-9][a-z0-9+.-]*")}
VERSION_RE = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]*")
OS_LABEL_RE = re.compile(r"[a-z]+[0-9][0-9.]*")
#: An http(s) URL: no blank, no control character, no quote or '#' (deb822 would read a comment).
URI_RE = re.compile(r"https?://[^\s/\x00-\x1f\x7f\"'#]+(/[^\s\x00-\x1f\x7f\"'#]*)?")
KEY_BLOCK = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
# Packages whose presence says "the distribution's stack was chosen here" (libibverbs1 alone is not: MPI and
# libfabric pull it in). The vendor stacks ship the same names with an "mlnx" version (2410mlnx54-1.2410068).
INBOX_MARKERS = ("rdma-core", "ibverbs-providers", "ibverbs-utils", "infiniband-diags", "rdmacm-utils")
IPOIB_MTU = {"datagram": (68, 4092, 2044), "connected": (68, 65520, 65520)}  # min, max, default
IFNAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,14}")
IPOIB_KEYS = ("name", "address", "mtu", "mode", "pkey")
EXPECT_PORT_KEYS = ("device", "port", "state", "rate_gbps", "link_layer")
#: Where a refusal of an unknown key points to.
DOCS = "see docs/rdma.md"
Limit = Union[int, str]  # KiB, or "unlimited"
DIGITS_RE = re.compile(r"[0-9]+")


class RdmaStackError(ValueError):
    """A setting of the rdma role that cannot work; the message names the variable, the value and the fix."""


# ---------------------------------------------------------------------------------------------------------------
# Stack and repository


def vendor_repository_uri(stack: str, base: str, version: str, os_label: str, architecture: str) -> str:
    """<base>/<version>/<os label>/<arch label>/, the layout of NVIDIA's DOCA and MLNX_OFED apt repositories."""
    var = "rdma_doca" if stack == "doca" else "rdma_mlnx_ofed"
    if not base:
        raise RdmaStackError(
            "%s_repository_base is empty: rdma_stack %s installs from NVIDIA's repository or a mirror you name. Set it "
            "to https://linux.mellanox.com/public/repo/%s (NVIDIA's) or your mirror's equivalent path, with "
            "rdma_repository_key (the key's URL or its ASCII-armored text)." % (var, stack, stack))
    if not isinstance(base, str) or not URI_RE.fullmatch(base):
        raise RdmaStackError("%s_repository_base %r is not an http(s) URL (https://mirror.example.org/doca); "
                             "give the repository's base, without version or OS." % (var, base))
    if not VERSION_RE.fullmatch(version or ""):
        raise RdmaStackError("%s_version %r must be a release as the repository names its folders (2.9.1, 3.2.1, "
                             "latest; MLNX_OFED 24.10-1.1.4.0): letters, digits, '.', '_' and '-'." % (var, version))
    if not isinstance(os_label, str) or not OS_LABEL_RE.fullmatch(os_label):
        raise RdmaStackError("the repository's OS folder %r must look like ubuntu24.04 or debian12 (rdma_vendor_os_label "
                             "overrides the per-OS default)." % (os_label,))
    labels = ARCH_LABELS[stack]
    if not isinstance(architecture, str) or architecture not in labels:
        raise RdmaStackError("architecture %r has no %s repository folder; supported: %s."
                             % (architecture, stack, ", ".join(sorted(labels))))
    return "%s/%s/%s/%s/" % (base.rstrip("/"), version, os_label, labels[architecture])


def key_kind(key: str) -> str:
    """'url' or 'text' for the repository's signing key, as deb822's Signed-By takes it."""
    if not isinstance(key, str):
        raise must_be("rdma_repository_key", key, "a string (a URL or the key's ASCII-armored text)", RdmaStackError)
    key = key.strip()
    if not key:
        raise RdmaStackError(
            "rdma_repository_key is empty: a vendor repository is only trusted with the key it is signed with. Give "
            "its URL (https://linux.mellanox.com/public/repo/doca/GPG-KEY-Mellanox.pub, or your mirror's copy) or the "
            "key's ASCII-armored text.")
    if URI_RE.fullmatch(key):
        return "url"
    if key.startswith(KEY_BLOCK) and "-----END PGP PUBLIC KEY BLOCK-----" in key:
        return "text"
    raise RdmaStackError("rdma_repository_key must be an http(s) URL or an ASCII-armored key starting with %r; it "
                         "starts with %r." % (KEY_BLOCK, key[:40]))


def _packages(names: Any, var: str) -> List[str]:
    if not isinstance(names, (list, tuple)) or not all(input_rules.is_valid("package", n) for n in names):
        raise must_be(var, names, "a list of Debian package names", RdmaStackError)
    return list(names)


def stack_plan(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """What to install for rdma_stack, and from which repository (None for inbox)."""
    stack = settings.get("stack")
    if stack not in STACKS:
        raise RdmaStackError("rdma_stack %r is not one of %s (inbox: the distribution's rdma-core; doca: NVIDIA "
                             "DOCA-OFED; mlnx_ofed: MLNX_OFED, end of life)." % (stack, ", ".join(STACKS)))
    extra = _packages(settings.get("extra_packages", []), "rdma_packages_extra")
    opensm = ["opensm"] if settings.get("opensm") else []
    repository = None
    if stack == "inbox":
        packages = _packages(settings.get("inbox_packages"), "rdma_inbox_packages")
    else:
        var = "rdma_doca" if stack == "doca" else "rdma_mlnx_ofed"
        profile = settings.get("%s_profile" % stack) or ""
        if not isinstance(profile, str) or not VENDOR_PACKAGE_RE[stack].fullmatch(profile):
            raise RdmaStackError(
                "%s_profile %r is not a %s metapackage: %s." % (var, profile, stack, (
                    "doca-ofed (MLNX_OFED-like), doca-roce, doca-networking, doca-all, doca-host-basic or "
                    "doca-ofed-userspace" if stack == "doca" else "mlnx-ofed-all, mlnx-ofed-basic, mlnx-ofed-hpc, ...")))
        packages = [profile]
        uri = vendor_repository_uri(stack, settings.get("%s_repository_base" % stack) or "",
                                    str(settings.get("%s_version" % stack) or ""),
                                    settings.get("os_label") or "", settings.get("architecture") or "")
        # The vendor repositories are flat (apt's "./" suite, no components), as NVIDIA's install guides add them.
        repository = {"name": "gpufleet-%s" % stack.replace("_", "-"), "uri": uri, "suites": ["./"],
                      "signed_by": key_kind(settings.get("repository_key") or "")}
    wanted = list(dict.fromkeys(packages + opensm + extra))
    return {"stack": stack, "packages": wanted, "repository": repository,
            "other_stacks": [s for s in STACKS if s != stack]}


def installed_stacks(installed: Mapping[str, str]) -> Dict[str, List[str]]:
    """Which stacks have packages on the node: {stack: ["name=version", ...]} from dpkg's installed packages."""
    found: Dict[str, List[str]] = {}
    doca = sorted(n for n in installed if n.startswith("doca-"))
    # DOCA-OFED brings mlnx-ofed-kernel-dkms too: mlnx-ofed-* is MLNX_OFED only where no doca-* is installed.
    mlnx = sorted(n for n in installed if n.startswith("mlnx-ofed-") or n == "ofed-scripts") if not doca else []
    vendor_libs = sorted(n for n in INBOX_MARKERS if n in installed and "mlnx" in installed[n])
    inbox = sorted(n for n in INBOX_MARKERS if n in installed and "mlnx" not in installed[n])
    for stack, names in (("doca", doca + (vendor_libs if doca else [])),
                         ("mlnx_ofed", mlnx + (vendor_libs if not doca else [])), ("inbox", inbox)):
        if names:
            found[stack] = ["%s=%s" % (n, installed[n]) for n in names]
    return found


def stack_conflicts(wanted: str, installed: Mapping[str, str]) -> Dict[str, Any]:
    """The stacks other than the wanted one that are installed, with their packages."""
    if wanted not in STACKS:
        raise RdmaStackError("rdma_stack %r is not one of %s." % (wanted, ", ".join(STACKS)))
    present = installed_stacks(installed)
    others = {s: p for s, p in present.items() if s != wanted}
    return {"installed": present, "conflicting": others,
            "packages": [p for s in sorted(others) for p in others[s]]}


# ---------------------------------------------------------------------------------------------------------------
# memlock


def _limit(text: str) -> Optional[Limit]:
    text = text.strip().lower()
    if text in ("unlimited", "infinity", "-1"):
        return "unlimited"
    return int(text) if text.isdigit() else None


def _systemd_kib(value: Any) -> Limit:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value // 1024
    if value is not None and not isinstance(value, str):
        raise must_be("systemctl show DefaultLimitMEMLOCK", value, "bytes or infinity", RdmaStackError)
    value = (value or "").strip()
    if value == "infinity":
        return "unlimited"
    if not value.isdigit():
        raise RdmaStackError("systemctl show DefaultLimitMEMLOCK gave %r, not bytes or infinity." % value)
    return int(value) // 1024  # systemd prints bytes; pam_limits and common_memlock_kib count KiB


def _at_least(value: Limit, minimum: Limit) -> bool:
    if value == "unlimited":
        return True
    return minimum != "unlimited" and int(value) >= int(minimum)


def _minimum(value: Any, variable: str) -> Limit:
    """A limit in KiB (a whole number, also as text: Jinja may render one) or "unlimited"; refused naming variable."""
    if isinstance(value, str) and value.strip().lower() in ("unlimited", "infinity"):
        return "unlimited"
    if isinstance(value, str) and DIGITS_RE.fullmatch(value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise must_be(variable, value, "unlimited or a positive number of KiB", RdmaStackError)
    return value


#: How a limit the common role has not written yet (check mode) is named in a check's source.
PENDING_SOURCE = "as the common role would write it"


def _memlock_checks(limits_files: Sequence[Mapping[str, Any]], systemd: Mapping[str, Any], minimum: Limit,
                    services_source: str) -> Dict[str, Any]:
    services = {"soft": _systemd_kib(systemd.get("DefaultLimitMEMLOCKSoft") or systemd.get("DefaultLimitMEMLOCK", "")),
                "hard": _systemd_kib(systemd.get("DefaultLimitMEMLOCK", ""))}
    origin = "%s (no pam_limits line)" % services_source
    pam: Dict[Tuple[str, str], Tuple[Limit, str]] = {}
    ordered = sorted(limits_files, key=lambda f: (not f["path"].endswith("/limits.conf"), f["path"]))
    for entry in ordered:
        for number, raw in enumerate(entry.get("content", "").splitlines(), start=1):
            fields = raw.split("#", 1)[0].split()
            if len(fields) != 4 or fields[2] != "memlock" or fields[0] not in ("*", "root"):
                continue
            value = _limit(fields[3])
            if value is None or fields[1] not in ("soft", "hard", "-"):
                continue  # pam_limits ignores such a line too
            kinds = ("soft", "hard") if fields[1] == "-" else (fields[1],)
            where = "%s, %s" % (entry["path"], PENDING_SOURCE) if entry.get("pending") \
                else "%s:%d" % (entry["path"], number)
            for kind in kinds:
                pam[(fields[0], kind)] = (value, where)
    checks = []
    for who, label in (("*", "logins"), ("root", "root logins")):
        for kind in ("soft", "hard"):
            value, source = pam.get((who, kind), (services[kind], origin))
            checks.append({"who": label, "kind": kind, "value_kib": value, "source": source,
                           "ok": _at_least(value, minimum)})
    for kind in ("soft", "hard"):
        checks.append({"who": "services", "kind": kind, "value_kib": services[kind],
                       "source": services_source, "ok": _at_least(services[kind], minimum)})
    problems = ["%s %s memlock is %s KiB (%s), below rdma_memlock_min_kib %s"
                % (c["who"], c["kind"], c["value_kib"], c["source"], minimum) for c in checks if not c["ok"]]
    return {"ok": not problems, "minimum_kib": minimum, "checks": checks, "problems": problems}


def memlock_check(limits_files: Sequence[Mapping[str, str]], systemd: Mapping[str, str],
                  minimum: Limit, pending: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The memlock limits of logins (pam_limits) and services (systemd) against a minimum in KiB.

    limits_files: [{path, content}], /etc/security/limits.conf and /etc/security/limits.d/*.conf. pam_limits reads
    limits.conf first, then limits.d in name order, and a later line for the same domain replaces an earlier one.
    '*' covers every user but root, which only 'root' lines cover. Without a line, a login keeps what sshd got
    from systemd (DefaultLimitMEMLOCK).

    pending: {path, memlock_kib}, the limits the common role writes in this run and has not written yet (check
    mode): its pam_limits file at path replaced by its soft and hard lines for '*' and root, and systemd's
    DefaultLimitMEMLOCK set to memlock_kib. The checks are those of the node after that write; result["pending"]
    keeps what the node has now ({memlock_kib, path, now_ok, now_problems}). None: the node as it is.
    """
    minimum = _minimum(minimum, "rdma_memlock_min_kib")
    for index, entry in enumerate(limits_files):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("path"), str) \
                or not isinstance(entry.get("content", ""), str):
            raise must_be("limits file [%d]" % index, entry, "{path: text, content: text}", RdmaStackError)
    files = [{"path": f["path"], "content": f.get("content", "")} for f in limits_files]
    now = _memlock_checks(files, systemd, minimum, "systemd DefaultLimitMEMLOCK")
    if pending is None:
        return dict(now, pending=None)
    mapping_of("the pending memlock write", pending, RdmaStackError, "{path, memlock_kib}")
    path = pending.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        raise must_be("the pending memlock write's path", path, "an absolute path", RdmaStackError)
    written = _minimum(pending.get("memlock_kib"), "common_memlock_kib")
    lines = "".join("%s %s memlock %s\n" % (who, kind, written) for who in ("*", "root") for kind in ("soft", "hard"))
    after_files = [f for f in files if f["path"] != path] + [{"path": path, "content": lines, "pending": True}]
    value = "infinity" if written == "unlimited" else str(int(written) * 1024)  # systemd counts bytes
    after = _memlock_checks(after_files, {"DefaultLimitMEMLOCK": value, "DefaultLimitMEMLOCKSoft": value}, minimum,
                            "systemd DefaultLimitMEMLOCK, %s" % PENDING_SOURCE)
    return dict(after, pending={"memlock_kib": written, "path": path, "now_ok": now["ok"],
                                "now_problems": now["problems"]})


# ---------------------------------------------------------------------------------------------------------------
# IPoIB


def _pkey(value: Any, where: str) -> Optional[int]:
    if value is None or value == "":
        return None
    if isinstance(value, str) and input_rules.CONTROL_RE.search(value):
        raise RdmaStackError("%s.pkey %r must not hold control characters such as a newline; give 0x0001-0x7ffe."
                             % (where, value))
    try:
        if isinstance(value, float) or not isinstance(value, (int, str)):
            raise ValueError
        number = int(value, 0) if isinstance(value, str) else int(value)
    except ValueError:
        number = -1
    if isinstance(value, bool) or not 0 < number <= 0xFFFF or number & 0x7FFF in (0, 0x7FFF):
        raise RdmaStackError("%s.pkey %r must be a partition key 0x0001-0x7ffe (0x8001-0xfffe with the full-member "
                             "bit); 0x7fff/0xffff is the default partition, which the parent interface already is."
                             % (where, value))
    return number | 0x8000  # full membership, as the kernel names the child (ib0.8001)


def ipoib_plan(interfaces: Any, prefix: str = "60-gpufleet-rdma") -> Dict[str, Any]:
    """Checked IPoIB interfaces and the systemd-networkd files for them: [{name, sections: [[section, [[k, v]]]]}]."""
    list_of("rdma_ipoib_interfaces", interfaces, RdmaStackError, "a list of {name, address, mtu, mode, pkey}")
    normalised: List[Dict[str, Any]] = []
    seen_links, seen_addresses = set(), set()
    for index, item in enumerate(interfaces):
        where = "rdma_ipoib_interfaces[%d]" % index
        mapping_of(where, item, RdmaStackError, "a dict {name, address, mtu, mode, pkey}")
        unknown_keys(where, item, IPOIB_KEYS, RdmaStackError, hint=DOCS)
        name = item.get("name")
        if not isinstance(name, str) or not IFNAME_RE.fullmatch(name):
            raise RdmaStackError("%s.name %r must be an interface name such as ib0 (a letter, then up to 14 letters, "
                                 "digits, '_' or '-')." % (where, name))
        mode = item.get("mode", "datagram")
        if not isinstance(mode, str) or mode not in IPOIB_MTU:
            raise RdmaStackError("%s.mode %r must be datagram or connected." % (where, mode))
        low, high, default = IPOIB_MTU[mode]
        mtu = item.get("mtu", default)
        if isinstance(mtu, bool) or not isinstance(mtu, int) or not low <= mtu <= high:
            raise RdmaStackError(
                "%s.mtu %r is outside %d-%d for %s mode (datagram: the IB MTU less the 4-byte IPoIB header, 2044 on a "
                "2048 fabric MTU, 4092 on 4096; connected: up to 65520)." % (where, mtu, low, high, mode))
        address = item.get("address")
        try:
            if not isinstance(address, str) or "/" not in address:
                raise ValueError
            iface = ipaddress.ip_interface(address)
        except ValueError:
            raise RdmaStackError("%s.address %r must be an address with its prefix length (CIDR), such as "
                                 "10.10.0.11/16." % (where, address)) from None
        net = iface.network
        if iface.version == 4 and net.prefixlen <= 30 and iface.ip in (net.network_address, net.broadcast_address):
            raise RdmaStackError("%s.address %s is the %s address of %s; give a host address."
                                 % (where, address, "network" if iface.ip == net.network_address else "broadcast", net))
        if iface.version == 6 and mtu < 1280:
            raise RdmaStackError("%s.mtu %d is below 1280, the least IPv6 (address %s) allows." % (where, mtu, address))
        pkey = _pkey(item.get("pkey"), where)
        link = name if pkey is None else "%s.%04x" % (name, pkey)
        if len(link) > 15:
            raise RdmaStackError("%s: the partition interface name %s is longer than 15 characters; use a shorter "
                                 "parent name." % (where, link))
        if link in seen_links:
            raise RdmaStackError("%s: interface %s is listed twice." % (where, link))
        if str(iface.ip) in seen_addresses:
            raise RdmaStackError("%s: address %s is given to two interfaces." % (where, iface.ip))
        seen_links.add(link)
        seen_addresses.add(str(iface.ip))
        normalised.append({"name": name, "link": link, "address": str(iface), "mtu": mtu, "mode": mode,
                           "pkey": None if pkey is None else "0x%04x" % pkey})
    files: List[Dict[str, Any]] = []
    children: Dict[str, List[str]] = {}
    for entry in normalised:
        if entry["pkey"] is not None:
            children.setdefault(entry["name"], []).append(entry["link"])
    for entry in normalised:
        network: List[List[str]] = [["Address", entry["address"]]]
        network += [["IPoIB", child] for child in children.get(entry["link"], [])]
        files.append({"name": "%s-%s.network" % (prefix, entry["link"]), "sections": [
            ["Match", [["Name", entry["link"]]]], ["Link", [["MTUBytes", str(entry["mtu"])]]],
            ["Network", network], ["IPoIB", [["Mode", entry["mode"]]]]]})
        if entry["pkey"] is not None:
            files.append({"name": "%s-%s.netdev" % (prefix, entry["link"]), "sections": [
                ["NetDev", [["Name", entry["link"]], ["Kind", "ipoib"], ["MTUBytes", str(entry["mtu"])]]],
                ["IPoIB", [["PartitionKey", entry["pkey"]], ["Mode", entry["mode"]]]]]})
    # A parent with partitions but no address of its own still needs a .network that creates them.
    for parent in sorted(set(children) - seen_links):
        files.append({"name": "%s-%s.network" % (prefix, parent), "sections": [
            ["Match", [["Name", parent]]],
            ["Network", [["LinkLocalAddressing", "no"]] + [["IPoIB", c] for c in children[parent]]]]})
    return {"interfaces": normalised, "files": sorted(files, key=lambda f: f["name"])}


# ---------------------------------------------------------------------------------------------------------------
# Expected ports


def port_check(ports: Sequence[Mapping[str, Any]], expected: Any, expect_devices: bool) -> Dict[str, Any]:
    """rdma_info's ports against rdma_expect_ports; every mismatch named."""
    list_of("rdma_expect_ports", expected, RdmaStackError, "a list of {device, port, state, rate_gbps, link_layer}")
    found = {}
    for index, p in enumerate(ports):
        number = p.get("port") or 0
        if isinstance(number, bool) or not isinstance(number, int):
            raise must_be("rdma_info ports[%d].port" % index, number, "a whole number", RdmaStackError)
        if p.get("device") is not None and not isinstance(p["device"], str):
            raise must_be("rdma_info ports[%d].device" % index, p["device"], "a device name such as mlx5_0",
                          RdmaStackError)
        found[(p.get("device"), number)] = p
    mismatches: List[str] = []
    seen = set()
    for index, item in enumerate(expected):
        where = "rdma_expect_ports[%d]" % index
        if not isinstance(item, Mapping) or not isinstance(item.get("device"), str):
            raise must_be(where, item, "a dict with at least device (mlx5_0)", RdmaStackError)
        unknown_keys(where, item, EXPECT_PORT_KEYS, RdmaStackError, hint=DOCS)
        input_rules.check("word", where + ".device", item["device"], RdmaStackError)
        # An HCA port number is one byte (IB ports 1..254); 1 is the first port.
        input_rules.integer(where + ".port", item.get("port", 1), RdmaStackError, minimum=1, maximum=254)
        for field in ("state", "link_layer"):
            if item.get(field) is not None:
                input_rules.check("word", "%s.%s" % (where, field), item[field], RdmaStackError)
        if item.get("rate_gbps") is not None:
            input_rules.number(where + ".rate_gbps", item["rate_gbps"], RdmaStackError, minimum=0, maximum=100000,
                               exclusive_minimum=True)
        key = (item["device"], item.get("port", 1))
        if key in seen:
            raise RdmaStackError("%s: %s/%d is expected twice." % (where, key[0], key[1]))
        seen.add(key)
        port = found.get(key)
        label = "%s/%d" % key
        if port is None:
            mismatches.append("%s: not found (ports present: %s)" % (
                label, ", ".join("%s/%d" % k for k in sorted(found)) or "none"))
            continue
        for field, want in (("state", item.get("state", "ACTIVE")), ("rate_gbps", item.get("rate_gbps")),
                            ("link_layer", item.get("link_layer"))):
            have = port.get(field)
            if field == "rate_gbps" and isinstance(have, (int, float)) and not isinstance(have, bool):
                differ = float(have) != float(want) if want is not None else False
            else:
                differ = want is not None and have != want
            if differ:
                mismatches.append("%s: %s is %s, expected %s" % (label, field, have, want))
    if not found and expect_devices:
        mismatches.insert(0, "no RDMA devices found, and rdma_expect_devices is true (set it false, with "
                             "rdma_expect_devices_reason, only on nodes without an HCA)")
    if mismatches:
        msg = "%d mismatch(es): %s" % (len(mismatches), "; ".join(mismatches))
    elif not found and not expected:
        msg = "no RDMA devices found; rdma_expect_ports is empty"
    else:
        msg = "%d port(s) found; the %d expected port(s) match" % (len(found), len(expected))
    return {"ok": not mismatches, "mismatches": mismatches, "checked": len(expected), "found": len(found), "msg": msg}
