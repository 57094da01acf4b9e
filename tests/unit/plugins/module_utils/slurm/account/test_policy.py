# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/account/policy: the module's options read, checked and rendered (TRES, times, names, text), and every
refusal naming the field; property tests with hostile input through the plan."""
from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.plan import (
    plan,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import (
    ACCOUNT_OPTIONS,
    QOS_OPTIONS,
    SlurmAccountError,
    USER_OPTIONS,
    policy,
    read_tres,
    show_tres,
    show_wall,
    wall_minutes,
)
from nasty_input import hostile_numbers, hostile_text, near_valid
from slurm_accounting import I, state


def test_tres_and_time_as_sacctmgr_prints_them():
    assert read_tres("cpu=128,gres/gpu=16,mem=64G") == {"cpu": 128, "gres/gpu": 16, "mem": 65536}
    assert read_tres("gres/gpu=64,mem=1T") == {"gres/gpu": 64, "mem": 1048576}
    assert read_tres("mem=2048K,gres/gpu:a100=4") == {"mem": 2, "gres/gpu:a100": 4}
    assert read_tres("") == {}
    assert show_tres({"mem": 65536, "gres/gpu": 16, "cpu": 128}) == "cpu=128,gres/gpu=16,mem=64G"
    assert show_tres({"mem": 1500}) == "mem=1500M" and show_tres({"mem": 1048576}) == "mem=1T"
    for text in ("cpu=128,gres/gpu=16,mem=64G", "gres/gpu=64,mem=1T", "gres/gpu=8"):
        assert show_tres(read_tres(text)) == text
    for bad in ("cpu", "cpu=x", "cpu=1,", "CPU=1", "mem=1Q"):
        with pytest.raises(SlurmAccountError):
            read_tres(bad)


@pytest.mark.parametrize("text, minutes", [
    ("2-00:00:00", 2880), ("12:00:00", 720), ("90", 90), ("1:30", 2), ("1:00", 1), ("1-12", 2160),
    ("1-12:30", 2190), ("0-00:00:01", 1), ("00:59:59", 60), (45, 45), (-1, None), ("-1", None), (0, 0)])
def test_wall_minutes(text, minutes):
    assert wall_minutes("max_wall", text) == minutes


@pytest.mark.parametrize("bad", ["soon", "1-24:00:00", "1:60", "10:61:00", "2-", "", " 90", "90\n", "1.5", True,
                                 1.5, None, -2, ["1"], "99999999999"])
def test_wall_minutes_refused(bad):
    with pytest.raises(SlurmAccountError) as err:
        wall_minutes("qos[0].max_wall", bad)
    assert "qos[0].max_wall" in str(err.value)


def test_show_wall_prints_as_sacctmgr():
    assert [show_wall(m) for m in (2880, 720, 1, 2190, None)] == [
        "2-00:00:00", "12:00:00", "00:01:00", "1-12:30:00", ""]


@pytest.mark.parametrize("params, message", [
    ({"cluster": "Lab"}, "cluster: 'Lab' is not allowed; sacctmgr stores"),
    ({"cluster": "lab", "qos": [{"name": "a", "preempt": ["a"]}]}, "qos a: preempt lists the QOS itself"),
    ({"cluster": "lab", "accounts": [{"name": "root"}]}, "'root' is the tree's own root account"),
    ({"cluster": "lab", "users": [{"name": "u"}]}, "users[0].default_account is required"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "ml", "accounts": ["hpc"]}]},
     "users[0].default_account: 'ml' is not in accounts ['hpc']"),
    ({"cluster": "lab", "qos": [{"name": "a", "colour": "red"}]}, "qos[0] has unknown key(s) 'colour'"),
    ({"cluster": "lab", "qos": [{"name": "a"}, {"name": "a"}]}, "qos[1].name: 'a' is listed twice"),
    ({"cluster": "lab", "qos": [{"name": "a", "state": "gone"}]}, "qos[0].state: 'gone' is not allowed"),
    ({"cluster": "lab", "qos": [{"name": "a", "description": "it's"}]}, "qos[0].description"),
    ({"cluster": "lab", "qos": [{"name": "a", "description": " x"}]}, "no leading or trailing blank"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_tres_per_user": {"GPU": 1}}]}, "TRES name 'GPU' is not allowed"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_tres_per_user": {}}]}, "must name at least one TRES"),
    ({"cluster": "lab", "qos": [{"name": "a", "flags": ["Deny On"]}]}, "qos[0].flags[0]"),
    ({"cluster": "lab", "qos": [{"name": "a", "flags": ["NoDecay", "nodecay"]}]}, "lists a flag twice"),
    ({"cluster": "lab", "qos": [{"name": "a", "preempt_mode": "gang"}]}, "expected one of cluster, cancel"),
    ({"cluster": "lab", "qos": [{"name": "a", "priority": -1}]}, "qos[0].priority=-1 is below the minimum of 0"),
    ({"cluster": "lab", "accounts": [{"name": "a", "qos": []}]}, "accounts[0].qos must not be empty"),
    ({"cluster": "lab", "accounts": [{"name": "a", "fairshare": "half"}]}, "accounts[0].fairshare"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "root", "admin_level": "god"}]},
     "expected one of none, operator, administrator"),
    ({"cluster": "lab", "force": "yes"}, "force must be true or false"),
    ({"qos": []}, "options is missing 'cluster'"),
])
def test_refused_options_name_the_field(params, message):
    with pytest.raises(SlurmAccountError) as err:
        policy(params)
    assert message in str(err.value)


@pytest.mark.parametrize("params, message", [
    ({"cluster": "lab", "qos": "normal"}, "qos must be a list of mappings, got 'normal' of type str"),
    ({"cluster": "lab", "accounts": [{"name": "a", "qos": "normal"}]},
     "accounts[0].qos must be a list of names, got 'normal' of type str"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "a", "accounts": "a"}]},
     "users[0].accounts must be a list of names, got 'a' of type str"),
    ({"cluster": "lab", "qos": [{"name": "a", "flags": "NoDecay"}]},
     "qos[0].flags must be a list of QOS flags, got 'NoDecay' of type str"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_wall": 1.5}]},
     "qos[0].max_wall must be minutes (a whole number) or a Slurm time string such as '2-00:00:00', got 1.5 of type "
     "float"),
])
def test_options_of_the_wrong_type_are_refused_in_full(params, message):
    with pytest.raises(SlurmAccountError) as err:
        policy(params)
    assert str(err.value) == message


# ----------------------------------------------------------------------------------------------- properties
@settings(max_examples=300, deadline=None)
@given(st.one_of(hostile_text(1, 24), near_valid(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True))))
def test_hostile_names_are_refused_or_land_as_one_exact_word(name):
    assume(name != "normal")  # the recorded database has that QOS already
    params = {"cluster": "lab", "qos": [{"name": name}], "accounts": [{"name": name}],
              "users": [{"name": name, "default_account": name}]}
    try:
        got = plan(policy(params), state("defaults"), [])
    except SlurmAccountError as exc:
        assert "name" in str(exc)
        assert repr(name)[:20] in str(exc) or "'root' is the tree's own root account" in str(exc)
        return
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,63}", name) and name != "root"
    assert got.commands == [I + ["add", "qos", name],
                            I + ["add", "account", name, "cluster=lab", "Parent=root"],
                            I + ["add", "user", name, "cluster=lab", "Account=" + name, "DefaultAccount=" + name]]


@settings(max_examples=300, deadline=None)
@given(hostile_text(0, 40))
def test_hostile_descriptions_are_refused_or_exact(text):
    params = {"cluster": "lab", "qos": [{"name": "normal", "description": text}]}
    try:
        got = plan(policy(params), state("defaults"), [])
    except SlurmAccountError as exc:
        assert "qos[0].description" in str(exc)
        return
    assert text == text.strip() and not any(c in text for c in "|'\"`\n\r\x00")
    if text.lower() == "normal qos default":
        assert got.commands == []
    else:
        assert got.commands == [I + ["modify", "qos", "where", "name=normal", "set", "Description=" + text.lower()]]


@settings(max_examples=300, deadline=None)
@given(hostile_numbers(), st.sampled_from(["max_jobs_per_user", "grp_jobs", "priority", "max_wall"]))
def test_hostile_numbers_are_refused_or_exact(value, option):
    params = {"cluster": "lab", "qos": [{"name": "normal", option: value}]}
    try:
        got = plan(policy(params), state("defaults"), [])
    except SlurmAccountError as exc:
        assert "qos[0].%s" % option in str(exc)
        return
    assert value is not None or got.commands == []
    keyword = {"max_jobs_per_user": "MaxJobsPerUser", "grp_jobs": "GrpJobs", "priority": "Priority",
               "max_wall": "MaxWall"}[option]
    if got.commands:
        (command,) = got.commands
        (arg,) = command[7:]
        assert arg.startswith(keyword + "=")
        assert int(arg.split("=", 1)[1]) == (value if option != "max_wall" else wall_minutes("x", value))
    else:
        assert value in (0, -1, "0", "-1", None) or (option == "priority" and value == 0)


_ANY = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), hostile_text(0, 8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(hostile_text(0, 6), inner, max_size=3)), max_leaves=6)
_OPTIONS = {"qos": QOS_OPTIONS, "accounts": ACCOUNT_OPTIONS, "users": USER_OPTIONS}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(_OPTIONS)), st.data(), _ANY)
def test_wrong_types_never_raise_a_raw_exception(group, data, value):
    option = data.draw(st.sampled_from(_OPTIONS[group]))
    entry = {"name": "ml", "default_account": "ml"} if group == "users" else {"name": "normal"}
    entry[option] = value
    params = {"cluster": "lab", group: [entry]}
    try:
        plan(policy(params), state("policy"), [])
    except SlurmAccountError as exc:
        assert str(exc)


@settings(max_examples=200, deadline=None)
@given(_ANY)
def test_wrong_shapes_at_the_top_never_raise_a_raw_exception(value):
    for params in ({"cluster": value}, {"cluster": "lab", "qos": value}, {"cluster": "lab", "accounts": [value]},
                   {"cluster": "lab", "users": value, "force": False}, value):
        try:
            plan(policy(params), state("policy"), [])
        except SlurmAccountError as exc:
            assert str(exc)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["cpu", "mem", "gres/gpu", "node", "billing", "gres/gpu:a100"]),
                       st.integers(0, 2**40), min_size=1))
def test_tres_printed_reads_back(value):
    assert read_tres(show_tres(value)) == value
