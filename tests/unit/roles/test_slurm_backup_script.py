# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/slurm/files/gpufleet-slurm-backup, run for real with bash, gzip and tar.

MariaDB is not here: `mariadb-dump` is a stand-in on PATH that records its argv and prints a dump ending as
mariadb-dump's does ("-- Dump completed on <date>"), or fails, or stops early. StateSaveLocation is a temporary
directory laid out as slurmctld leaves it (job_state, job_state.old, hash.N/job.N/script).
"""
from __future__ import annotations

import os
import re
import stat
import subprocess
import tarfile

import pytest

from script_loader import ROOT

SCRIPT = os.path.join(ROOT, "roles", "slurm", "files", "gpufleet-slurm-backup")
DUMP_END = "-- Dump completed on 2026-11-29  3:15:02\n"


def _fake_dump(bin_dir, body):
    path = os.path.join(bin_dir, "mariadb-dump")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("#!/bin/sh\necho \"$@\" > \"%s/argv\"\n%s\n" % (bin_dir, body))
    os.chmod(path, 0o755)


def _run(tmp_path, *args, dump="printf 'CREATE TABLE t (x int);\\n%s'" % DUMP_END.replace("\n", "\\n")):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    _fake_dump(str(bin_dir), dump)
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]))
    return subprocess.run(["bash", SCRIPT, *args], env=env, capture_output=True, text=True, check=False)


@pytest.fixture(name="out")
def _out(tmp_path):
    out = tmp_path / "backups"
    out.mkdir(mode=0o700)
    return out


def _files(out):
    return sorted(os.listdir(out))


def test_db_dump_is_consistent_whole_and_0600(tmp_path, out):
    result = _run(tmp_path, "db", "--dir", str(out), "--keep", "3", "--database", "slurm_acct_db")
    assert result.returncode == 0, result.stderr
    (name,) = _files(out)
    assert re.fullmatch(r"slurm_acct_db-[0-9]{8}T[0-9]{6}Z\.sql\.gz", name)
    assert stat.S_IMODE(os.stat(out / name).st_mode) == 0o600
    argv = (tmp_path / "bin" / "argv").read_text(encoding="utf-8").split()
    # One transaction (InnoDB), slurmdbd's procedures, the database recreated on restore; no password anywhere.
    assert {"--single-transaction", "--routines", "--add-drop-database"} <= set(argv)
    assert argv[-2:] == ["--databases", "slurm_acct_db"]
    assert not [arg for arg in argv if "password" in arg or arg.startswith("-p")]
    assert subprocess.run(["gzip", "-dc", str(out / name)], capture_output=True, text=True,
                          check=True).stdout.endswith(DUMP_END)


@pytest.mark.parametrize("dump, why", [
    ("echo 'mariadb-dump: Got error: 2002' >&2; exit 2", "failed"),
    ("printf 'CREATE TABLE t (x int);\\n'", "does not end with '-- Dump completed'"),
])
def test_a_failed_or_truncated_dump_leaves_nothing(tmp_path, out, dump, why):
    result = _run(tmp_path, "db", "--dir", str(out), "--keep", "3", "--database", "slurm_acct_db", dump=dump)
    assert result.returncode != 0
    assert why in result.stderr and "nothing was kept" in result.stderr
    assert _files(out) == []


def test_state_archive_lists_back_with_slurmctld_files(tmp_path, out):
    state = tmp_path / "state"
    (state / "hash.7" / "job.17").mkdir(parents=True)
    (state / "hash.7" / "job.17" / "script").write_text("#!/bin/sh\necho held\n", encoding="utf-8")
    (state / "job_state").write_bytes(b"\x00new")
    (state / "job_state.old").write_bytes(b"\x00old")
    result = _run(tmp_path, "state", "--dir", str(out), "--keep", "2", "--source", str(state))
    assert result.returncode == 0, result.stderr
    (name,) = _files(out)
    assert re.fullmatch(r"slurmctld-state-[0-9]{8}T[0-9]{6}Z\.tar\.gz", name)
    assert stat.S_IMODE(os.stat(out / name).st_mode) == 0o600
    with tarfile.open(out / name) as archive:
        assert {"./job_state", "./job_state.old", "./hash.7/job.17/script"} <= set(archive.getnames())
        assert archive.extractfile("./job_state").read() == b"\x00new"


def test_retention_keeps_the_newest_and_never_a_labelled_copy_or_another_file(tmp_path, out):
    for stamp in ("20260101T000000Z", "20260102T000000Z", "20260103T000000Z"):
        (out / ("slurm_acct_db-%s.sql.gz" % stamp)).write_bytes(b"")
    (out / "slurm_acct_db.before-restore-20250101T000000Z.sql.gz").write_bytes(b"")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "slurmctld-state-20250101T000000Z.tar.gz").write_bytes(b"")
    result = _run(tmp_path, "db", "--dir", str(out), "--keep", "2", "--database", "slurm_acct_db")
    assert result.returncode == 0, result.stderr
    files = _files(out)
    dumps = [f for f in files if re.fullmatch(r"slurm_acct_db-[0-9T]+Z\.sql\.gz", f)]
    assert len(dumps) == 2 and "slurm_acct_db-20260103T000000Z.sql.gz" in dumps
    assert {"slurm_acct_db.before-restore-20250101T000000Z.sql.gz", "notes.txt",
            "slurmctld-state-20250101T000000Z.tar.gz"} <= set(files)


def test_a_labelled_copy_is_named_apart(tmp_path, out):
    result = _run(tmp_path, "db", "--dir", str(out), "--keep", "1", "--database", "slurm_acct_db",
                  "--label", "before-restore")
    assert result.returncode == 0, result.stderr
    (name,) = _files(out)
    assert re.fullmatch(r"slurm_acct_db\.before-restore-[0-9]{8}T[0-9]{6}Z\.sql\.gz", name)


@pytest.mark.parametrize("args, why", [
    (["db", "--keep", "3", "--database", "slurm_acct_db"], "--dir must be an absolute path"),
    (["db", "--dir", "OUT", "--keep", "0", "--database", "slurm_acct_db"], "--keep must be a whole number from 1"),
    (["db", "--dir", "OUT", "--keep", "3", "--database", "x; rm -rf /"], "--database must be a MySQL name"),
    (["state", "--dir", "OUT", "--keep", "3", "--source", "/nonexistent/state"], "is not a directory"),
    (["db", "--dir", "OUT/missing", "--keep", "3", "--database", "d"], "does not exist"),
    (["db", "--dir", "OUT", "--keep", "3", "--database", "d", "--label", "A B"], "--label is lower-case"),
    (["tar"], "the first argument is db or state"),
])
def test_bad_arguments_are_refused_naming_the_option(tmp_path, out, args, why):
    result = _run(tmp_path, *[arg.replace("OUT", str(out)) for arg in args])
    assert result.returncode != 0 and why in result.stderr
    assert _files(out) == []
