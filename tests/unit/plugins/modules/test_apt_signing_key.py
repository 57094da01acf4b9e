# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.apt_signing_key: a key installed only when the real gpg lists the pinned key(s) in it.

Keys are throwaway keys made by gpg for each test (tests/unit/helpers/throwaway_keys.py) and NVIDIA's CUDA key
the nvidia_driver role ships; a URL key is served by a local HTTP server. Skipped where gpg is not installed
(tests/unit/plugins/module_utils/apt/test_keys.py reads recorded listings there).
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import stat
import threading

import pytest
from ansible_collections.gpufleet.cluster.plugins.modules import apt_signing_key as module

from module_results import assert_options_match_spec, warnings
from reference import REPO
from throwaway_keys import GPG, make_key

pytestmark = pytest.mark.skipif(GPG is None, reason="gpg is not installed here")

CUDA_KEY = os.path.join(REPO, "roles", "nvidia_driver", "files", "cuda-archive-keyring-3bf863cc.asc")
CUDA_FINGERPRINT = "EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC"


@pytest.fixture(name="key")
def fixture_key(tmp_path):
    return make_key(tmp_path / "keys")


def args(tmp_path, key, fingerprints, **extra):
    return dict({"key": key, "fingerprints": fingerprints, "name": "vendor", "dest_dir": str(tmp_path / "keyrings"),
                 "variable": "rdma_repository_key"}, **extra)


def test_docs_match_the_argument_spec():
    doc = assert_options_match_spec(module)
    assert doc["attributes"]["check_mode"]["support"] == "full"


def test_the_shipped_cuda_key_is_installed_once(run_main, tmp_path):
    with open(CUDA_KEY, encoding="ascii") as handle:
        text = handle.read()
    task = args(tmp_path, text, [CUDA_FINGERPRINT], name="gpufleet-nvidia-cuda")
    first = run_main(module, task)
    assert first["changed"] is True and first["verified"] is True, first
    dest = tmp_path / "keyrings" / "gpufleet-nvidia-cuda.asc"
    assert first["dest"] == str(dest) and dest.read_text() == text.strip() + "\n"
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o644
    assert first["keys"][0]["fingerprint"] == "EB693B3035CD5710E231E123A4B469963BF863CC"
    assert run_main(module, task)["changed"] is False


def test_a_key_that_is_not_the_pinned_one_installs_nothing(run_main, tmp_path, key):
    other = make_key(tmp_path / "other", "Other <other@example.org>")
    (tmp_path / "keyrings").mkdir()
    (tmp_path / "keyrings" / "vendor.asc").write_bytes(key.armoured)
    result = run_main(module, args(tmp_path, other.armoured.decode(), [key.fingerprint]))
    assert result["failed"] is True
    assert result["msg"].startswith("apt_signing_key: rdma_repository_key (the armoured key text) holds the key(s) "
                                    + other.fingerprint + " (Other <other@example.org>), which the pinned")
    assert "nothing was installed" in result["msg"]
    assert (tmp_path / "keyrings" / "vendor.asc").read_bytes() == key.armoured  # the old key stays


def test_a_file_with_the_pinned_key_and_another_is_refused(run_main, tmp_path, key):
    other = make_key(tmp_path / "other", "Other <other@example.org>")
    both = tmp_path / "both.gpg"
    both.write_bytes(key.binary + other.binary)
    result = run_main(module, args(tmp_path, str(both), [key.fingerprint]))
    assert result["failed"] is True and other.fingerprint in result["msg"] and str(both) in result["msg"]
    assert not (tmp_path / "keyrings").exists()


def test_a_binary_key_from_a_path_becomes_gpg_and_replaces_the_asc(run_main, tmp_path, key):
    source = tmp_path / "mirror-key.gpg"
    source.write_bytes(key.binary)
    (tmp_path / "keyrings").mkdir()
    (tmp_path / "keyrings" / "vendor.asc").write_bytes(key.armoured)
    result = run_main(module, args(tmp_path, str(source), [key.fingerprint]))
    assert result["changed"] is True and result["dest"] == str(tmp_path / "keyrings" / "vendor.gpg")
    assert (tmp_path / "keyrings" / "vendor.gpg").read_bytes() == key.binary
    assert not (tmp_path / "keyrings" / "vendor.asc").exists()
    assert run_main(module, args(tmp_path, str(source), [key.fingerprint]))["changed"] is False


def test_a_key_fetched_over_http(run_main, tmp_path, key):
    served = tmp_path / "served"
    served.mkdir()
    (served / "GPG-KEY.pub").write_bytes(key.armoured)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    try:
        result = run_main(module, args(tmp_path, base + "GPG-KEY.pub", [key.fingerprint]))
        missing = run_main(module, args(tmp_path, base + "missing.pub", [key.fingerprint]))
    finally:
        server.shutdown()
        server.server_close()
    assert result["changed"] is True and (tmp_path / "keyrings" / "vendor.asc").read_bytes() == key.armoured
    assert missing["failed"] is True
    assert missing["msg"].startswith("apt_signing_key: rdma_repository_key: fetching %smissing.pub failed: HTTP 404"
                                     % base)


def test_check_mode_writes_nothing_and_diff_shows_the_key(run_main, tmp_path, key):
    result = run_main(module, dict(args(tmp_path, key.armoured.decode(), [key.fingerprint]), _ansible_check_mode=True,
                                   _ansible_diff=True))
    assert result["changed"] is True and not (tmp_path / "keyrings").exists()
    assert result["diff"]["after"] == key.armoured.decode() and result["diff"]["before"] == ""


def test_without_gpg_a_real_run_refuses_and_check_mode_says_so(run_main_warned, tmp_path, key, monkeypatch):
    # gpg is in /usr/bin here, which get_bin_path searches whatever PATH says: the runner finds nothing instead.
    monkeypatch.setattr(module.CommandRunner, "which", lambda self, name: None)
    task = args(tmp_path, key.armoured.decode(), [key.fingerprint])
    refused = run_main_warned(module, task)
    assert refused["failed"] is True and "gpg is not installed on this node" in refused["msg"]
    assert not (tmp_path / "keyrings").exists()
    checked = run_main_warned(module, dict(task, _ansible_check_mode=True))
    assert checked["changed"] is True and checked["verified"] is False
    assert any("was not checked: gpg is not installed yet" in w for w in warnings(checked))


@pytest.mark.parametrize("bad, message", [
    ({"fingerprints": ["3BF863CC"]}, r"rdma_repository_key fingerprints\[0\] must be a full key fingerprint"),
    ({"fingerprints": []}, "rdma_repository_key fingerprints must not be empty"),
    ({"name": "../escape"}, "name must be letters, digits"),
    ({"key": "ftp://example.org/key"}, "rdma_repository_key must be an https://, http:// or file:// URL"),
    ({"key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnot a key\n-----END PGP PUBLIC KEY BLOCK-----"},
     "gpg cannot read rdma_repository_key .the armoured key text. as an OpenPGP public key"),
])
def test_bad_arguments_are_refused_before_anything_is_written(run_main, tmp_path, key, bad, message):
    result = run_main(module, dict(args(tmp_path, key.armoured.decode(), [key.fingerprint]), **bad))
    assert result["failed"] is True
    assert re.search(message, result["msg"]), result["msg"]
    assert not (tmp_path / "keyrings").exists()
