# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""APT source files: recorded files of both formats, apt's refusals, and plans that apt accepts.

The recorded files are verbatim but for the archive host names, which are replaced by example.org names
(the repository names no mirror). Where a test says "apt agrees", the same input was given to
``apt-get update --print-uris`` (apt 2.6.1, Debian 12) with a scratch configuration, and the index files
apt listed are the ones the expected values below describe.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.sources import (
    AptSourcesError,
    Stanza,
    check_field,
    parse_deb822,
    parse_file,
    parse_files,
    parse_one_line,
    plan_components,
    same_uri,
    serving,
)

NONFREE = ["contrib", "non-free", "non-free-firmware"]
BOOKWORM = ["bookworm", "bookworm-updates", "bookworm-security"]

# /etc/apt/sources.list of the lab image (lab/lab.py writes it from the build host's mirror): main only.
LAB_IMAGE = """\
deb http://mirror.example.org/debian bookworm main
deb http://mirror.example.org/debian bookworm-updates main
deb http://mirror.example.org/debian-security bookworm-security main
"""

# /etc/apt/sources.list.d/debian.sources of a Debian 12 cloud VM (deb822, snapshot comments inside stanzas).
DEBIAN12_CLOUD = """\
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://mirror.example.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
# http://snapshot.debian.org/archive/debian-security/20250520T000000Z
URIs: http://mirror.example.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""

# /etc/apt/sources.list as the Debian 11 netinst installer leaves it: cdrom entries commented out, deb-src.
BULLSEYE_NETINST = """\
# deb cdrom:[Debian GNU/Linux 11.0.0 _Bullseye_ - Official amd64 NETINST 20210814-10:07]/ bullseye main

#deb cdrom:[Debian GNU/Linux 11.0.0 _Bullseye_ - Official amd64 NETINST 20210814-10:07]/ bullseye main

deb http://deb.example.org/debian/ bullseye main
deb-src http://deb.example.org/debian/ bullseye main

deb http://security.example.org/debian-security bullseye-security main
deb-src http://security.example.org/debian-security bullseye-security main

# bullseye-updates, to get updates before a point release is made;
# see https://www.debian.org/doc/manuals/debian-reference/ch02.en.html#_updates_and_backports
deb http://deb.example.org/debian/ bullseye-updates main
deb-src http://deb.example.org/debian/ bullseye-updates main

# This system was installed using small removable media
# (e.g. netinst, live or single CD). The matching "deb cdrom"
# entries were disabled at the end of the installation process.
# For information about how to configure apt package sources,
# see the sources.list(5) manual.
"""

# /etc/apt/sources.list.d/ubuntu.sources of an Ubuntu 24.04 host (deb and deb-src in one stanza).
NOBLE = """\
Types: deb deb-src
URIs: http://au.archive.example.org/ubuntu/
Suites: noble noble-updates noble-backports
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

Types: deb deb-src
URIs: http://security.example.org/ubuntu/
Suites: noble-security
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
"""

# Ubuntu 24.04 with a second architecture: ## comments between stanzas, Architectures per stanza.
NOBLE_ARM64 = """\
Types: deb
URIs: http://mirrors.example.org/ubuntu-ports/
Suites: noble noble-updates noble-backports
Components: main universe restricted multiverse
Architectures: arm64
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

