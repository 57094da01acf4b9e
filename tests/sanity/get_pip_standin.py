# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Offline stand-in for ansible-test's get-pip bootstrap script.

ansible-test downloads get-pip-<version>.py from a host this machine cannot reach; run-sanity.sh
installs this file in its place, beside the pip wheel it downloaded from PyPI. It installs what
ansible-test asks for with that wheel's pip (get-pip's --no-setuptools / --no-wheel mean nothing to
`pip install` and are dropped).
"""
import glob
import os
import runpy
import sys

_WHEELS = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pip-*-py3-none-any.whl")))
if not _WHEELS:
    sys.exit("get-pip stand-in: no pip wheel beside " + __file__)
sys.path.insert(0, _WHEELS[-1])
sys.argv = ["pip", "install"] + [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
runpy.run_module("pip", run_name="__main__", alter_sys=True)
