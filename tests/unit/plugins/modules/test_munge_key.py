# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.munge_key: generate once, distribute byte for byte, refuse what munged refuses; and a generated
key is unpredictable (not constant, repeating or counting), each node that generates getting its own."""
import base64
import collections
import grp
import hashlib
import math
import os
import pwd
import stat

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import munge_key as core
from ansible_collections.gpufleet.cluster.plugins.modules import munge_key as module
from module_results import assert_options_match_spec

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


@pytest.fixture
def args(tmp_path):
    return {"path": str(tmp_path / "munge.key"), "owner": ME, "group": MY_GROUP}


def test_generate_once_then_keep(run_main, args):
    first = run_main(module, dict(args, generate=True, return_content=True))
    key = open(args["path"], "rb").read()
    assert first["changed"] is True and first["generated"] is True
    assert len(key) == 1024 and first["size"] == 1024
    assert first["sha256"] == hashlib.sha256(key).hexdigest()
    assert base64.b64decode(first["content_b64"]) == key
    assert stat.S_IMODE(os.stat(args["path"]).st_mode) == 0o400
    second = run_main(module, dict(args, generate=True))
    assert second["changed"] is False and second["generated"] is False
    assert open(args["path"], "rb").read() == key  # an existing valid key is never replaced
    assert "content_b64" not in second


@pytest.mark.parametrize("size", [32, 128, 1000])
def test_generate_keeps_a_valid_key_of_another_size(run_main, args, size):
    key = os.urandom(size)  # 128 bytes: what `mungekey` writes by default (Debian's package, a rebuilt head node)
    with open(args["path"], "wb") as fh:
        fh.write(key)
    os.chmod(args["path"], 0o400)
    result = run_main(module, dict(args, generate=True, return_content=True))
    assert result["changed"] is False and result["generated"] is False  # before: silently replaced by 1024 bytes
    assert open(args["path"], "rb").read() == key and base64.b64decode(result["content_b64"]) == key
    assert result["previous_sha256"] == hashlib.sha256(key).hexdigest() and result["previous_valid"] is True


def test_generate_replaces_a_key_munged_would_refuse(run_main, args):
    with open(args["path"], "wb") as fh:
        fh.write(b"short")
    result = run_main(module, dict(args, generate=True))
    assert result["changed"] is True and result["generated"] is True
    assert result["previous_valid"] is False and result["previous_sha256"] == hashlib.sha256(b"short").hexdigest()
    assert len(open(args["path"], "rb").read()) == 1024


def test_rotate_makes_a_new_key_even_over_a_valid_one(run_main, args):
    old = os.urandom(1024)
    with open(args["path"], "wb") as fh:
        fh.write(old)
    os.chmod(args["path"], 0o400)
    result = run_main(module, dict(args, generate=True, rotate=True))
    new = open(args["path"], "rb").read()
    assert result["changed"] is True and result["generated"] is True and len(new) == 1024 and new != old
    assert result["previous_sha256"] == hashlib.sha256(old).hexdigest() and result["sha256"] != result["previous_sha256"]


def test_rotate_in_check_mode_returns_the_key_it_would_write_and_writes_nothing(run_main, args):
    """What the slurm role does: the new key is worked out on the primary, then written on every node in one step."""
    old = os.urandom(128)
    with open(args["path"], "wb") as fh:
        fh.write(old)
    os.chmod(args["path"], 0o400)
    planned = run_main(module, dict(args, generate=True, rotate=True, return_content=True, _ansible_check_mode=True))
    assert planned["changed"] is True and planned["generated"] is True
    assert open(args["path"], "rb").read() == old
    key = base64.b64decode(planned["content_b64"])
    assert len(key) == 1024 and planned["sha256"] == hashlib.sha256(key).hexdigest()
    written = run_main(module, dict(args, content_b64=planned["content_b64"]))
    assert written["changed"] is True and open(args["path"], "rb").read() == key


def test_no_key_reports_no_previous(run_main, args):
    result = run_main(module, dict(args, generate=True, _ansible_check_mode=True))
    assert result["previous_sha256"] is None and result["previous_valid"] is False


def test_distribute_byte_for_byte_including_non_utf8(run_main, args):
    key = bytes(range(256)) * 4  # every byte value, 1024 bytes
    result = run_main(module, dict(args, content_b64=base64.b64encode(key).decode()))
    assert result["changed"] is True and open(args["path"], "rb").read() == key
    again = run_main(module, dict(args, content_b64=base64.b64encode(key).decode()))
    assert again["changed"] is False


def test_replaces_a_different_key_and_diff_shows_no_secret(run_main, args):
    old, new = b"a" * 64, b"b" * 64
    with open(args["path"], "wb") as fh:
        fh.write(old)
    os.chmod(args["path"], 0o400)
    result = run_main(module, dict(args, content_b64=base64.b64encode(new).decode(), _ansible_diff=True))
    assert result["changed"] is True
    assert hashlib.sha256(old).hexdigest() in result["diff"]["before"]
    assert hashlib.sha256(new).hexdigest() in result["diff"]["after"]
    assert "YWFh" not in str(result) and "YmJi" not in str(result)  # neither key's base64 leaks


def test_check_mode_writes_nothing(run_main, args):
    result = run_main(module, dict(args, generate=True, _ansible_check_mode=True, _ansible_diff=True))
    assert result["changed"] is True and not os.path.exists(args["path"])
    assert result["diff"]["before"] == "(no key)\n" and "size=1024 mode=0400" in result["diff"]["after"]


def test_check_mode_reports_a_loose_mode(run_main, args):
    with open(args["path"], "wb") as fh:
        fh.write(b"k" * 128)
    os.chmod(args["path"], 0o644)
    result = run_main(module, dict(args, _ansible_check_mode=True))
    assert result["changed"] is True and stat.S_IMODE(os.stat(args["path"]).st_mode) == 0o644
    fixed = run_main(module, args)
    assert fixed["changed"] is True and stat.S_IMODE(os.stat(args["path"]).st_mode) == 0o400


@pytest.mark.parametrize("content,why", [
    (None, "does not exist"),
    (b"short", "holds 5 bytes"),
])
def test_check_only_refuses_missing_or_bad_keys(run_main, args, content, why):
    if content is not None:
        with open(args["path"], "wb") as fh:
            fh.write(content)
    result = run_main(module, args)
    assert result["failed"] is True and why in result["msg"] and "munged would refuse it" in result["msg"]


@pytest.mark.parametrize("content_b64,why", [
    ("not base64!", "not valid base64"),
    (base64.b64encode(b"x" * 31).decode(), "31 bytes is outside"),
    (base64.b64encode(b"x" * 1025).decode(), "1025 bytes is outside"),
])
def test_bad_content_is_refused_before_writing(run_main, args, content_b64, why):
    result = run_main(module, dict(args, content_b64=content_b64))
    assert result["failed"] is True and why in result["msg"] and not os.path.exists(args["path"])


def test_key_file_problems(tmp_path):
    path = tmp_path / "k"
    assert core.key_file_problems(str(path)) == [f"{path} does not exist"]
    path.write_bytes(b"x" * 40)
    os.chmod(path, 0o640)
    assert core.key_file_problems(str(path)) == [
        f"{path} has mode 0640: munged refuses a key group or others can access"]
    os.chmod(path, 0o600)
    assert core.key_file_problems(str(path)) == []
    path.write_bytes(b"x" * 2000)
    assert "holds 2000 bytes" in core.key_file_problems(str(path))[0]


def test_documentation_matches_argument_spec():
    assert_options_match_spec(module)
    assert module.ARGUMENT_SPEC["content_b64"]["no_log"] is True


# ------------------------------------------------------------------ input rules (issue 13)
@pytest.mark.parametrize("field, value, shown", [
    ("path", "munge.key", "path: 'munge.key' is not allowed; expected an absolute path"),
    ("path", "/etc/munge/../munge.key", "path: '/etc/munge/../munge.key' is not allowed"),
    ("path", "/etc/munge/munge.key\n", "path: '/etc/munge/munge.key\\n' is not allowed"),
    ("mode", "0644", "mode: '0644' is not allowed; munged refuses a key that group or others can access"),
    ("mode", "0200", "mode: '0200' is not allowed; munged refuses"),
    ("mode", "u=r", "mode: 'u=r' is not allowed; expected an octal mode such as '0400'"),
    ("owner", "munge\n", "owner: 'munge\\n' is not allowed; expected a user or group name"),
    ("group", "munge users", "group: 'munge users' is not allowed"),
])
def test_refuses_bad_paths_owners_and_modes(run_main, args, field, value, shown):
    result = run_main(module, dict(args, generate=True, **{field: value}))
    assert result["failed"] is True
    assert result["msg"].startswith("munge_key: refusing to manage ") and shown in result["msg"]
    assert not os.path.exists(args["path"])


def test_a_path_below_a_plain_file_fails_with_what_was_attempted(run_main, args, tmp_path):
    (tmp_path / "plain").write_text("x")
    path = str(tmp_path / "plain" / "munge.key")
    result = run_main(module, dict(args, path=path, generate=True))
    assert result["failed"] is True
    # before: a raw NotADirectoryError from describe()
    assert result["msg"] == "munge_key: managing the key file %s failed: [Errno 20] Not a directory: %r" % (path, path)


def test_mode_0600_is_accepted(run_main, args):
    result = run_main(module, dict(args, generate=True, mode="0600"))
    assert result["changed"] is True and stat.S_IMODE(os.stat(args["path"]).st_mode) == 0o600


# ---------------------------------------------------------------- a generated key is unpredictable
# Anyone who can guess the key can forge Slurm credentials. Length, mode and a hash compared with itself all
# hold for a constant key (bytes(1024)); these checks do not.
def _entropy_bits_per_byte(key: bytes) -> float:
    counts = collections.Counter(key)
    return -sum(n / len(key) * math.log2(n / len(key)) for n in counts.values())


def _assert_not_degenerate(key: bytes) -> None:
    """1024 random bytes: about 7.8 bits of Shannon entropy per byte and about 650 distinct values.
    The bounds are far below that, and far above any constant, repeating or counting pattern."""
    assert len(set(key)) >= 128, f"only {len(set(key))} distinct byte values in the key"
    assert _entropy_bits_per_byte(key) > 6.5
    assert max(collections.Counter(key).values()) < len(key) // 16, "one byte value dominates the key"
    half = len(key) // 2
    assert key[:half] != key[half:], "the key repeats itself"
    assert key != bytes(range(256)) * (len(key) // 256)


def test_two_generations_differ_and_are_not_degenerate():
    first, second = core.new_key(), core.new_key()
    assert len(first) == len(second) == 1024
    assert first != second
    for key in (first, second):
        _assert_not_degenerate(key)
    # Two independent 1024-byte keys share about 4 positions by chance, never hundreds.
    assert sum(a == b for a, b in zip(first, second)) < 64


def test_the_module_writes_a_fresh_random_key_on_each_node_that_generates(run_main, tmp_path):
    keys = []
    for node in ("head", "head2"):
        path = tmp_path / node / "munge.key"
        path.parent.mkdir()
        result = run_main(module, {"path": str(path), "owner": ME, "group": MY_GROUP, "generate": True})
        assert result["generated"] is True
        keys.append(path.read_bytes())
    assert keys[0] != keys[1]
    for key in keys:
        _assert_not_degenerate(key)


def test_the_checks_catch_the_breakages_they_are_for():
    """The degeneracy check itself fails for the constant, repeating and counting keys it guards against."""
    for bad in (bytes(1024), b"\xff" * 1024, bytes(range(256)) * 4, os.urandom(512) * 2):
        try:
            _assert_not_degenerate(bad)
        except AssertionError:
            continue
        raise AssertionError(f"a degenerate key passed: {bad[:16]!r}...")


@pytest.mark.parametrize("existing", [False, True])
def test_a_key_file_has_its_final_mode_before_its_first_byte(run_main, args, monkeypatch, existing):
    # A new key file, or a rotated one, is never readable by others, not even for a moment: the file that receives
    # the key is 0400 before the first byte goes in, and nothing is chmod'ed after the rename (Ansible's atomic_move
    # would give a new file the umask's 0644 first).
    if existing:
        run_main(module, dict(args, generate=True))
    seen, chmods = [], []
    real_write, real_chmod = os.write, os.chmod

    def write(fd, data):
        seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return real_write(fd, data)

    def chmod(path, *rest, **kwargs):
        chmods.append(os.fsdecode(path))
        return real_chmod(path, *rest, **kwargs)
    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "chmod", chmod)
    old_umask = os.umask(0o022)
    try:
        result = run_main(module, dict(args, generate=True, rotate=existing))
    finally:
        os.umask(old_umask)
    assert result["changed"] is True and seen and set(seen) == {0o400}
    assert args["path"] not in chmods and stat.S_IMODE(os.stat(args["path"]).st_mode) == 0o400


def test_an_owner_the_node_lacks_is_refused_without_a_key_written(run_main, args):
    result = run_main(module, dict(args, generate=True, owner="gpufleet-no-such-user"))
    assert result["failed"] is True
    assert result["msg"].startswith("writing the munge key %s failed: " % args["path"])
    assert "there is no user 'gpufleet-no-such-user' on this node" in result["msg"]
    assert not os.path.exists(args["path"]) and os.listdir(os.path.dirname(args["path"])) == []
