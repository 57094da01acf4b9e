# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""common.tcp_listeners: /proc/net/tcp and tcp6 as the kernel prints them, loopback told from exposed."""
import ipaddress
import socket
import struct

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import tcp_listeners
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.tcp_listeners import (
    Listener, TcpListenerError, listeners_on, parse_proc_net_tcp,
)
from hypothesis import given
from hypothesis import strategies as st

_HEAD4 = ("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"
          "                                                     ")
_HEAD6 = ("  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
          "tm->when retrnsmt   uid  timeout inode")
_TAIL = " 00000000:00000000 00:00000000 00000000     0        0 1061 1 00000000de1293fe 100 0 0 10 0"

# A GPU node on a little-endian host (x86_64, aarch64): nv-hostengine on 127.0.0.1:5555, a resolver stub on
# 127.0.0.53:53, sshd on every address, dcgm-exporter on 10.0.1.11:9400 and an established ssh session (not a
# listener); tcp6: sshd on ::, MariaDB on ::1:3306 and on ::ffff:127.0.0.1:3307, something on fe80::1:5555.
PROC_NET_TCP = "\n".join([
    _HEAD4,
    "   0: 0100007F:15B3 00000000:0000 0A" + _TAIL,
    "   1: 3500007F:0035 00000000:0000 0A" + _TAIL,
    "   2: 00000000:0016 00000000:0000 0A" + _TAIL,
    "   3: 0B01000A:24B8 00000000:0000 0A" + _TAIL,
    "   4: 0B01000A:0016 0201000A:B974 01" + _TAIL,
]) + "\n"
PROC_NET_TCP6 = "\n".join([
    _HEAD6,
    "   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A" + _TAIL,
    "   1: 00000000000000000000000001000000:0CEA 00000000000000000000000000000000:0000 0A" + _TAIL,
    "   2: 0000000000000000FFFF00000100007F:0CEB 00000000000000000000000000000000:0000 0A" + _TAIL,
    "   3: 000080FE00000000000000000100000000:15B3 00000000000000000000000000000000:0000 0A" + _TAIL,
]) + "\n"


def test_the_listeners_of_a_recorded_ipv4_table():
    assert parse_proc_net_tcp(PROC_NET_TCP, 4, "little") == [
        Listener("127.0.0.1", 5555), Listener("127.0.0.53", 53), Listener("0.0.0.0", 22),
        Listener("10.0.1.11", 9400)]


def test_an_address_that_is_not_32_hex_digits_in_tcp6_is_refused():
    with pytest.raises(TcpListenerError, match="line 5 of /proc/net/tcp6 is not a socket line"):
        parse_proc_net_tcp(PROC_NET_TCP6, 6, "little")


def test_the_listeners_of_a_recorded_ipv6_table():
    table = PROC_NET_TCP6.replace("000080FE00000000000000000100000000", "000080FE000000000000000001000000")
    assert parse_proc_net_tcp(table, 6, "little") == [
        Listener("::", 22), Listener("::1", 3306), Listener("::ffff:127.0.0.1", 3307), Listener("fe80::1", 5555)]


def test_a_big_endian_host_prints_the_words_the_other_way_round():
    assert parse_proc_net_tcp(_HEAD4 + "\n   0: 7F000001:15B3 00000000:0000 0A" + _TAIL + "\n", 4, "big") == [
        Listener("127.0.0.1", 5555)]


@pytest.mark.parametrize("address, loopback", [
    ("127.0.0.1", True), ("127.0.0.53", True), ("::1", True), ("::ffff:127.0.0.1", True),
    ("0.0.0.0", False), ("::", False), ("10.0.1.11", False), ("fe80::1", False), ("::ffff:10.0.0.1", False)])
def test_loopback_is_127_8_and_1_only_never_the_wildcard(address, loopback):
    assert Listener(address, 1).loopback is loopback


def test_each_port_asked_gets_its_addresses_and_the_exposed_ones():
    table = PROC_NET_TCP6.replace("000080FE00000000000000000100000000", "000080FE000000000000000001000000")
    found = parse_proc_net_tcp(PROC_NET_TCP, 4, "little") + parse_proc_net_tcp(table, 6, "little")
    assert listeners_on(found, [5555, 3306, 3307, 22, 6819]) == {
        "5555": {"addresses": ["127.0.0.1", "fe80::1"], "exposed": ["fe80::1"]},
        "3306": {"addresses": ["::1"], "exposed": []},
        "3307": {"addresses": ["::ffff:127.0.0.1"], "exposed": []},
        "22": {"addresses": ["0.0.0.0", "::"], "exposed": ["0.0.0.0", "::"]},
        "6819": {"addresses": [], "exposed": []},
    }


@pytest.mark.parametrize("text, family, message", [
    ("", 4, "does not start with the kernel's header line"),
    ("Permission denied\n", 4, "does not start with the kernel's header line"),
    (_HEAD4 + "\n   0: 0100007F:15B3\n", 4, "line 2 of /proc/net/tcp is not a socket line"),
    (_HEAD4 + "\n   0: 0100007F:15B3 00000000:0000 0A" + _TAIL + "\ngarbage\n", 4, "line 3 of /proc/net/tcp is"),
    (PROC_NET_TCP6, 4, "line 2 of /proc/net/tcp is not a socket line"),
    (PROC_NET_TCP, 6, "line 2 of /proc/net/tcp6 is not a socket line"),
    (PROC_NET_TCP, 5, "family must be 4 or 6, got 5"),
])
def test_a_table_the_kernel_would_not_print_is_refused_not_read_as_empty(text, family, message):
    with pytest.raises(TcpListenerError, match=message):
        parse_proc_net_tcp(text, family, "little")


def test_a_header_alone_is_a_node_where_nothing_listens():
    assert parse_proc_net_tcp(_HEAD4 + "\n", 4) == []


def _kernel_hex(packed, byteorder):
    """How the kernel prints an address: each 32-bit word as %08X of the word read in the host's order."""
    fmt = "<I" if byteorder == "little" else ">I"
    return "".join("%08X" % struct.unpack(fmt, packed[i:i + 4])[0] for i in range(0, len(packed), 4))


@given(st.ip_addresses(), st.integers(min_value=1, max_value=65535), st.sampled_from(["little", "big"]))
def test_any_address_and_port_round_trip(address, port, byteorder):
    family = 4 if address.version == 4 else 6
    packed = socket.inet_pton(socket.AF_INET if family == 4 else socket.AF_INET6, str(address))
    head = _HEAD4 if family == 4 else _HEAD6
    remote = "0" * len(_kernel_hex(packed, byteorder))
    line = "   0: %s:%04X %s:0000 0A%s" % (_kernel_hex(packed, byteorder), port, remote, _TAIL)
    (listener,) = parse_proc_net_tcp(head + "\n" + line + "\n", family, byteorder)
    assert ipaddress.ip_address(listener.address) == address and listener.port == port


def test_the_host_byte_order_is_the_default():
    assert parse_proc_net_tcp.__defaults__ == (tcp_listeners.sys.byteorder,)
