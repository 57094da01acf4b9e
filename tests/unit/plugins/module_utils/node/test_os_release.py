# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node.os_release: the OS facts as setup (gather_subset min) names and spells them, from the files it reads."""
import os

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.os_release import (
    FACT_NAMES, OsReleaseError, count_vcpus, memtotal_mb, os_facts, parse_os_release,
)
from hypothesis import example, given
from hypothesis import strategies as st

from reference import FIXTURES


def recorded(name):
    with open(os.path.join(FIXTURES, "node", name), encoding="utf-8") as handle:
        return handle.read()


DEBIAN = recorded("os-release.debian12.txt")
# Ubuntu 24.04's /etc/os-release, its lines as the release ships them (not recorded here: a spliced variant).
UBUNTU = ('PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nVERSION="24.04.1 LTS (Noble Numbat)"\n'
          'VERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"\n'
          'UBUNTU_CODENAME=noble\nLOGO=ubuntu-logo\n')


def test_debian_as_setup_says_it_the_point_release_from_debian_version():
    # What `ansible localhost -m setup -a gather_subset=min` printed on the host these files come from.
    facts = os_facts(parse_os_release(DEBIAN), recorded("debian_version.debian12.txt"), "6.1.0-31-amd64\n",
                     "x86_64", "gpu01.cluster.example")
    assert facts == {"distribution": "Debian", "distribution_version": "12.11", "distribution_major_version": "12",
                     "distribution_release": "bookworm", "os_family": "Debian", "architecture": "x86_64",
                     "kernel": "6.1.0-31-amd64", "hostname": "gpu01"}
    assert tuple(facts) == FACT_NAMES


def test_ubuntu_takes_version_id_and_its_codename():
    facts = os_facts(parse_os_release(UBUNTU), "trixie/sid\n", "6.8.0-45-generic", "aarch64", "gpu02")
    assert (facts["distribution"], facts["distribution_version"], facts["distribution_major_version"],
            facts["distribution_release"], facts["os_family"], facts["architecture"]) == \
        ("Ubuntu", "24.04", "24", "noble", "Debian", "aarch64")


def test_debian_testing_keeps_version_id_and_reads_the_codename_from_pretty_name():
    text = 'PRETTY_NAME="Debian GNU/Linux trixie (sid)"\nNAME="Debian GNU/Linux"\nVERSION_ID="13"\nID=debian\n'
    facts = os_facts(parse_os_release(text), "trixie/sid\n", "6.12.0", "x86_64", "n")
    assert facts["distribution_version"] == "13" and facts["distribution_release"] == "sid"


def test_another_distribution_is_named_after_its_name_and_family_from_id_like():
    text = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n'
    facts = os_facts(parse_os_release(text), None, "5.14.0", "i686", "n")
    assert (facts["distribution"], facts["os_family"], facts["architecture"]) == ("Rocky", "RedHat", "i386")
    facts = os_facts(parse_os_release('NAME="Gentoo"\nID=gentoo\n'), None, "6.6", "x86_64", "n")
    assert (facts["distribution"], facts["os_family"], facts["distribution_version"]) == ("Gentoo", "Gentoo", "")


def test_quotes_comments_and_blank_lines_as_a_shell_reads_them():
    assert parse_os_release("# c\n\nNAME='A B'\nX=\"a \\\"q\\\"\"\nY=plain\n") == {
        "NAME": "A B", "X": 'a "q"', "Y": "plain"}


@pytest.mark.parametrize("text, said", [
    ("not a line\n", "line 1 is no KEY=value line"),
    ("NAME=ok\nname=lower\n", "line 2 is no KEY=value line"),
    ('NAME="open\n', "line 1 has a value no shell would read"),
])
def test_a_file_that_is_not_os_release_is_refused_naming_the_line(text, said):
    with pytest.raises(OsReleaseError, match=said):
        parse_os_release(text)


@pytest.mark.parametrize("kernel", ["", "  \n", "6.1.0 evil"])
def test_a_kernel_release_that_is_not_one_word_is_refused(kernel):
    with pytest.raises(OsReleaseError, match="not one word"):
        os_facts(parse_os_release(DEBIAN), "12.11", kernel, "x86_64", "n")


@given(st.text(max_size=200))
@example("A=\x00\n")
@example("A='\n")
def test_any_text_parses_or_is_refused_never_another_error(text):
    try:
        values = parse_os_release(text)
    except OsReleaseError:
        return
    assert all(key.isupper() or "_" in key or key[0].isupper() for key in values)


# /proc/cpuinfo as x86 (one stanza per logical CPU, "processor\t: N"), arm64 (the same line) and s390x
# ("processor N: ..." lines under one header) print it; setup's processor_vcpus counts the same CPUs.
X86_CPUINFO = "".join("processor\t: %d\nvendor_id\t: GenuineIntel\nmodel name\t: Xeon\nflags\t\t: fpu vme\n\n" % n
                      for n in range(4))
ARM_CPUINFO = "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n"
S390_CPUINFO = ("vendor_id       : IBM/S390\n# processors    : 2\nbogomips per cpu: 3033.00\n"
                "processor 0: version = FF,  identification = 0133E8,  machine = 2964\n"
                "processor 1: version = FF,  identification = 0133E8,  machine = 2964\n")


@pytest.mark.parametrize("text, count", [(X86_CPUINFO, 4), (ARM_CPUINFO, 2), (S390_CPUINFO, 2)])
def test_vcpus_are_the_processors_cpuinfo_lists(text, count):
    assert count_vcpus(text) == count


def test_vcpus_of_this_host_as_the_kernel_counts_them():
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        assert count_vcpus(handle.read()) == os.cpu_count()


@pytest.mark.parametrize("text", ["", "vendor_id : x\n", "model name : processor: 3\n"])
def test_a_cpuinfo_listing_no_processor_is_refused(text):
    with pytest.raises(OsReleaseError, match="lists no processor"):
        count_vcpus(text)


def test_memtotal_in_whole_mib_as_setup_says_it():
    assert memtotal_mb("MemTotal:       16374268 kB\nMemFree:         1000 kB\n") == 15990
    with open("/proc/meminfo", encoding="ascii") as handle:
        assert memtotal_mb(handle.read()) == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 1024 // 1024


@pytest.mark.parametrize("text", ["", "MemFree: 1 kB\n", "MemTotal: lots kB\n"])
def test_a_meminfo_without_memtotal_is_refused(text):
    with pytest.raises(OsReleaseError, match="no 'MemTotal: N kB' line"):
        memtotal_mb(text)
