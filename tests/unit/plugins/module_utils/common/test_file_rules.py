# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a file a module writes may be called, owned by and permitted (module_utils/common/file_rules.py)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.file_rules import (
    FileRuleError, absolute_path, account, mode,
)
from nasty_input import hostile_text

_PATH_ALLOWED = ("an absolute path of letters, digits, '_', '.', '+', '@', ':', '~' and '-', with no '.' or '..' "
                 "part, no '//', no trailing '/', no blank and no control character")
_MODE_ALLOWED = "an octal mode as a string ('0644'), a number up to 0o7777, or a symbolic mode ('u=rw,go=r')"


class OwnError(ValueError):
    pass


@pytest.mark.parametrize("path", ["/etc/slurm/slurm.conf", "/etc/systemd/system/getty@.service.d/x.conf",
                                  "/etc/munge/munge.key", "/a/.hidden", "/a/b~"])
def test_absolute_paths_are_accepted(path):
    assert absolute_path("dest", path) == path


@pytest.mark.parametrize("path", ["etc/x", "/etc/../shadow", "/etc/./x", "/etc//x", "/etc/x/", "/", "/a b",
                                  "/etc/x\n", "/" + "a" * 4096])
def test_paths_that_leave_or_split_are_refused(path):
    with pytest.raises(FileRuleError) as err:
        absolute_path("files[0].dest", path)
    assert str(err.value) == "files[0].dest: %r is not allowed; expected %s" % (path, _PATH_ALLOWED)


@pytest.mark.parametrize("value, shown", [(None, "None of type NoneType"), (5, "5 of type int"),
                                          (["/etc/x"], "['/etc/x'] of type list")])
def test_a_path_that_is_not_a_string_is_refused_in_the_one_wording(value, shown):
    with pytest.raises(OwnError) as err:
        absolute_path("paths[1]", value, OwnError)
    assert str(err.value) == "paths[1] must be a string (%s), got %s" % (_PATH_ALLOWED, shown)


@pytest.mark.parametrize("name", [None, "root", "slurm", "_apt", "0", "65534", "user.name-1", "machine$"])
def test_accounts_are_accepted(name):
    assert account("owner", name) == name


@pytest.mark.parametrize("name", ["", "-root", "a b", "root\n", "x" * 33, 0, "root:root"])
def test_accounts_that_are_not_names_are_refused(name):
    with pytest.raises(OwnError) as err:
        account("files[2].group", name, OwnError)
    assert str(err.value).startswith("files[2].group: %r is not allowed; expected a user or group name" % (name,))


@pytest.mark.parametrize("value", [None, "0644", "644", "0400", "1777", 0o644, 0, 0o7777, "u=rw,go=r", "a+X", "g=u"])
def test_modes_are_accepted(value):
    assert mode("mode", value) == value


@pytest.mark.parametrize("value", ["0x644", "0888", "rw-r--r--", "", "0644\n", -1, 0o10000])
def test_modes_ansible_would_misread_are_refused(value):
    with pytest.raises(FileRuleError) as err:
        mode("files[0].mode", value)
    assert str(err.value) == "files[0].mode: %r is not allowed; expected %s" % (value, _MODE_ALLOWED)


@pytest.mark.parametrize("value, shown", [(True, "True of type bool"), (6.44, "6.44 of type float"),
                                          (["0644"], "['0644'] of type list")])
def test_a_mode_of_the_wrong_type_is_refused_in_the_one_wording(value, shown):
    with pytest.raises(FileRuleError) as err:
        mode("files[0].mode", value)
    assert str(err.value) == "files[0].mode must be %s, got %s" % (_MODE_ALLOWED, shown)


@given(text=hostile_text(min_size=1), field=st.sampled_from(["dest", "files[3].owner", "mode"]))
def test_hostile_text_is_refused_naming_the_field_or_kept_whole(text, field):
    """Every refusal names the field first; what is accepted is returned as given, without a control character or
    a blank."""
    for check in (absolute_path, account, mode):
        try:
            kept = check(field, "/" + text if check is absolute_path else text)
        except FileRuleError as exc:
            assert str(exc).startswith(field + ": ")
        else:
            assert kept in (text, "/" + text)
            assert not any(c in kept for c in "\n\r\t\x00\x1b\x7f\u0085\u2028 ")
