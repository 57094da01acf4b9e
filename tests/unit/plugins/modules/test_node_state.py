# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.node_state: packages, units, paths and device files read in one call, from recorded outputs."""
import grp
import hashlib
import json
import os
import pwd

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpufleet.cluster.plugins.modules import node_state as module
from hypothesis import given, settings
from hypothesis import strategies as st

from module_results import assert_options_match_spec, run_module_main
from nasty_input import hostile_text, near_valid
from reference import FIXTURES as _FIXTURES


def recorded(*parts):
    with open(os.path.join(_FIXTURES, *parts), encoding="utf-8") as handle:
        return handle.read()


HEAD_UNITS = recorded("systemd", "show-state.lab-head.debian12.txt")
GPU_UNITS = recorded("systemd", "show-state.lab-gpu-slurmd-disabled.debian12.txt")
HEAD_DPKG = recorded("dpkg", "show-status-version.slurm-head.debian12.txt")
AUTH_SHA256 = "ca14e26d1a85b925848b1818135e460822a9cf03d1d050406033da5e0337adf7"


class FakeCommands:
    """Stands in for AnsibleModule.run_command: one answer per program, every argv kept."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        return self.answers[os.path.basename(argv[0])]


def fake_commands(monkeypatch, answers):
    fake = FakeCommands(answers)
    monkeypatch.setattr(AnsibleModule, "run_command", lambda _self, argv, **_kwargs: fake(argv))
    monkeypatch.setattr(AnsibleModule, "get_bin_path", lambda _self, name, required=False: "/usr/bin/" + name)
    # A host that runs systemd as its init (a node), whatever runs these tests.
    monkeypatch.setattr(module, "_SYSTEMD_RUN_DIR", os.path.dirname(os.path.abspath(__file__)))
    return fake


@pytest.fixture
def commands(monkeypatch):
    return fake_commands(monkeypatch, {})


def test_docs_match_the_argument_spec():
    doc = assert_options_match_spec(module)
    assert doc["attributes"]["check_mode"]["support"] == "full"


def test_units_of_the_recorded_controller(run_main, commands):
    commands.answers["systemctl"] = (0, HEAD_UNITS, "")
    result = run_main(module, {"units": ["munge", "mariadb", "slurmdbd", "slurmctld", "slurmd"]})
    running = {"load": "loaded", "active": "active", "sub": "running", "enabled": "enabled"}
    assert result["units"] == {"munge": running, "mariadb": running, "slurmdbd": running, "slurmctld": running,
                               "slurmd": {"load": "not-found", "active": "inactive", "sub": "dead", "enabled": ""}}
    assert result["changed"] is False
    assert commands.calls == [["/usr/bin/systemctl", "show", "--property=LoadState,ActiveState,SubState,UnitFileState",
                               "--", "munge", "mariadb", "slurmdbd", "slurmctld", "slurmd"]]


def test_a_disabled_stopped_unit_is_told_apart(run_main, commands):
    commands.answers["systemctl"] = (0, GPU_UNITS, "")
    result = run_main(module, {"units": ["munge", "slurmd", "slurmctld"]})
    assert result["units"]["slurmd"] == {"load": "loaded", "active": "inactive", "sub": "dead", "enabled": "disabled"}
    assert result["units"]["munge"]["enabled"] == "enabled" and result["units"]["slurmctld"]["load"] == "not-found"


def test_installed_packages_with_their_versions_and_the_missing_left_out(run_main, commands):
    commands.answers["dpkg-query"] = (1, HEAD_DPKG, "dpkg-query: no packages found matching slurmd\n")
    result = run_main(module, {"packages": ["slurmctld", "munge", "slurmd", "mariadb-server"]})
    assert result["packages"] == {"slurmctld": "22.05.8-4+deb12u3", "munge": "0.5.15-2+deb12u1",
                                  "mariadb-server": "1:10.11.19-0+deb12u1"}
    argv = commands.calls[0]
    assert argv[:2] == ["/usr/bin/dpkg-query", "--show"]
    assert argv[2] == "--showformat=${Package} ${db:Status-Status} ${Version}\n"
    assert argv[3:] == ["slurmctld", "munge", "slurmd", "mariadb-server"]


def test_nothing_asked_runs_nothing(run_main, commands):
    result = run_main(module, {})
    assert result["packages"] == {} and result["units"] == {} and result["paths"] == {} and result["globs"] == {}
    assert commands.calls == []


def test_paths_and_globs(run_main, commands, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    os.chmod(state, 0o750)
    for name in ("nvidia1", "nvidia0", "nvidiactl", "nvidia-uvm"):
        (tmp_path / name).write_text("")
    (tmp_path / "conf").write_text("AuthType=auth/munge\n")
    os.chmod(tmp_path / "conf", 0o600)
    result = run_main(module, {"paths": [str(state), str(tmp_path / "absent"), str(tmp_path / "nvidia0"),
                                         str(tmp_path / "conf")],
                               "globs": [str(tmp_path / "nvidia[0-9]*"), str(tmp_path / "none*")]})
    assert result["paths"][str(state)] == {"exists": True, "isdir": True, "mode": "0750",
                                           "owner": pwd.getpwuid(os.getuid()).pw_name,
                                           "group": grp.getgrgid(os.getgid()).gr_name}
    assert result["paths"][str(tmp_path / "absent")] == {"exists": False, "isdir": False}
    # sha256 of the empty file, and of "AuthType=auth/munge\n" (sha256sum, by hand)
    assert result["paths"][str(tmp_path / "nvidia0")]["sha256"] == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert result["paths"][str(tmp_path / "conf")] == {
        "exists": True, "isdir": False, "mode": "0600", "sha256": AUTH_SHA256,
        "owner": pwd.getpwuid(os.getuid()).pw_name, "group": grp.getgrgid(os.getgid()).gr_name}
    assert result["globs"] == {str(tmp_path / "nvidia[0-9]*"): [str(tmp_path / "nvidia0"), str(tmp_path / "nvidia1")],
                               str(tmp_path / "none*"): []}
    assert commands.calls == []


def test_systemctl_printing_fewer_blocks_than_units_fails_clearly(run_main, commands):
    commands.answers["systemctl"] = (0, GPU_UNITS, "")
    result = run_main(module, {"units": ["munge", "slurmd"]})
    assert result["failed"] is True
    assert "3 blocks of properties for 2 units (munge, slurmd)" in result["msg"]


@pytest.mark.parametrize("program, answer, expected", [
    ("systemctl", (1, "", "Failed to connect to bus: No such file or directory\n"),
     "node_state: systemctl show munge failed (exit 1): Failed to connect to bus"),
    ("dpkg-query", (2, "", "dpkg-query: error: --show needs a valid format\n"),
     "node_state: /usr/bin/dpkg-query --show --showformat=${Package} ${db:Status-Status} ${Version}\n failed (exit 2)"),
    ("dpkg-query", (0, "munge installed\n", ""), "an installed package without a version"),
])
def test_a_failing_program_fails_with_its_message(run_main, commands, program, answer, expected):
    commands.answers[program] = answer
    result = run_main(module, {"units": ["munge"]} if program == "systemctl" else {"packages": ["munge"]})
    assert result["failed"] is True and expected in result["msg"]


@pytest.mark.parametrize("args, field", [
    ({"packages": ["Slurmd"]}, "packages[0]"),
    ({"packages": ["slurmd", "-x"]}, "packages[1]"),
    ({"units": ["--user"]}, "units[0]"),
    ({"units": ["slurmd\n"]}, "units[0]"),
    ({"paths": ["relative/path"]}, "paths[0]"),
    ({"paths": ["/etc/../root"]}, "paths[0]"),
    ({"globs": ["/dev/../nvidia*"]}, "globs[0]"),
    ({"globs": ["nvidia*"]}, "globs[0]"),
])
def test_refuses_what_is_not_a_name_or_an_absolute_path(run_main, commands, args, field):
    result = run_main(module, args)
    assert result["failed"] is True
    assert result["msg"].startswith("node_state: refusing to read: " + field)
    assert commands.calls == []


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["packages", "units", "globs"]),
       value=st.one_of(hostile_text(1), near_valid(st.sampled_from(["slurmd", "munge", "/dev/nvidia[0-9]*"]))))
def test_hostile_names_are_refused_or_passed_whole(kind, value):
    answers = {"systemctl": (0, "LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\n", ""),
               "dpkg-query": (1, "", "")}
    with pytest.MonkeyPatch.context() as monkeypatch:
        fake = fake_commands(monkeypatch, answers)
        result = run_module_main(module, {kind: [value]})
    if result.get("failed"):
        assert result["msg"].startswith("node_state: refusing to read: %s[0]: %r is not allowed" % (kind, value))
        assert fake.calls == []
    else:
        assert all(ord(char) >= 32 for char in value) and not value.startswith("-")
        assert list(result[kind]) in ([value], []) and all(call[-1] == value for call in fake.calls)


SECRET_CONF = "StoragePass=correct horse battery staple\n"
SECRET_SHA256 = "aeac5e4ae4bdd5d8b0a54a08c37e8d4c0f6b0a1f1ab2d0f3d6c1a2ba0a4a8c63"  # not the hash of SECRET_CONF


def _sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_secret_file_says_whether_it_matches_and_never_its_hash(run_main, commands, tmp_path):
    conf = tmp_path / "slurmdbd.conf"
    conf.write_text(SECRET_CONF)
    os.chmod(conf, 0o600)
    (tmp_path / "dir").mkdir()
    right = _sha256(SECRET_CONF)
    result = run_main(module, {"secrets": [
        {"path": str(conf), "sha256": right}, {"path": str(tmp_path / "absent"), "sha256": right},
        {"path": str(tmp_path / "dir"), "sha256": right}]})
    me = {"owner": pwd.getpwuid(os.getuid()).pw_name, "group": grp.getgrgid(os.getgid()).gr_name}
    dir_mode = "%04o" % (os.stat(tmp_path / "dir").st_mode & 0o7777)
    assert result["secrets"] == {
        str(conf): {"exists": True, "isdir": False, "mode": "0600", "matches": True, **me},
        str(tmp_path / "absent"): {"exists": False, "isdir": False, "matches": False},
        str(tmp_path / "dir"): {"exists": True, "isdir": True, "mode": dir_mode, "matches": False, **me}}
    assert result["changed"] is False and result["paths"] == {}
    # Neither the file's hash nor the expected one is anywhere in what the module returns (invocation included).
    assert right not in json.dumps(result)
    conf.write_text(SECRET_CONF.replace("staple", "stapler"))
    again = run_main(module, {"secrets": [{"path": str(conf), "sha256": right}]})
    assert again["secrets"][str(conf)]["matches"] is False
    assert _sha256(SECRET_CONF.replace("staple", "stapler")) not in json.dumps(again) and right not in json.dumps(again)


@pytest.mark.parametrize("entry, message", [
    ({"path": "/etc/slurm/slurmdbd.conf", "sha256": "StoragePass=hunter2hunter2"},
     "secrets[0].sha256 is not allowed; expected 64 lower-case hex digits"),
    ({"path": "/etc/slurm/slurmdbd.conf", "sha256": SECRET_SHA256.upper()}, "secrets[0].sha256 is not allowed"),
    ({"path": "/etc/slurm/slurmdbd.conf", "sha256": SECRET_SHA256 + "\n"}, "secrets[0].sha256 is not allowed"),
    ({"path": "etc/slurmdbd.conf", "sha256": SECRET_SHA256}, "secrets[0].path: 'etc/slurmdbd.conf' is not allowed"),
])
def test_a_bad_secret_entry_is_refused_without_showing_the_value(run_main, commands, entry, message):
    result = run_main(module, {"secrets": [entry]})
    assert result["failed"] is True and result["msg"].startswith("node_state: refusing to read: " + message)
    assert "hunter2" not in json.dumps(result)


_HEAD4 = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
_HEAD6 = ("  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
          "tm->when retrnsmt   uid  timeout inode\n")
_TAIL = " 00000000:00000000 00:00000000 00000000     0        0 1061 1 00000000de1293fe 100 0 0 10 0\n"


def kernel_tables(monkeypatch, tmp_path, tcp, tcp6):
    """Point the module at tables written to tmp_path (None: the file does not exist)."""
    paths = []
    for name, text, family in (("tcp", tcp, 4), ("tcp6", tcp6, 6)):
        if text is not None:
            (tmp_path / name).write_text(text)
        paths.append((str(tmp_path / name), family))
    monkeypatch.setattr(module, "_PROC_NET_TCP", tuple(paths))


def test_listeners_say_which_addresses_are_exposed(run_main, commands, monkeypatch, tmp_path):
    # MariaDB on 127.0.0.1:3306 and ::1:3306; nv-hostengine on 0.0.0.0:5555 (exposed); sshd on :: (not asked).
    kernel_tables(monkeypatch, tmp_path,
                  _HEAD4 + "   0: 0100007F:0CEA 00000000:0000 0A" + _TAIL + "   1: 00000000:15B3 00000000:0000 0A" + _TAIL,
                  _HEAD6 + "   0: 00000000000000000000000001000000:0CEA 00000000000000000000000000000000:0000 0A" + _TAIL
                  + "   1: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A" + _TAIL)
    result = run_main(module, {"listen_ports": [3306, 5555, 9400]})
    assert result["listeners"] == {"3306": {"addresses": ["127.0.0.1", "::1"], "exposed": []},
                                   "5555": {"addresses": ["0.0.0.0"], "exposed": ["0.0.0.0"]},
                                   "9400": {"addresses": [], "exposed": []}}
    assert result["changed"] is False and commands.calls == []


def test_a_kernel_without_ipv6_has_no_tcp6_table(run_main, commands, monkeypatch, tmp_path):
    kernel_tables(monkeypatch, tmp_path, _HEAD4 + "   0: 0100007F:0CEA 00000000:0000 0A" + _TAIL, None)
    assert run_main(module, {"listen_ports": [3306]})["listeners"] == {
        "3306": {"addresses": ["127.0.0.1"], "exposed": []}}


@pytest.mark.parametrize("tcp, tcp6, expected", [
    (None, _HEAD6, "node_state: %s does not exist: cannot tell who listens on ports 3306"),
    ("", _HEAD6, "node_state: /proc/net/tcp does not start with the kernel's header line"),
    (_HEAD4 + "   0: 0100007F:0CEA\n", _HEAD6, "node_state: line 2 of /proc/net/tcp is not a socket line"),
    (_HEAD4, "garbage\n", "node_state: /proc/net/tcp6 does not start with the kernel's header line"),
])
def test_a_table_that_cannot_be_read_fails_never_reads_as_nothing_listens(run_main, commands, monkeypatch, tmp_path,
                                                                          tcp, tcp6, expected):
    kernel_tables(monkeypatch, tmp_path, tcp, tcp6)
    result = run_main(module, {"listen_ports": [3306]})
    assert result["failed"] is True and result["msg"].startswith(expected.replace("%s", str(tmp_path / "tcp")))


def test_an_unreadable_table_fails_with_the_reason(run_main, commands, monkeypatch, tmp_path):
    kernel_tables(monkeypatch, tmp_path, None, None)
    (tmp_path / "tcp").mkdir()  # open() of a directory: IsADirectoryError, an OSError
    result = run_main(module, {"listen_ports": [5555]})
    assert result["failed"] is True
    assert result["msg"].startswith("node_state: reading %s to tell who listens on ports 5555 failed: "
                                    % (tmp_path / "tcp"))


def test_this_machines_own_tables_are_read(run_main, commands):
    """The real /proc/net/tcp of the machine running the tests: read and parsed without a failure."""
    result = run_main(module, {"listen_ports": [1, 65535]})
    assert "failed" not in result and set(result["listeners"]) == {"1", "65535"}


@pytest.mark.parametrize("port", [0, 65536, -1])
def test_a_port_outside_1_65535_is_refused(run_main, commands, port):
    result = run_main(module, {"listen_ports": [3306, port]})
    assert result["failed"] is True
    assert result["msg"] == "node_state: refusing to read: listen_ports[1]: %r is not allowed; expected a TCP port " \
                            "1-65535" % port


def test_os_read_as_setup_names_it_and_set_as_facts(run_main, commands):
    result = run_main(module, {"os": True})
    facts = result["ansible_facts"]
    assert facts == result["os"]
    with open("/proc/sys/kernel/osrelease", encoding="ascii") as handle:
        assert facts["kernel"] == handle.read().strip()
    assert facts["architecture"] == os.uname().machine and facts["distribution"]
    # slurm's CPUs= and RealMemory= check reads them: no setup run for them
    assert facts["processor_vcpus"] == os.cpu_count() and facts["memtotal_mb"] > 0
    assert commands.calls == []  # files only, no program


def test_no_os_no_facts(run_main, commands):
    result = run_main(module, {})
    assert result["os"] == {} and "ansible_facts" not in result and result["interfaces"] == {}


def test_addresses_from_ip(run_main, commands):
    commands.answers["ip"] = (0, recorded("node", "ip-j-addr.debian12.json"), "")
    result = run_main(module, {"addresses": True})
    assert commands.calls == [["/usr/bin/ip", "-j", "addr", "show"]]
    assert result["interfaces"]["eth0"]["ipv4"] == [{"address": "192.0.2.2", "prefix": 24, "scope": "global"}]
    commands.answers["ip"] = (1, "", "Cannot open netlink socket")
    failed = run_main(module, {"addresses": True})
    assert failed["failed"] is True and "ip -j addr show failed (exit 1): Cannot open netlink socket" in failed["msg"]


def test_contents_of_small_files_and_a_large_one_fails(run_main, commands, tmp_path):
    (tmp_path / "small").write_text("DAEMON_OPTS=\"-F 1\"\n")
    (tmp_path / "large").write_bytes(b"x" * 100)
    result = run_main(module, {"contents": [str(tmp_path / "small"), str(tmp_path / "none")], "contents_limit": 50})
    assert result["contents"] == {str(tmp_path / "small"): {"exists": True, "size": 19, "encoding": "text",
                                                            "content": "DAEMON_OPTS=\"-F 1\"\n"},
                                  str(tmp_path / "none"): {"exists": False}}
    failed = run_main(module, {"contents": [str(tmp_path / "large")], "contents_limit": 50})
    assert failed["failed"] is True and "holds more than 50 bytes" in failed["msg"]


def test_unit_properties_asked_in_the_same_systemctl_call(run_main, commands):
    commands.answers["systemctl"] = (0, "LoadState=loaded\nActiveState=active\nSubState=running\n"
                                        "UnitFileState=enabled\nFragmentPath=/lib/systemd/system/chrony.service\n", "")
    result = run_main(module, {"units": ["chrony"], "unit_properties": ["FragmentPath"]})
    assert commands.calls == [["/usr/bin/systemctl", "show",
                               "--property=LoadState,ActiveState,SubState,UnitFileState,FragmentPath", "--", "chrony"]]
    assert result["units"]["chrony"]["properties"] == {"FragmentPath": "/lib/systemd/system/chrony.service"}


def test_blocks_say_whether_the_block_is_there_and_its_hash(run_main, commands, tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n# BEGIN c\n10.0.0.1 gpu01\n10.0.0.2 gpu02\n# END c\n")
    (tmp_path / "plain").write_text("no markers\n")
    result = run_main(module, {"blocks": [{"path": str(hosts), "marker": "# {mark} c"},
                                          {"path": str(tmp_path / "plain"), "marker": "# {mark} c"},
                                          {"path": str(tmp_path / "none")}]})
    assert result["blocks"] == {
        str(hosts): {"exists": True, "found": True, "sha256": _sha256("10.0.0.1 gpu01\n10.0.0.2 gpu02")},
        str(tmp_path / "plain"): {"exists": True, "found": False},
        str(tmp_path / "none"): {"exists": False, "found": False}}


@pytest.mark.parametrize("args, said", [
    ({"unit_properties": ["exec-start"]}, "unit_properties[0]: 'exec-start' is not allowed"),
    ({"contents": ["relative"]}, "contents[0]"),
    ({"contents_limit": 0}, "contents_limit: 0 is not allowed"),
    ({"contents_limit": 2 << 20}, "expected 1 to 1048576 bytes"),
    ({"blocks": [{"path": "/etc/hosts"}, {"path": "/etc/hosts"}]}, "blocks[1]: /etc/hosts is listed twice"),
    ({"blocks": [{"path": "/etc/hosts", "marker": "# none"}]}, "blocks[0]: marker must hold {mark} once"),
])
def test_new_arguments_are_refused_before_anything_is_read(run_main, commands, args, said):
    result = run_main(module, args)
    assert result["failed"] is True and said in result["msg"] and commands.calls == []


# What the rdma role reads in its one call: systemd's default memlock, the pam_limits drop-ins' lines, the vendor
# packages by pattern and the HCA ports from sysfs.
def test_manager_properties_glob_contents_package_patterns_and_rdma(run_main, commands, monkeypatch, tmp_path):
    import fake_rdma_sysfs as sysfs_tree
    monkeypatch.setattr(module, "_SYSFS_ROOT", sysfs_tree.h100_ndr(tmp_path))
    limits = tmp_path / "limits.d"
    limits.mkdir()
    (limits / "90-gpufleet.conf").write_text("* soft memlock unlimited\n", encoding="utf-8")
    commands.answers["systemctl"] = (0, "DefaultLimitMEMLOCK=8388608\nDefaultLimitMEMLOCKSoft=8388608\n", "")
    commands.answers["dpkg-query"] = (1, "opensm installed 3.3.24-1\ndoca-ofed installed 2.9.1-1\n"
                                         "doca-extra config-files 2.9.1-1\n",
                                      "dpkg-query: no packages found matching mlnx-ofed-*\n")
    result = run_main(module, {"packages": ["opensm", "rdma-core"], "package_patterns": ["doca-*", "mlnx-ofed-*"],
                               "manager_properties": ["DefaultLimitMEMLOCK", "DefaultLimitMEMLOCKSoft"],
                               "glob_contents": [str(limits / "*.conf"), str(tmp_path / "none" / "*.conf")],
                               "rdma": True})
    assert result["packages"] == {"opensm": "3.3.24-1", "doca-ofed": "2.9.1-1"}
    assert result["manager"] == {"DefaultLimitMEMLOCK": "8388608", "DefaultLimitMEMLOCKSoft": "8388608"}
    assert result["glob_contents"] == {
        str(limits / "*.conf"): {str(limits / "90-gpufleet.conf"): {
            "exists": True, "size": 25, "encoding": "text", "content": "* soft memlock unlimited\n"}},
        str(tmp_path / "none" / "*.conf"): {}}
    assert result["rdma"]["msg"] == "9 RDMA device(s), 9 port(s): 9 ACTIVE (Ethernet 1, InfiniBand 8)"
    assert {(p["device"], p["port"], p["state"], p["rate_gbps"], p["link_layer"]) for p in result["rdma"]["ports"]
            if p["device"] == "mlx5_0"} == {("mlx5_0", 1, "ACTIVE", 400, "InfiniBand")}
    assert commands.calls == [
        ["/usr/bin/dpkg-query", "--show", "--showformat=" + module._DPKG_FORMAT, "opensm", "rdma-core", "doca-*",
         "mlnx-ofed-*"],
        ["/usr/bin/systemctl", "show", "--property=DefaultLimitMEMLOCK,DefaultLimitMEMLOCKSoft"]]


def test_without_rdma_nothing_of_sysfs_is_read(run_main, commands, monkeypatch):
    monkeypatch.setattr(module, "_SYSFS_ROOT", "/nonexistent-sysfs")
    result = run_main(module, {})
    assert result["rdma"] == {} and result["manager"] == {} and result["glob_contents"] == {}


@pytest.mark.parametrize("answer, expected", [
    ((1, "", "Failed to connect to bus: No such file or directory\n"),
     "node_state: systemctl show --property=DefaultLimitMEMLOCK,DefaultLimitMEMLOCKSoft failed (exit 1): Failed to "
     "connect to bus"),
    ((0, "DefaultLimitMEMLOCK=65536\n", ""), "printed no DefaultLimitMEMLOCKSoft for the systemd manager"),
])
def test_a_manager_read_that_fails_fails_the_module(run_main, commands, answer, expected):
    commands.answers["systemctl"] = answer
    result = run_main(module, {"manager_properties": ["DefaultLimitMEMLOCK", "DefaultLimitMEMLOCKSoft"]})
    assert result["failed"] is True and expected in result["msg"]


def test_a_match_that_cannot_be_read_fails_the_module(run_main, commands, tmp_path):
    os.symlink("loop.conf", str(tmp_path / "loop.conf"))  # stat fails with ELOOP
    result = run_main(module, {"glob_contents": [str(tmp_path / "*.conf")]})
    assert result["failed"] is True
    assert result["msg"].startswith("node_state: reading the files %s match failed: " % (tmp_path / "*.conf"))


@pytest.mark.parametrize("args, field", [
    ({"package_patterns": ["doca-*; rm -rf /"]}, "package_patterns[0]"),
    ({"package_patterns": ["-doca"]}, "package_patterns[0]"),
    ({"manager_properties": ["defaultLimitMEMLOCK"]}, "manager_properties[0]"),
    ({"glob_contents": ["limits.d/*.conf"]}, "glob_contents[0]"),
    ({"glob_contents": ["/etc/security/../shadow*"]}, "glob_contents[0]"),
])
def test_refuses_a_pattern_or_property_that_is_not_one(run_main, commands, args, field):
    result = run_main(module, args)
    assert result["failed"] is True and result["msg"].startswith("node_state: refusing to read: " + field)
    assert commands.calls == []


@pytest.mark.parametrize("asked", [{"units": ["munge"]}, {"manager_properties": ["DefaultLimitMEMLOCK"]}])
def test_a_host_without_systemd_fails_by_default_and_is_reported_when_asked(run_main, commands, monkeypatch,
                                                                            tmp_path, asked):
    monkeypatch.setattr(module, "_SYSTEMD_RUN_DIR", str(tmp_path / "run-systemd-system"))
    failed = run_main(module, dict(asked))
    assert failed["failed"] is True
    assert "does not run systemd as its init (no %s)" % (tmp_path / "run-systemd-system") in failed["msg"]
    reported = run_main(module, dict(asked, systemd_absent="report", paths=[str(tmp_path)]))
    assert reported["systemd"] is False and reported["units"] == {} and reported["manager"] == {}
    assert reported["paths"][str(tmp_path)]["exists"] is True  # the other reads still run
    assert commands.calls == []  # systemctl was never asked


def test_systemd_is_reported_on_a_host_that_runs_it(run_main, commands):
    commands.answers["systemctl"] = (0, HEAD_UNITS, "")
    result = run_main(module, {"units": ["munge", "mariadb", "slurmdbd", "slurmctld", "slurmd"],
                               "systemd_absent": "report"})
    assert result["systemd"] is True and result["units"]["munge"]["active"] == "active"