## Ubuntu security updates. Aside from URIs and Suites,
## this should mirror your choices in the previous section.
Types: deb
URIs: http://mirrors.example.org/ubuntu-ports/
Suites: noble-security
Components: main universe restricted multiverse
Architectures: arm64
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
"""

# /etc/apt/sources.list.d/cuda-debian12-x86_64.list, as NVIDIA's cuda-keyring 1.1 package installs it.
CUDA_KEYRING = ("deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
                "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/ /\n")
CUDA_URI = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"


# ------------------------------------------------------------------------------------ one-line files
def test_lab_image_sources_list():
    entries = parse_one_line(LAB_IMAGE, "/etc/apt/sources.list")
    assert [(e.line, e.types, e.uris, e.suites, e.components) for e in entries] == [
        (1, ("deb",), ("http://mirror.example.org/debian",), ("bookworm",), ("main",)),
        (2, ("deb",), ("http://mirror.example.org/debian",), ("bookworm-updates",), ("main",)),
        (3, ("deb",), ("http://mirror.example.org/debian-security",), ("bookworm-security",), ("main",)),
    ]
    assert all(e.format == "one-line" and e.enabled and e.options == () for e in entries)
    assert entries[2].where == "/etc/apt/sources.list:3"


def test_netinst_sources_list_skips_comments_and_keeps_deb_src():
    entries = parse_one_line(BULLSEYE_NETINST, "/etc/apt/sources.list")
    # 6 entries: lines 5, 6, 8, 9, 13, 14 (the cdrom lines and the prose are comments)
    assert [e.line for e in entries] == [5, 6, 8, 9, 13, 14]
    assert [e.types[0] for e in entries] == ["deb", "deb-src"] * 3
    assert entries[0].uris == ("http://deb.example.org/debian/",)
    assert [e.suites[0] for e in entries[::2]] == ["bullseye", "bullseye-security", "bullseye-updates"]


def test_options_quotes_brackets_and_comments_like_apt():
    text = (
        'deb [ arch=amd64,arm64 signed-by=/k1.gpg,/k2.gpg ] "http://x.example.org/d" bookworm main # note\n'
        "deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 NETINST]/ bookworm contrib main\n"
        "deb\thttp://x.example.org/d\tbookworm-updates\tmain\n"
    )
    first, cdrom, tabs = parse_one_line(text, "x.list")
    # apt keeps option values as written, joins signed-by with commas, and drops the quotes of the URI
    assert first.options == (("arch", "amd64,arm64"), ("signed-by", "/k1.gpg,/k2.gpg"))
    assert first.option("signed-by") == "/k1.gpg,/k2.gpg" and first.option("trusted") == ""
    assert first.uris == ("http://x.example.org/d",) and first.components == ("main",)
    # the bracketed cdrom name keeps its spaces (apt fetches cdrom://[Debian GNU/Linux ...]/dists/bookworm/)
    assert cdrom.uris == ("cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 NETINST]/",)
    assert cdrom.components == ("contrib", "main")
    assert tabs.suites == ("bookworm-updates",)


def test_cuda_keyring_list_is_a_flat_repository():
    (entry,) = parse_file("/etc/apt/sources.list.d/cuda-debian12-x86_64.list", CUDA_KEYRING)
    assert entry.suites == ("/",) and entry.components == ()
    assert entry.option("signed-by") == "/usr/share/keyrings/cuda-archive-keyring.gpg"


@pytest.mark.parametrize("line, what", [
    # apt: "Type 'rpm' is not known on line 1"
    ("rpm http://x.example.org/d bookworm main", "the type 'rpm' is not one apt knows"),
    # apt: "Malformed entry 1 in list file (Suite)"
    ("deb http://x.example.org/d", "lacks a suite"),
    # apt: "Malformed entry 1 in list file (Component)"
    ("deb http://x.example.org/d bookworm", "names no component"),
    # a '#' anywhere ends the line for apt: the suite is 'bookworm' and the component is gone
    ("deb http://x.example.org/d bookworm#x main", "names no component"),
    ("deb http://x.example.org/cuda/ / main", "takes no component"),
    ("deb [arch=amd64 http://x.example.org/d bookworm main", "never closed"),
    ("deb [trusted] http://x.example.org/d bookworm main", "has no '=value'"),
    ('deb "http://x.example.org/d bookworm main', "never closes it"),
])
def test_one_line_refusals_name_file_and_line(line, what):
    with pytest.raises(AptSourcesError) as err:
        parse_one_line("# first\n" + line + "\n", "/etc/apt/sources.list")
    assert what in str(err.value) and "/etc/apt/sources.list:2" in str(err.value)


# --------------------------------------------------------------------------------------- deb822 files
def test_debian12_cloud_deb822_with_comments_inside_stanzas():
    first, second = parse_deb822(DEBIAN12_CLOUD, "/etc/apt/sources.list.d/debian.sources")
    assert (first.line, second.line) == (1, 8)
    assert first.format == "deb822" and first.types == ("deb",)
    assert first.uris == ("http://mirror.example.org/debian",)
    assert first.suites == ("bookworm", "bookworm-updates") and first.components == ("main",)
    assert first.release_options() == {"signed-by": "/usr/share/keyrings/debian-archive-keyring.gpg"}
    assert second.suites == ("bookworm-security",)


def test_noble_deb_and_deb_src_in_one_stanza():
    archive, security = parse_deb822(NOBLE, "/etc/apt/sources.list.d/ubuntu.sources")
    assert archive.types == ("deb", "deb-src")
    assert archive.suites == ("noble", "noble-updates", "noble-backports")
    assert archive.components == ("main", "restricted", "universe", "multiverse")
    assert security.uris == ("http://security.example.org/ubuntu/",)


def test_architectures_become_the_arch_option():
    archive, security = parse_deb822(NOBLE_ARM64, "arm64.sources")
    assert archive.option("arch") == "arm64" and security.line == 10
    # arch is no release option: apt lets entries of one archive differ in it
    assert archive.release_options() == {"signed-by": "/usr/share/keyrings/ubuntu-archive-keyring.gpg"}


def test_deb822_rules_apt_follows():
    text = (
        "types: deb\n"                     # field names are case-insensitive
        "uris: http://x.example.org/d\n"
        "# a comment line inside the stanza\n"
        "suites: bookworm\n"
        "  bookworm-updates\n"             # continuation line
        "components: main # c\n"           # '#' after a value is part of it (apt fetches '#' and 'c')
        "\n"
        "Types: deb\nURIs: http://y.example.org/d\nSuites: bookworm\nComponents: main\nEnabled: no\n"
        "\n"
        "Types: deb\nURIs: http://z.example.org/d\nSuites: bookworm\nComponents: main\nEnabled: false\n"
    )
    first, off, also_off = parse_deb822(text, "x.sources")
    assert first.suites == ("bookworm", "bookworm-updates")
    assert first.components == ("main", "#", "c")
    assert (off.enabled, also_off.enabled, first.enabled) == (False, False, True)


def test_whitespace_only_lines_do_not_end_a_stanza():
    # apt reads the "   " and tab lines as continuations, so both stanzas are ONE, whose later fields win:
    # apt fetched only y.example.org for this input.
    text = ("Types: deb\nURIs: http://x.example.org/d\nSuites: bookworm\nComponents: main\n   \n\t\n"
            "Types: deb\nURIs: http://y.example.org/d\nSuites: bookworm\nComponents: main\n")
    (entry,) = parse_deb822(text, "x.sources")
    assert entry.uris == ("http://y.example.org/d",)


def test_inline_signed_by_key_is_kept():
    text = ("Types: deb\nURIs: http://x.example.org/d\nSuites: bookworm\nComponents: main\nSigned-By:\n"
            " -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mQINBGJYmlEB\n -----END PGP PUBLIC KEY BLOCK-----\n")
    (entry,) = parse_deb822(text, "x.sources")
    assert entry.option("signed-by") == ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n.\nmQINBGJYmlEB\n"
                                         "-----END PGP PUBLIC KEY BLOCK-----")


def test_signed_by_list_is_compared_as_apt_joins_it():
    # apt: "Conflicting values ... /k2.gpg,/k.gpg != /k.gpg,/k2.gpg": the order matters, the separator not
    (one,) = parse_deb822("Types: deb\nURIs: u:/d\nSuites: s\nComponents: c\nSigned-By: /k.gpg /k2.gpg\n", "a.sources")
    (two,) = parse_one_line("deb [signed-by=/k.gpg,/k2.gpg] u:/d s c\n", "b.list")
    assert one.option("signed-by") == two.option("signed-by") == "/k.gpg,/k2.gpg"


@pytest.mark.parametrize("text, what", [
    ("Types: foo\nURIs: u:/d\nSuites: s\nComponents: c\n", "Types names 'foo'"),
    ("Types: deb\nSuites: s\nComponents: c\n", "has no URIs"),
    ("Types: deb\nURIs: u:/d\nComponents: c\n", "has no Suites"),
    ("URIs: u:/d\nSuites: s\nComponents: c\n", "has no Types"),
    # apt: "Malformed entry 1 in sources file (absolute Suite Component)"
    ("Types: deb\nURIs: https://x.example.org/cuda/\nSuites: /\nComponents: main\n", "takes no component"),
    # apt: "Malformed entry 1 in sources file (Component)"
    ("Types: deb\nURIs: u:/d\nSuites: bookworm\n", "names no component"),
    ("Types: deb\nthis is no field\n", "is not a 'Field: value' line"),
    (" Types: deb\n", "a continuation line"),
])
def test_deb822_refusals(text, what):
    with pytest.raises(AptSourcesError) as err:
        parse_deb822(text, "/etc/apt/sources.list.d/x.sources")
    # the stanza's first line, or the offending line itself (line 2 for 'this is no field')
    line = 2 if "no field" in text else 1
    assert what in str(err.value) and "/etc/apt/sources.list.d/x.sources:%d:" % line in str(err.value)


def test_file_format_follows_the_name():
    assert parse_file("/etc/apt/sources.list", LAB_IMAGE)[0].format == "one-line"
    assert parse_file("/x/debian.sources", DEBIAN12_CLOUD)[0].format == "deb822"
    with pytest.raises(AptSourcesError, match="neither a .list nor a .sources file"):
        parse_file("/etc/apt/sources.list.d/cuda.list.save", LAB_IMAGE)


def test_serving_finds_the_keyring_packages_cuda_entry():
    entries = parse_files([("/etc/apt/sources.list", LAB_IMAGE),
                           ("/etc/apt/sources.list.d/cuda-debian12-x86_64.list", CUDA_KEYRING)])
    # the trailing slash does not matter, as for apt
    found = serving(entries, CUDA_URI.rstrip("/"))
    assert [e.where for e in found] == ["/etc/apt/sources.list.d/cuda-debian12-x86_64.list:1"]
    assert serving(entries, "http://elsewhere.example.org/") == []
    assert same_uri("http://x/d/") == same_uri("http://x/d") == "http://x/d"


# ------------------------------------------------------------------------------------------- plans
def test_plan_for_the_lab_image():
    entries = parse_files([("/etc/apt/sources.list", LAB_IMAGE)])
    plan = plan_components(entries, BOOKWORM, NONFREE)
    # bookworm and bookworm-updates share the archive URI: one stanza; security has its own URI
    assert [(s.uris, s.suites, s.components, s.options, s.sources) for s in plan] == [
        (["http://mirror.example.org/debian"], ["bookworm", "bookworm-updates"], NONFREE, {},
         ["/etc/apt/sources.list:1", "/etc/apt/sources.list:2"]),
        (["http://mirror.example.org/debian-security"], ["bookworm-security"], NONFREE, {},
         ["/etc/apt/sources.list:3"]),
    ]
    assert plan[0].render() == ("Types: deb\nURIs: http://mirror.example.org/debian\n"
                                "Suites: bookworm bookworm-updates\nComponents: contrib non-free non-free-firmware\n")


def test_plan_repeats_the_hosts_signed_by():
    # apt refuses an entry without Signed-By beside one with it, for the same archive (checked: "Conflicting
    # values set for option Signed-By ... /usr/share/keyrings/debian-archive-keyring.gpg != "). With the
    # repeated value apt fetched 3 suites x 4 components x 2 architectures = 24 Packages indexes.
    entries = parse_files([("/etc/apt/sources.list.d/debian.sources", DEBIAN12_CLOUD)])
    plan = plan_components(entries, BOOKWORM, NONFREE)
    assert [s.render() for s in plan] == [
        "Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm bookworm-updates\n"
        "Components: contrib non-free non-free-firmware\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
        "Types: deb\nURIs: http://mirror.example.org/debian-security\nSuites: bookworm-security\n"
        "Components: contrib non-free non-free-firmware\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
    ]
    assert plan[0].as_dict()["options"] == {"Signed-By": "/usr/share/keyrings/debian-archive-keyring.gpg"}


def test_plan_for_the_netinst_host_ignores_deb_src_and_keeps_the_written_uri():
    # apt agrees: with the two stanzas below it fetched main, contrib and non-free for all three suites.
    entries = parse_files([("/etc/apt/sources.list", BULLSEYE_NETINST)])
    plan = plan_components(entries, ["bullseye", "bullseye-updates", "bullseye-security"], ["contrib", "non-free"])
    assert [(s.uris, s.suites, s.sources) for s in plan] == [
        (["http://deb.example.org/debian/"], ["bullseye", "bullseye-updates"],
         ["/etc/apt/sources.list:5", "/etc/apt/sources.list:13"]),
        (["http://security.example.org/debian-security"], ["bullseye-security"], ["/etc/apt/sources.list:8"]),
    ]


def test_plan_adds_only_what_is_missing():
    text = LAB_IMAGE + "deb http://mirror.example.org/debian/ bookworm non-free-firmware contrib\n"
    plan = plan_components(parse_one_line(text, "/etc/apt/sources.list"), BOOKWORM, NONFREE)
    # bookworm lacks only non-free; bookworm-updates lacks all three, so the two suites part ways
    assert [(s.suites, s.components) for s in plan] == [
        (["bookworm"], ["non-free"]),
        (["bookworm-updates"], NONFREE),
        (["bookworm-security"], NONFREE),
    ]
    complete = text + "deb http://mirror.example.org/debian bookworm non-free\n" \
                      "deb http://mirror.example.org/debian bookworm-updates contrib non-free non-free-firmware\n" \
                      "deb http://mirror.example.org/debian-security bookworm-security contrib non-free non-free-firmware\n"
    assert plan_components(parse_one_line(complete, "/etc/apt/sources.list"), BOOKWORM, NONFREE) == []


def test_plan_ignores_its_own_file_and_disabled_entries():
    own = "/etc/apt/sources.list.d/gpufleet-debian-nonfree.sources"
    first = plan_components(parse_files([("/etc/apt/sources.list", LAB_IMAGE)]), BOOKWORM, NONFREE)
    written = "\n".join(s.render() for s in first)
    disabled = "Types: deb\nURIs: http://other.example.org/debian\nSuites: bookworm\nComponents: main\nEnabled: no\n"
    entries = parse_files([("/etc/apt/sources.list", LAB_IMAGE), (own, written), ("/x/off.sources", disabled)])
    again = plan_components(entries, BOOKWORM, NONFREE, exclude=[own])
    assert [s.render() for s in again] == [s.render() for s in first]
    # without the exclusion the host already has everything
    assert plan_components(entries, BOOKWORM, NONFREE) == []


def test_plan_uses_the_uris_the_user_names():
    entries = parse_files([("/etc/apt/sources.list.d/debian.sources", DEBIAN12_CLOUD)])
    plan = plan_components(entries, ["bookworm", "bookworm-updates"], NONFREE,
                           uris=["http://mirror.example.org/debian/", "http://local.example.org/debian"])
    # the first URI is the host's archive (trailing slash aside): its Signed-By is repeated; the second
    # URI is unknown to the host, so it gets no option
    assert [(s.uris, s.suites, s.options) for s in plan] == [
        (["http://mirror.example.org/debian/"], ["bookworm", "bookworm-updates"],
         {"signed-by": "/usr/share/keyrings/debian-archive-keyring.gpg"}),
        (["http://local.example.org/debian"], ["bookworm", "bookworm-updates"], {}),
    ]


def test_plan_merges_archives_that_share_everything_else():
    text = ("deb http://a.example.org/debian bookworm main\n"
            "deb http://b.example.org/debian bookworm main\n")
    (stanza,) = plan_components(parse_one_line(text, "/etc/apt/sources.list"), BOOKWORM, NONFREE)
    assert stanza.uris == ["http://a.example.org/debian", "http://b.example.org/debian"]
    assert stanza.suites == ["bookworm"]


def test_plan_refuses_a_host_that_does_not_serve_the_release():
    entries = parse_files([("/etc/apt/sources.list.d/ubuntu.sources", NOBLE)])
    with pytest.raises(AptSourcesError) as err:
        plan_components(entries, BOOKWORM, NONFREE)
    message = str(err.value)
    assert "serves the release 'bookworm'" in message
    assert "noble, noble-backports, noble-security, noble-updates" in message and "URI list" in message


def test_plan_refuses_entries_that_already_conflict():
    text = ("deb [signed-by=/a.gpg] http://x.example.org/d bookworm main\n"
            "deb http://x.example.org/d/ bookworm contrib\n")
    with pytest.raises(AptSourcesError) as err:
        plan_components(parse_one_line(text, "/etc/apt/sources.list"), ["bookworm"], ["non-free"])
    assert "disagree on their release options" in str(err.value)
    assert "/etc/apt/sources.list:1" in str(err.value) and "/etc/apt/sources.list:2" in str(err.value)


def test_plan_for_ubuntu_restricted_multiverse():
    text = "deb http://archive.example.org/ubuntu noble main universe\n" \
           "deb http://archive.example.org/ubuntu noble-updates main universe restricted\n"
    plan = plan_components(parse_one_line(text, "/etc/apt/sources.list"),
                           ["noble", "noble-updates", "noble-security"], ["restricted", "multiverse"])
    assert [(s.suites, s.components) for s in plan] == [(["noble"], ["restricted", "multiverse"]),
                                                        (["noble-updates"], ["multiverse"])]


@pytest.mark.parametrize("suites, components", [([], NONFREE), (BOOKWORM, [])])
def test_plan_needs_suites_and_components(suites, components):
    with pytest.raises(AptSourcesError, match="no (suite|component) given"):
        plan_components(parse_one_line(LAB_IMAGE), suites, components)


def test_inline_key_is_written_back_as_deb822_continuation_lines():
    stanza = Stanza(["http://x.example.org/d"], ["bookworm"], ["non-free"],
                    {"signed-by": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n.\nmQINBGJY\n-----END PGP PUBLIC KEY BLOCK-----",
                     "trusted": "yes"}, [])
    assert stanza.render() == (
        "Types: deb\nURIs: http://x.example.org/d\nSuites: bookworm\nComponents: non-free\n"
        "Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mQINBGJY\n -----END PGP PUBLIC KEY BLOCK-----\n"
        "Trusted: yes\n")
    (back,) = parse_deb822(stanza.render(), "x.sources")
    assert back.release_options() == stanza.options


# ------------------------------------------------------------------------------------- properties
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.", min_size=1, max_size=10).filter(
    lambda w: not w.startswith("-"))
_uri = st.builds(lambda host, path, slash: "http://%s.example.org/%s%s" % (host, path, "/" if slash else ""),
                 _word, _word, st.booleans())
_key = st.lists(_word.map(lambda w: "/usr/share/keyrings/%s.gpg" % w), min_size=1, max_size=2, unique=True)


@settings(max_examples=200, deadline=None)
@given(uris=st.lists(_uri, min_size=1, max_size=3, unique=True),
       suites=st.lists(_word, min_size=1, max_size=3, unique=True),
       components=st.lists(_word, min_size=1, max_size=4, unique=True),
       keys=st.one_of(st.none(), _key))
def test_rendered_stanza_parses_back(uris, suites, components, keys):
    options = {"signed-by": ",".join(keys)} if keys else {}
    stanza = Stanza(list(uris), list(suites), list(components), options, [])
    (entry,) = parse_deb822(stanza.render(), "x.sources")
    assert (list(entry.uris), list(entry.suites), list(entry.components)) == (uris, suites, components)
    assert entry.release_options() == options and entry.types == ("deb",)


_host_entry = st.tuples(_uri, st.sampled_from(BOOKWORM + ["bookworm-backports"]),
                        st.lists(st.sampled_from(["main"] + NONFREE), min_size=1, max_size=4, unique=True))


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_host_entry, min_size=1, max_size=6), signed=st.booleans())
def test_after_the_plan_every_served_suite_has_every_component(lines, signed):
    # One Signed-By per host (as on real hosts), so the host itself is consistent.
    option = "[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] " if signed else ""
    host = "".join("deb %s%s %s %s\n" % (option, uri, suite, " ".join(comps)) for uri, suite, comps in lines)
    entries = parse_one_line(host, "/etc/apt/sources.list")
    if not any(suite == "bookworm" for _uri, suite, _comps in lines):
        with pytest.raises(AptSourcesError):
            plan_components(entries, BOOKWORM, NONFREE)
        return
    plan = plan_components(entries, BOOKWORM, NONFREE)
    written = "\n".join(s.render() for s in plan)
    after = entries + (parse_deb822(written, "/x/gpufleet.sources") if plan else [])
    for uri, suite, _comps in lines:
        same = [e for e in after if suite in e.suites and any(same_uri(u) == same_uri(uri) for u in e.uris)]
        have = {c for e in same for c in e.components}
        if suite in BOOKWORM:
            assert set(NONFREE) <= have
        else:  # a suite the plan was not asked about is left as it was
            assert all(e.path == "/etc/apt/sources.list" for e in same)
        # apt's rule: one archive, one set of release options
        assert len({tuple(sorted(e.release_options().items())) for e in same}) == 1
    # nothing is planned twice, and the plan is stable once written
    assert plan_components(after, BOOKWORM, NONFREE) == []
    again = plan_components(after, BOOKWORM, NONFREE, exclude=["/x/gpufleet.sources"])
    assert [s.render() for s in again] == [s.render() for s in plan]


@pytest.mark.parametrize("kind, value, what, shown", [
    ("uri", 5, "a URI: a scheme", "5 of type int"),
    ("suite", None, "a suite of letters", "None of type NoneType"),
    ("component", ["main"], "a component of letters", "['main'] of type list"),
])
def test_a_field_that_is_not_a_string_is_refused_naming_what_it_must_be(kind, value, what, shown):
    with pytest.raises(AptSourcesError) as err:
        check_field(kind, "repositories[0].%ss[0]" % kind, value)
    assert str(err.value).startswith("repositories[0].%ss[0] must be a string (%s" % (kind, what))
    assert str(err.value).endswith("), got %s" % shown)
