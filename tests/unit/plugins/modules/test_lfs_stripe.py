# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.lfs_stripe through main() with run_command answering as lfs would."""
from __future__ import annotations

import os
import sys

import pytest
import yaml

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import pfl_layout
from ansible_collections.gpufleet.cluster.plugins.modules import lfs_stripe as module

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from module_results import assert_options_match_spec  # noqa: E402  pylint: disable=wrong-import-position
from reference import outputs  # noqa: E402  pylint: disable=wrong-import-position

_LUSTRE = outputs("lustre")
LFS = "/opt/lustre/bin/lfs"
PLAIN_1M = "getstripe-d-dir-plain.lustre-manual.txt"  # 2.10: "stripe_count:  1 stripe_size:   1048576 ..."
PFL_DIR = "getstripe-dir-default-pfl.lustre-manual.txt"  # 256M: 1 x 1M, 16G: 4 x 1M, EOF: all x 4M
# SYNTHETIC outputs below (UNSET, PFL_YAML, the read-backs after setstripe and --raw lines in the tests): tests/fixtures/reference has no
# recording of these formats (its README, "What is not here": no composite layout printed with --yaml, no real
# 'lfs getstripe -d' of a modern directory default). They are written from liblustreapi's printf formats
# (lov_dump_user_lmm_header / lov_dump_comp_v1_entry), as lfs 2.12+ prints them; the recorded outputs
# (_reference) are used wherever a recording of the format exists.
# SYNTHETIC: a directory with no default layout of its own ('pattern: 0', the file system default).
UNSET = "stripe_count:  1 stripe_size:   1048576 pattern:       0 stripe_offset: -1\n\n"
# SYNTHETIC: lfs 2.12+ 'getstripe -d --yaml' of a directory with a 3-component default.
PFL_YAML = """  lcm_layout_gen:    0
  lcm_mirror_count:  1
  lcm_entry_count:   3
  component0:
    lcme_id:             N/A
    lcme_mirror_id:      N/A
    lcme_flags:          0
    lcme_extent.e_start: 0
    lcme_extent.e_end:   67108864
    sub_layout:
      stripe_count:  1
      stripe_size:   1048576
      pattern:       raid0
      stripe_offset: -1

  component1:
    lcme_id:             N/A
    lcme_mirror_id:      N/A
    lcme_flags:          0
    lcme_extent.e_start: 67108864
    lcme_extent.e_end:   1073741824
    sub_layout:
      stripe_count:  4
      stripe_size:   1048576
      pattern:       raid0
      stripe_offset: -1

  component2:
    lcme_id:             N/A
    lcme_mirror_id:      N/A
    lcme_flags:          0
    lcme_extent.e_start: 1073741824
    lcme_extent.e_end:   EOF
    sub_layout:
      stripe_count:  8
      stripe_size:   4194304
      pattern:       raid0
      stripe_offset: -1

"""
# what lustre_pfl_layout gives for p50 10 MiB / p90 500 MB on 8 OSTs: the same three components
FILTER_COMPONENTS = pfl_layout({"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 53687091200},
                               8)["components"]


def _reference(name):
    with open(os.path.join(_LUSTRE, name)) as handle:
        return handle.read()


class FakeLfs:
    """Answers run_command: getstripe prints self.layout, setstripe sets self.layout to self.after."""

    def __init__(self, layout, after=None, yaml_ok=True, setstripe_rc=0):
        self.layout, self.after, self.yaml_ok, self.setstripe_rc = layout, after, yaml_ok, setstripe_rc
        self.calls = []
        self.raw = None

    def __call__(self, _module, argv, **_kwargs):
        self.calls.append(list(argv))
        if argv[1] == "getstripe":
            if "--yaml" in argv and not self.yaml_ok:
                return 1, "", "lfs getstripe: unrecognized option '--yaml'\nusage: getstripe ...\n"
            if "--raw" in argv:
                return 0, self.raw, ""
            if self.layout is None:
                return 25, "", ("lfs getstripe: '%s' not on a Lustre fs?: Inappropriate ioctl for device (25)\n"
                                "error: getstripe failed for %s.\n" % (argv[-1], argv[-1]))
            return 0, self.layout, ""
        if self.setstripe_rc:
            return self.setstripe_rc, "", "lfs setstripe: cannot find pool 'flash'\n"
        if self.after is not None:
            self.layout = self.after
        return 0, "", ""

    def setstripes(self):
        return [c for c in self.calls if c[1] == "setstripe"]


@pytest.fixture
def lfs(monkeypatch):
    def _install(*args, **kwargs):
        fake = FakeLfs(*args, **kwargs)

        def run_command(self, argv, **kw):  # a method, so AnsibleModule passes itself as the fake expects
            return fake(self, argv, **kw)
        monkeypatch.setattr(module.AnsibleModule, "run_command", run_command)
        return fake
    return _install


@pytest.fixture
def task(tmp_path):
    directory = tmp_path / "ckpt"
    directory.mkdir()
    return {"path": str(directory), "lfs_command": LFS}


def test_already_right_is_not_changed(run_main, lfs, task):
    fake = lfs(_reference(PFL_DIR))
    comps = [{"end": "256M", "stripe_count": 1, "stripe_size": "1M"},
             {"end": "16G", "stripe_count": 4, "stripe_size": "1M"},
             {"end": "eof", "stripe_count": -1, "stripe_size": "4M"}]
    result = run_main(module, dict(task, components=comps, _ansible_diff=True))
    assert result["changed"] is False and result["command"] == []
    assert fake.calls == [[LFS, "getstripe", "-d", "--yaml", task["path"]]] and fake.setstripes() == []
    assert result["diff"]["before"] == result["diff"]["after"] == "0-256M: 1 x 1M\n256M-16G: 4 x 1M\n16G-EOF: all x 4M\n"
    assert result["layout"] == result["desired"]


def test_filter_components_match_a_yaml_reading(run_main, lfs, task):
    fake = lfs(PFL_YAML)
    result = run_main(module, dict(task, components=FILTER_COMPONENTS))
    assert result["changed"] is False and fake.setstripes() == []
    assert [c["end"] for c in result["layout"]["components"]] == [67108864, 1073741824, -1]


def test_plain_to_pfl_runs_setstripe_and_reads_back(run_main, lfs, task):
    fake = lfs(_reference(PLAIN_1M), after=PFL_YAML)
    result = run_main(module, dict(task, components=FILTER_COMPONENTS, _ansible_diff=True))
    argv = [LFS, "setstripe", "-E", "64M", "-c", "1", "-S", "1M", "-E", "1G", "-c", "4", "-S", "1M",
            "-E", "-1", "-c", "8", "-S", "4M", task["path"]]
    assert result["changed"] is True and result["command"] == argv
    # read, set (no 'setstripe -d' first: a new default replaces the old), read back
    assert fake.calls == [[LFS, "getstripe", "-d", "--yaml", task["path"]], argv,
                          [LFS, "getstripe", "-d", "--yaml", task["path"]]]
    assert result["diff"] == {"before": "0-EOF: 1 x 1M\n", "after": "0-64M: 1 x 1M\n64M-1G: 4 x 1M\n1G-EOF: 8 x 4M\n"}
    assert result["layout"]["is_set"] is True and len(result["layout"]["components"]) == 3


def test_plain_layout_with_pool(run_main, lfs, task):
    # SYNTHETIC read-back: a plain directory default with a pool in lfs 2.12+'s -d format (none recorded).
    after = "stripe_count:  8 stripe_size:   4194304 pattern:       raid0 stripe_offset: -1 pool:          flash\n\n"
    fake = lfs(_reference(PFL_DIR), after=after)
    result = run_main(module, dict(task, stripe_count=8, stripe_size="4194304", pool="flash", _ansible_diff=True))
    assert fake.setstripes() == [[LFS, "setstripe", "-c", "8", "-S", "4M", "-p", "flash", task["path"]]]
    assert result["changed"] is True and result["diff"]["after"] == "0-EOF: 8 x 4M pool flash\n"
    assert result["layout"]["components"][0]["pool"] == "flash"


def test_directory_without_own_layout_gets_one(run_main, lfs, task):
    # the numbers equal the file system default (1 x 1M) but the directory has no layout of its own
    fake = lfs(UNSET, after="stripe_count:  1 stripe_size:   1048576 pattern:       raid0 stripe_offset: -1\n")
    result = run_main(module, dict(task, stripe_count=1, stripe_size="1M", _ansible_diff=True))
    assert result["changed"] is True and fake.setstripes() == [[LFS, "setstripe", "-c", "1", "-S", "1M",
                                                                task["path"]]]
    assert result["diff"]["before"] == "(no default layout; the file system default applies: 0-EOF: 1 x 1M)\n"


def test_check_mode_never_calls_setstripe(run_main, lfs, task):
    fake = lfs(_reference(PLAIN_1M), after=PFL_YAML)
    result = run_main(module, dict(task, stripe_count=-1, stripe_size="4M", _ansible_check_mode=True,
                                   _ansible_diff=True))
    assert result["changed"] is True and fake.setstripes() == []
    assert result["command"] == [LFS, "setstripe", "-c", "-1", "-S", "4M", task["path"]]
    assert result["diff"] == {"before": "0-EOF: 1 x 1M\n", "after": "0-EOF: all x 4M\n"}
    assert result["layout"]["components"][0]["stripe_count"] == 1  # unchanged: nothing was run


def test_state_absent_removes_and_is_idempotent(run_main, lfs, task):
    fake = lfs(PFL_YAML, after=UNSET)
    result = run_main(module, dict(task, state="absent", _ansible_diff=True))
    assert result["changed"] is True and result["command"] == [LFS, "setstripe", "-d", task["path"]]
    assert fake.setstripes() == [[LFS, "setstripe", "-d", task["path"]]]
    assert result["layout"]["is_set"] is False and result["desired"]["components"] == []
    again = run_main(module, dict(task, state="absent"))
    assert again["changed"] is False and again["command"] == [] and len(fake.setstripes()) == 1


def test_state_absent_on_an_old_client_asks_raw(run_main, lfs, task):
    # 2.10 prints no pattern for a directory: --raw shows 0 / 0 / -1 when nothing is stored
    # (the -d output is the recording; the two --raw lines are SYNTHETIC, none is recorded)
    fake = lfs(_reference(PLAIN_1M), yaml_ok=False)
    fake.raw = "stripe_count:  0 stripe_size:   0 stripe_offset: -1\n"
    result = run_main(module, dict(task, state="absent", _ansible_check_mode=True))
    assert result["changed"] is False
    assert fake.calls[-1] == [LFS, "getstripe", "-d", "--raw", task["path"]]
    fake.raw = "stripe_count:  4 stripe_size:   0 stripe_offset: -1\n"  # someone ran 'lfs setstripe -c 4'
    assert run_main(module, dict(task, state="absent", _ansible_check_mode=True))["changed"] is True


def test_old_lfs_without_yaml_falls_back_to_plain(run_main, lfs, task):
    fake = lfs(_reference(PFL_DIR), yaml_ok=False)
    result = run_main(module, dict(task, components=[{"end": "256M", "stripe_count": 1, "stripe_size": "1M"},
                                                     {"end": "16G", "stripe_count": 4, "stripe_size": "1M"},
                                                     {"end": -1, "stripe_count": -1, "stripe_size": "4M"}]))
    assert fake.calls == [[LFS, "getstripe", "-d", "--yaml", task["path"]], [LFS, "getstripe", "-d", task["path"]]]
    assert result["changed"] is False


def test_read_back_mismatch_fails(run_main, lfs, task):
    fake = lfs(_reference(PLAIN_1M), after=None)  # setstripe "succeeds" but nothing changes
    result = run_main(module, dict(task, stripe_count=4, stripe_size="1M"))
    assert result["failed"] is True and len(fake.setstripes()) == 1
    assert result["msg"] == ("lfs setstripe succeeded but the directory reads back as 0-EOF: 1 x 1M (wanted "
                             "0-EOF: 4 x 1M: component 0 stripe_count 1 instead of 4)")
    assert result["command"] == [LFS, "setstripe", "-c", "4", "-S", "1M", task["path"]]


def test_setstripe_error_is_reported(run_main, lfs, task):
    lfs(_reference(PLAIN_1M), setstripe_rc=22)
    result = run_main(module, dict(task, stripe_count=4, stripe_size="1M", pool="flash"))
    assert result["failed"] is True
    assert result["msg"] == ("setting the default layout of %s: %s setstripe -c 4 -S 1M -p flash %s exited with "
                             "status 22: lfs setstripe: cannot find pool 'flash'" % (task["path"], LFS, task["path"]))


@pytest.mark.parametrize("extra,why", [
    ({"stripe_count": 4, "stripe_size": "1000K"}, "stripe_size 1024000 bytes is not a multiple of 64 KiB"),
    ({"stripe_count": 0, "stripe_size": "1M"}, "stripe_count is 0"),
    ({"stripe_count": -3, "stripe_size": "1M"}, "stripe_count is -3; lfs accepts -1"),
    ({"stripe_count": 2048, "stripe_size": "1M"}, "stripe_count is 2048, above Lustre's limit of 2000"),
    ({"components": [{"end": "1G", "stripe_count": 1, "stripe_size": "1M"},
                     {"end": "64M", "stripe_count": 4, "stripe_size": "1M"},
                     {"end": "eof", "stripe_count": 8, "stripe_size": "4M"}]}, "extent ends must increase"),
    ({"components": [{"end": "64M", "stripe_count": 1, "stripe_size": "1M"}]}, "not at eof"),
    ({"components": [{"end": "10M", "stripe_count": 1, "stripe_size": "4M"},
                     {"end": "eof", "stripe_count": 8, "stripe_size": "4M"}]}, "is not a multiple of its stripe_size"),
    ({}, "a plain layout needs both stripe_count and stripe_size (got neither); or give components"),
    ({"state": "absent", "stripe_count": 1, "stripe_size": "1M"}, "state=absent removes the default layout; drop "
                                                                  "stripe_count, stripe_size"),
])
def test_bad_input_is_refused_before_running_lfs(run_main, lfs, task, extra, why):
    fake = lfs(_reference(PLAIN_1M))
    result = run_main(module, dict(task, **extra))
    assert result["failed"] is True and why in result["msg"] and fake.calls == []
    assert result["msg"].startswith("desired layout for %s: " % task["path"])


def test_pool_with_components_applies_to_each(run_main, lfs, task):
    # the lustre_client role passes {components, pool}: every component goes to the pool
    fake = lfs(PFL_YAML)
    result = run_main(module, dict(task, components=FILTER_COMPONENTS, pool="nvme", _ansible_check_mode=True))
    assert result["changed"] is True and fake.setstripes() == []
    assert result["command"] == [LFS, "setstripe", "-E", "64M", "-c", "1", "-S", "1M", "-p", "nvme",
                                 "-E", "1G", "-c", "4", "-S", "1M", "-p", "nvme",
                                 "-E", "-1", "-c", "8", "-S", "4M", "-p", "nvme", task["path"]]


def test_ansible_refuses_mixed_options(run_main, lfs, task):
    lfs(_reference(PLAIN_1M))
    result = run_main(module, dict(task, stripe_count=1, stripe_size="1M", components=FILTER_COMPONENTS))
    assert result["failed"] is True and "mutually exclusive" in result["msg"]
    assert "stripe_size" in run_main(module, dict(task, stripe_count=1))["msg"]  # required together


def test_path_must_be_an_existing_directory_on_lustre(run_main, lfs, task, tmp_path):
    fake = lfs(None)
    missing = run_main(module, dict(task, path=str(tmp_path / "nope"), stripe_count=1, stripe_size="1M"))
    assert missing["failed"] is True and missing["msg"].startswith("%s does not exist" % (tmp_path / "nope"))
    assert missing["msg"].endswith("create it first (ansible.builtin.file state=directory)")
    (tmp_path / "file").write_text("x")
    not_dir = run_main(module, dict(task, path=str(tmp_path / "file"), stripe_count=1, stripe_size="1M"))
    assert not_dir["msg"].startswith("%s is not a directory" % (tmp_path / "file"))
    assert fake.calls == []
    not_lustre = run_main(module, dict(task, stripe_count=1, stripe_size="1M"))
    assert not_lustre["msg"].startswith("%s is not on a Lustre file system: %s getstripe -d --yaml %s exited with "
                                        "status 25: lfs getstripe: '%s' not on a Lustre fs?"
                                        % (task["path"], LFS, task["path"], task["path"]))


def test_lfs_not_installed(run_main, lfs, task, monkeypatch):
    lfs(_reference(PLAIN_1M))
    monkeypatch.setattr(module.AnsibleModule, "get_bin_path", lambda *a, **k: None)
    result = run_main(module, dict(task, lfs_command="lfs", stripe_count=1, stripe_size="1M"))
    assert result["failed"] is True and result["msg"].startswith("the lfs command 'lfs' is not in PATH")


def test_documentation_matches_argument_spec():
    doc = assert_options_match_spec(module)
    assert doc["options"]["state"]["choices"] == module.ARGUMENT_SPEC["state"]["choices"]
    assert doc["attributes"]["check_mode"]["support"] == "full" and doc["attributes"]["diff_mode"]["support"] == "full"
    assert set(yaml.safe_load(module.RETURN)) == {"layout", "desired", "diff", "command"}
    assert doc["options"]["path"].get("required") is True


def test_check_mode_missing_directory_would_be_created_then_set(run_main, lfs, task, tmp_path):
    # A fresh node in check mode: the role's file task would create the directory, so it is not there yet.
    fake = lfs(_reference(PLAIN_1M))
    path = str(tmp_path / "new")
    result = run_main(module, dict(task, path=path, components=FILTER_COMPONENTS, _ansible_check_mode=True,
                                   _ansible_diff=True))
    assert result.get("failed") is not True and result["changed"] is True
    assert result["diff"] == {"before": "(absent)\n", "after": "0-64M: 1 x 1M\n64M-1G: 4 x 1M\n1G-EOF: 8 x 4M\n"}
    assert result["command"] == [LFS, "setstripe", "-E", "64M", "-c", "1", "-S", "1M", "-E", "1G", "-c", "4",
                                 "-S", "1M", "-E", "-1", "-c", "8", "-S", "4M", path]
    assert result["layout"] is None and len(result["desired"]["components"]) == 3
    assert fake.calls == []  # nothing to read, nothing run
    assert not os.path.exists(path)


def test_check_mode_missing_directory_with_state_absent_is_unchanged(run_main, lfs, task, tmp_path):
    fake = lfs(_reference(PLAIN_1M))
    result = run_main(module, dict(task, path=str(tmp_path / "new"), state="absent", _ansible_check_mode=True,
                                   _ansible_diff=True))
    assert result["changed"] is False and result["command"] == [] and fake.calls == []
    assert result["diff"] == {"before": "(absent)\n", "after": "(absent)\n"}


def test_check_mode_still_refuses_a_file_and_bad_input(run_main, lfs, task, tmp_path):
    fake = lfs(_reference(PLAIN_1M))
    (tmp_path / "file").write_text("x")
    not_dir = run_main(module, dict(task, path=str(tmp_path / "file"), stripe_count=1, stripe_size="1M",
                                    _ansible_check_mode=True))
    assert not_dir["failed"] is True and not_dir["msg"].startswith("%s is not a directory" % (tmp_path / "file"))
    bad = run_main(module, dict(task, path=str(tmp_path / "new"), stripe_count=0, stripe_size="1M",
                                _ansible_check_mode=True))
    assert bad["failed"] is True and "stripe_count is 0" in bad["msg"] and fake.calls == []


# ---------------------------------------------------------------- issue 13: the path checked
def test_lfs_stripe_path_must_be_absolute_without_control_characters():
    from ansible_collections.gpufleet.cluster.plugins.modules.lfs_stripe import ModuleFailure, _checked_path
    assert _checked_path("/lustre/my ckpt") == "/lustre/my ckpt"   # argv, no shell: a blank is safe here
    for path in ("-c", "ckpt", "/lustre/ckpt\n"):
        with pytest.raises(ModuleFailure, match=r"path: %s is not allowed; expected the directory's absolute path"
                           % repr(path).replace("\\", "\\\\")):
            _checked_path(path)
