# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.config_files: several files in one call, each written only when it differs."""
import grp
import os
import pwd
import stat

import pytest
from ansible_collections.gpufleet.cluster.plugins.modules import config_files as module
from hypothesis import given, settings
from hypothesis import strategies as st

from module_results import assert_options_match_spec, run_module_main

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def spec(path, content, mode="0644", **extra):
    return dict({"dest": str(path), "content": content, "owner": ME, "group": MY_GROUP, "mode": mode}, **extra)


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_docs_match_the_argument_spec():
    doc = assert_options_match_spec(module)
    suboptions = doc["options"]["files"]["suboptions"]
    assert set(suboptions) == set(module.ARGUMENT_SPEC["files"]["options"])
    for name, sub in module.ARGUMENT_SPEC["files"]["options"].items():
        assert suboptions[name]["type"] == sub["type"], name
        assert suboptions[name].get("default") == sub.get("default"), name
    assert doc["attributes"]["check_mode"]["support"] == "full"


def test_writes_new_files_then_changes_nothing(run_main, tmp_path):
    files = [spec(tmp_path / "a.conf", "A=1\n"), spec(tmp_path / "b.conf", "B=2\n", mode="0600")]
    first = run_main(module, {"files": files})
    assert first["changed"] is True
    assert first["changed_files"] == [str(tmp_path / "a.conf"), str(tmp_path / "b.conf")]
    assert [f["created"] for f in first["files"]] == [True, True]
    assert (tmp_path / "a.conf").read_text() == "A=1\n" and mode_of(tmp_path / "b.conf") == 0o600
    second = run_main(module, {"files": files})
    assert second["changed"] is False and second["changed_files"] == []
    assert second["diff"] == []


def test_only_the_file_that_differs_is_written(run_main, tmp_path):
    (tmp_path / "a.conf").write_text("A=1\n")
    (tmp_path / "b.conf").write_text("B=old\n")
    os.chmod(tmp_path / "a.conf", 0o644)
    os.chmod(tmp_path / "b.conf", 0o644)
    inode_a = os.stat(tmp_path / "a.conf").st_ino
    result = run_main(module, {"files": [spec(tmp_path / "a.conf", "A=1\n"), spec(tmp_path / "b.conf", "B=2\n")],
                               "_ansible_diff": True})
    assert result["changed_files"] == [str(tmp_path / "b.conf")]
    assert os.stat(tmp_path / "a.conf").st_ino == inode_a  # untouched, not rewritten
    assert (tmp_path / "b.conf").read_text() == "B=2\n"
    assert result["diff"] == [{"before_header": str(tmp_path / "b.conf"), "after_header": str(tmp_path / "b.conf"),
                               "before": "B=old\n", "after": "B=2\n"}]
    assert [f["content_changed"] for f in result["files"]] == [False, True]


def test_mode_alone_is_a_change(run_main, tmp_path):
    (tmp_path / "a.conf").write_text("A=1\n")
    os.chmod(tmp_path / "a.conf", 0o666)
    result = run_main(module, {"files": [spec(tmp_path / "a.conf", "A=1\n")]})
    assert result["changed_files"] == [str(tmp_path / "a.conf")]
    assert result["files"][0]["content_changed"] is False
    assert mode_of(tmp_path / "a.conf") == 0o644


def test_check_mode_reports_and_writes_nothing(run_main, tmp_path):
    (tmp_path / "b.conf").write_text("B=old\n")
    os.chmod(tmp_path / "b.conf", 0o640)
    result = run_main(module, {"files": [spec(tmp_path / "a.conf", "A=1\n"), spec(tmp_path / "b.conf", "B=old\n")],
                               "_ansible_check_mode": True, "_ansible_diff": True})
    assert result["changed_files"] == [str(tmp_path / "a.conf"), str(tmp_path / "b.conf")]
    assert not (tmp_path / "a.conf").exists()
    assert mode_of(tmp_path / "b.conf") == 0o640  # the mode change is only reported
    assert result["diff"][0]["before_header"] == f"{tmp_path / 'a.conf'} (absent)"


def test_missing_directory_fails_unless_parents(run_main, tmp_path):
    target = tmp_path / "x" / "y" / "a.conf"
    failed = run_main(module, {"files": [spec(target, "A\n")]})
    assert failed["failed"] is True
    assert f"its directory {tmp_path / 'x' / 'y'} does not exist" in failed["msg"] and "parents: true" in failed["msg"]
    checked = run_main(module, {"files": [spec(target, "A\n")], "_ansible_check_mode": True})
    assert checked["failed"] is True  # check mode does not promise what the real run cannot do
    made = run_main(module, {"files": [spec(target, "A\n", parents=True)]})
    assert made["changed"] is True and target.read_text() == "A\n"
    assert mode_of(tmp_path / "x") == 0o755 and mode_of(tmp_path / "x" / "y") == 0o755


def test_refusals_name_the_file(run_main, tmp_path):
    twice = run_main(module, {"files": [spec(tmp_path / "a", "1"), spec(tmp_path / "a", "2")]})
    assert twice["failed"] is True and "is listed twice" in twice["msg"] and str(tmp_path / "a") in twice["msg"]
    assert not (tmp_path / "a").exists()  # nothing written on bad input
    directory = run_main(module, {"files": [spec(tmp_path, "1")]})
    assert directory["failed"] is True and "it is a directory" in directory["msg"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_text_round_trips_and_second_run_is_idempotent(tmp_path_factory, first, second):
    path = tmp_path_factory.mktemp("cf") / "f.conf"
    one = run_module_main(module, {"files": [spec(path, first)]})
    assert one["changed"] is True and path.read_bytes() == first.encode("utf-8")
    two = run_module_main(module, {"files": [spec(path, second)]})
    assert two["changed"] is (first != second)
    assert path.read_bytes() == second.encode("utf-8")


# ------------------------------------------------------------------ input rules (issue 13)

@pytest.mark.parametrize("field, value, shown", [
    ("dest", "etc/slurm/slurm.conf", "files[0].dest: 'etc/slurm/slurm.conf' is not allowed; expected an absolute path"),
    ("dest", "/etc/slurm/../passwd", "files[0].dest: '/etc/slurm/../passwd' is not allowed"),
    ("dest", "/etc/slurm/slurm.conf\n", "files[0].dest: '/etc/slurm/slurm.conf\\n' is not allowed"),
    ("dest", "/etc/slurm/slurm conf", "files[0].dest: '/etc/slurm/slurm conf' is not allowed"),
    ("mode", "0x644", "files[0].mode: '0x644' is not allowed; expected an octal mode as a string ('0644')"),
    ("mode", "rw-r--r--", "files[0].mode: 'rw-r--r--' is not allowed"),
    ("mode", 0o17777, "files[0].mode: 8191 is not allowed"),
    ("owner", "root\n", "files[0].owner: 'root\\n' is not allowed; expected a user or group name"),
    ("group", "wheel staff", "files[0].group: 'wheel staff' is not allowed"),
])
def test_refuses_bad_paths_owners_and_modes_before_writing(run_main, tmp_path, field, value, shown):
    good = spec(tmp_path / "a.conf", "A=1\n")
    good[field] = value if field != "dest" else value.replace("/etc/slurm", str(tmp_path)) if value.startswith("/") else value
    result = run_main(module, {"files": [good]})
    assert result["failed"] is True
    assert result["msg"].startswith("config_files: refusing to write files[0]: ")
    assert shown.replace("/etc/slurm", str(tmp_path)) in result["msg"]
    assert os.listdir(tmp_path) == []


def test_symbolic_and_numeric_modes_still_work(run_main, tmp_path):
    result = run_main(module, {"files": [spec(tmp_path / "a.conf", "A=1\n", mode="u=rw,go=r"),
                                         spec(tmp_path / "b.conf", "B=1\n", mode=0o600)]})
    assert result["changed"] is True
    assert mode_of(tmp_path / "a.conf") == 0o644 and mode_of(tmp_path / "b.conf") == 0o600


def test_an_unreadable_destination_fails_with_what_was_attempted(run_main, tmp_path):
    (tmp_path / "plain").write_text("not a directory\n")
    result = run_main(module, {"files": [spec(tmp_path / "plain" / "a.conf", "A=1\n")]})
    assert result["failed"] is True
    assert result["msg"].startswith("config_files: reading %s to compare it failed: " % (tmp_path / "plain" / "a.conf"))


class WriteWatch:
    """Records, at the first byte written and at the rename, the mode of the file that receives the content, and
    every chmod of a path: a file that held its content at another mode for a moment shows here."""

    def __init__(self, monkeypatch):
        self.at_first_byte = []
        self.at_rename = []
        self.chmods = []
        real_write, real_replace, real_chmod = os.write, os.replace, os.chmod

        def write(fd, data):
            info = os.fstat(fd)
            self.at_first_byte.append((stat.S_IMODE(info.st_mode), info.st_size))
            return real_write(fd, data)

        def replace(src, dst):
            self.at_rename.append((os.path.basename(dst), mode_of(src), open(src, "rb").read()))
            return real_replace(src, dst)

        def chmod(path, *args, **kwargs):
            self.chmods.append(os.fsdecode(path))
            return real_chmod(path, *args, **kwargs)
        monkeypatch.setattr(module.os, "write", write)
        monkeypatch.setattr(module.os, "replace", replace)
        monkeypatch.setattr(module.os, "chmod", chmod)


def run_watched(run_main, monkeypatch, dest, existing_mode, task):
    """Run the module under umask 022 (a new file's mode would be 0644) over dest, made first with existing_mode
    (None: no file), and return what the WriteWatch saw with the result."""
    if existing_mode is not None:
        dest.write_text("StoragePass=old\n")
        os.chmod(dest, existing_mode)
    old_umask = os.umask(0o022)
    try:
        watch = WriteWatch(monkeypatch)
        return watch, run_main(module, task)
    finally:
        os.umask(old_umask)


@pytest.mark.parametrize("existing_mode", [None, 0o644])
def test_a_secret_file_has_its_final_mode_before_its_first_byte(run_main, tmp_path, monkeypatch, existing_mode):
    dest = tmp_path / "slurmdbd.conf"
    watch, result = run_watched(run_main, monkeypatch, dest, existing_mode, {
        "files": [spec(dest, "StoragePass=hunter2hunter2\n", mode="0600", secret=True)], "_ansible_diff": True})
    assert result["changed_files"] == [str(dest)] and mode_of(dest) == 0o600
    # The temporary file was 0600 and empty when the first byte went in, 0600 and whole when renamed over dest,
    # and nothing was chmod'ed afterwards (Ansible's atomic_move would chmod a new file to 0644 first).
    assert watch.at_first_byte == [(0o600, 0)]
    assert watch.at_rename == [("slurmdbd.conf", 0o600, b"StoragePass=hunter2hunter2\n")]
    assert str(dest) not in watch.chmods
    # A secret's diff says that it changed, never what it holds.
    assert "hunter2" not in str(result["diff"]) and "old" not in str(result["diff"])
    assert result["diff"][0]["after"] == "(a secret: its content is not shown)\n"


@pytest.mark.parametrize("mode, existing, expected", [
    ("0640", None, 0o640), (0o400, None, 0o400), ("u=rw,g=r,o=", None, 0o640),
    (None, None, 0o644),         # a new file without a mode: the umask's, as atomic_move gives it
    (None, 0o600, 0o600),        # an existing file without a mode: kept
    ("g+r", 0o600, 0o640),       # symbolic, applied to the existing mode
])
def test_the_final_mode_is_set_before_the_content(run_main, tmp_path, monkeypatch, mode, existing, expected):
    dest = tmp_path / "web-config.yml"
    watch, result = run_watched(run_main, monkeypatch, dest, existing, {"files": [dict(spec(dest, "new\n"), mode=mode)]})
    assert result["changed"] is True and mode_of(dest) == expected
    assert watch.at_first_byte == [(expected, 0)] and watch.at_rename[0][1] == expected


def test_the_owner_and_group_are_set_before_the_content(run_main, tmp_path, monkeypatch):
    seen = []
    real_fchown = os.fchown
    monkeypatch.setattr(module.os, "fchown", lambda fd, uid, gid: (seen.append((os.fstat(fd).st_size, uid, gid)),
                                                                   real_fchown(fd, uid, gid)))
    dest = tmp_path / "f"
    result = run_main(module, {"files": [spec(dest, "x\n", owner=str(os.getuid()), group=str(os.getgid()))]})
    assert result["changed"] is True and os.stat(dest).st_uid == os.getuid()
    assert seen in ([], [(0, os.getuid(), os.getgid())])  # mkstemp's file is already ours: nothing to change


def test_an_owner_the_node_does_not_know_fails_before_a_byte_is_written(run_main, tmp_path):
    dest = tmp_path / "f"
    result = run_main(module, {"files": [spec(dest, "x\n", owner="nosuchuser-gpufleet")]})
    assert result["failed"] is True
    assert result["msg"] == f"config_files: writing {dest} failed: there is no user 'nosuchuser-gpufleet' on this node"
    assert not dest.exists() and os.listdir(tmp_path) == []


# ---------------------------------------------------------------- backup: the previous content is kept, bounded
def test_backup_keeps_the_previous_content_with_its_mode_and_returns_its_name(run_main, tmp_path):
    dest = tmp_path / "slurm.conf"
    dest.write_text("old\n")
    os.chmod(dest, 0o640)
    result = run_main(module, {"files": [spec(dest, "new\n", mode="0640")], "backup": True})
    entry = result["files"][0]
    assert result["changed"] is True and dest.read_text() == "new\n"
    assert entry["backup"] and os.path.dirname(entry["backup"]) == str(tmp_path)
    assert open(entry["backup"]).read() == "old\n" and mode_of(entry["backup"]) == 0o640
    assert module.backups_of(str(dest)) == [entry["backup"]]


def test_a_secret_files_backup_has_its_mode_before_its_first_byte(run_main, tmp_path, monkeypatch):
    # The old copy of a 0600 file holds the old password: it is never readable by others, not even for a moment.
    dest = tmp_path / "slurmdbd.conf"
    watch, result = run_watched(run_main, monkeypatch, dest, 0o600, {
        "files": [spec(dest, "StoragePass=new-secret\n", mode="0600", secret=True)], "backup": True})
    copy = result["files"][0]["backup"]
    assert open(copy).read() == "StoragePass=old\n" and mode_of(copy) == 0o600
    assert watch.at_first_byte == [(0o600, 0), (0o600, 0)]
    assert [name for name, _mode, _data in watch.at_rename] == [os.path.basename(copy), "slurmdbd.conf"]
    assert all(mode == 0o600 for _name, mode, _data in watch.at_rename) and copy not in watch.chmods


def test_backup_makes_no_copy_of_a_new_or_unchanged_file_nor_in_check_mode(run_main, tmp_path):
    dest = tmp_path / "nodes.conf"
    first = run_main(module, {"files": [spec(dest, "a\n")], "backup": True})
    assert first["files"][0]["backup"] is None  # nothing to keep
    again = run_main(module, {"files": [spec(dest, "a\n")], "backup": True})
    assert again["changed"] is False and again["files"][0]["backup"] is None
    check = run_main(module, {"files": [spec(dest, "b\n")], "backup": True, "_ansible_check_mode": True})
    assert check["changed"] is True and check["files"][0]["backup"] is None
    assert module.backups_of(str(dest)) == [] and dest.read_text() == "a\n"


def test_backup_keeps_only_the_newest_copies(run_main, tmp_path):
    dest = tmp_path / "gres.conf"
    dest.write_text("v0\n")
    unrelated = tmp_path / "gres.conf.by-hand.bak"
    unrelated.write_text("mine\n")
    made = []
    for n in range(1, 5):
        result = run_main(module, {"files": [spec(dest, f"v{n}\n")], "backup": True, "backups_kept": 2})
        made.append(result["files"][0]["backup"])
    kept = module.backups_of(str(dest))
    assert kept == made[-2:] and [open(p).read() for p in kept] == ["v2\n", "v3\n"]
    assert unrelated.read_text() == "mine\n"  # only its own dated copies are counted and removed


def test_backups_kept_below_one_is_refused_before_writing(run_main, tmp_path):
    dest = tmp_path / "cgroup.conf"
    dest.write_text("old\n")
    result = run_main(module, {"files": [spec(dest, "new\n")], "backup": True, "backups_kept": 0})
    assert result["failed"] is True and "backups_kept is 0" in result["msg"] and dest.read_text() == "old\n"


MARKER = "# {mark} gpufleet.cluster: cluster hosts"
HOSTS_BEFORE = ("127.0.0.1\tlocalhost\n# BEGIN gpufleet.cluster: cluster hosts\n10.0.0.8        gpu08\n"
                "# END gpufleet.cluster: cluster hosts\n192.0.2.5       printer\n")


def block_spec(path, block, **extra):
    return dict({"dest": str(path), "block": block, "marker": MARKER, "owner": ME, "group": MY_GROUP, "mode": "0644"},
                **extra)


def test_a_block_replaces_its_lines_only_then_changes_nothing(run_main, tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text(HOSTS_BEFORE)
    os.chmod(hosts, 0o644)
    task = {"files": [block_spec(hosts, "10.0.0.1        gpu01\n10.0.0.2        gpu02")], "_ansible_diff": True}
    first = run_main(module, task)
    assert first["changed_files"] == [str(hosts)] and first["files"][0]["content_changed"] is True
    assert hosts.read_text() == ("127.0.0.1\tlocalhost\n# BEGIN gpufleet.cluster: cluster hosts\n10.0.0.1        gpu01\n"
                                 "10.0.0.2        gpu02\n# END gpufleet.cluster: cluster hosts\n192.0.2.5       printer\n")
    assert first["diff"][0]["before"] == HOSTS_BEFORE and "gpu02" in first["diff"][0]["after"]
    second = run_main(module, task)
    assert second["changed"] is False and second["diff"] == []


def test_a_block_in_check_mode_is_reported_with_its_diff_and_not_written(run_main, tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text(HOSTS_BEFORE)
    result = run_main(module, {"files": [block_spec(hosts, "10.0.0.1        gpu01")], "_ansible_check_mode": True,
                               "_ansible_diff": True})
    assert result["changed_files"] == [str(hosts)] and hosts.read_text() == HOSTS_BEFORE
    assert "10.0.0.1        gpu01\n# END" in result["diff"][0]["after"]


def test_a_block_creates_a_missing_file_and_an_empty_block_removes_it_again(run_main, tmp_path):
    target = tmp_path / "new"
    made = run_main(module, {"files": [block_spec(target, "x=1")]})
    assert made["files"][0]["created"] is True
    assert target.read_text() == "# BEGIN gpufleet.cluster: cluster hosts\nx=1\n# END gpufleet.cluster: cluster hosts\n"
    emptied = run_main(module, {"files": [block_spec(target, "")]})
    assert emptied["changed"] is True and target.read_text() == ""


def test_a_file_whose_markers_do_not_pair_up_is_left_as_it_is(run_main, tmp_path):
    hosts = tmp_path / "hosts"
    broken = "# BEGIN gpufleet.cluster: cluster hosts\n10.0.0.1 gpu01\n"
    hosts.write_text(broken)
    result = run_main(module, {"files": [block_spec(hosts, "x")]})
    assert result["failed"] is True and "markers do not pair up" in result["msg"] and str(hosts) in result["msg"]
    assert hosts.read_text() == broken


def test_absent_removes_a_file_and_is_a_change_only_where_it_existed(run_main, tmp_path):
    gone = tmp_path / "old.conf"
    gone.write_text("old\n")
    task = {"files": [{"dest": str(gone), "state": "absent"}, spec(tmp_path / "kept.conf", "k\n")],
            "_ansible_diff": True}
    checked = run_main(module, dict(task, _ansible_check_mode=True))
    assert checked["changed_files"] == [str(gone), str(tmp_path / "kept.conf")] and gone.exists()
    first = run_main(module, task)
    assert not gone.exists() and first["files"][0]["removed"] is True
    assert first["diff"][0] == {"before_header": str(gone), "after_header": f"{gone} (absent)", "before": "old\n",
                                "after": ""}
    second = run_main(module, task)
    assert second["changed"] is False and second["files"][0]["removed"] is False


def test_a_secret_removed_shows_no_content(run_main, tmp_path):
    gone = tmp_path / "key"
    gone.write_text("s3cret\n")
    result = run_main(module, {"files": [{"dest": str(gone), "state": "absent", "secret": True}],
                               "_ansible_diff": True})
    assert "s3cret" not in str(result) and not gone.exists()


@pytest.mark.parametrize("entry, said", [
    ({"state": "absent", "content": "x"}, "state absent removes the file, so it takes no content"),
    ({"content": "x", "block": "y"}, "give its content or its block (one of them), got content and block"),
    ({}, "got neither"),
    ({"block": "y", "marker": "# no mark"}, "marker must hold {mark} once"),
])
def test_an_entry_that_is_neither_a_file_a_block_nor_a_removal_is_refused(run_main, tmp_path, entry, said):
    result = run_main(module, {"files": [dict({"dest": str(tmp_path / "f")}, **entry)]})
    assert result["failed"] is True and said in result["msg"] and "files[0]" in result["msg"]
    assert not (tmp_path / "f").exists()


def test_absent_refuses_a_directory(run_main, tmp_path):
    result = run_main(module, {"files": [{"dest": str(tmp_path), "state": "absent"}]})
    assert result["failed"] is True and "it is a directory" in result["msg"] and tmp_path.is_dir()
