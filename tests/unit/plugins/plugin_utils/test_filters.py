# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plugin_utils/filters.py, the boilerplate every filter uses: the FQCN in every message, a refusal's message kept,
anything else worded as unreadable input, Ansible's own errors passed on, and the argument checks in the collection's
one wording (module_utils/common/refusals.py)."""
from __future__ import annotations

import inspect
import json

import pytest
from ansible.errors import AnsibleError, AnsibleFilterError, AnsibleUndefinedVariable
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import InputRuleError
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import StripingError
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import HostlistError
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.smi import NvidiaSmiParseError
from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    FilterInputError,
    collection_filter,
    flag,
    fqcn,
    is_refusal,
    non_empty_strings,
    of_type,
    one_of,
    require,
    slurped_files,
    string_list,
)


class NotTheCollections(ValueError):
    """A ValueError the collection does not define: no refusal."""


def raising(exc, name="sample", **options):
    """A filter ``name`` that raises ``exc``."""
    @collection_filter(name, **options)
    def sample(value, option=None):
        """A sample filter."""
        raise exc
    return sample


def message_of(exc, name="sample", **options):
    with pytest.raises(AnsibleFilterError) as info:
        raising(exc, name, **options)("x")
    return str(info.value)


# ---------------------------------------------------------------- collection_filter
def test_fqcn():
    assert fqcn("hostlist_expand") == "gpufleet.cluster.hostlist_expand"


def test_the_filter_keeps_its_name_doc_signature_and_result():
    @collection_filter("twice")
    def twice(value, times=2):
        """Twice the value."""
        return value * times

    assert twice(3) == 6 and twice("a", times=3) == "aaa"
    assert twice.__name__ == "twice" and twice.__doc__ == "Twice the value."
    assert list(inspect.signature(twice).parameters) == ["value", "times"]


@pytest.mark.parametrize("exc", [HostlistError("hostlist 'n[' is not closed"), InputRuleError("x: 'y' is not allowed"),
                                 StripingError("cap is 0"), NvidiaSmiParseError("line 3: no GPU"),
                                 FilterInputError("input must be a list, got 5 of type int")])
def test_a_refusal_keeps_its_message(exc):
    assert message_of(exc) == "gpufleet.cluster.sample: %s" % exc


@pytest.mark.parametrize("exc", [TypeError("'int' object is not iterable"), KeyError("cpus"), AttributeError("get"),
                                 IndexError("list index out of range"), OverflowError("too large"),
                                 ValueError("invalid literal for int()"), NotTheCollections("not ours"),
                                 json.JSONDecodeError("Expecting value", "x", 0), RuntimeError("boom")])
def test_anything_else_is_unreadable_input(exc):
    assert message_of(exc) == ("gpufleet.cluster.sample: the arguments could not be read (%s: %s); see the filter's "
                               "documentation for what it takes" % (type(exc).__name__, exc))
    assert message_of(exc, unreadable="the layout", hint="expected {cpus: [...]}") == (
        "gpufleet.cluster.sample: the layout could not be read (%s: %s); expected {cpus: [...]}"
        % (type(exc).__name__, exc))


def test_ansible_errors_pass_as_they_are():
    for exc in (AnsibleFilterError("already worded"), AnsibleUndefinedVariable("'x' is undefined"), AnsibleError("e")):
        with pytest.raises(type(exc)) as info:
            raising(exc)("x")
        assert info.value is exc


def test_interrupts_are_not_caught():
    with pytest.raises(KeyboardInterrupt):
        raising(KeyboardInterrupt())("x")


def test_ansible_adds_no_cause_to_the_message():
    # ansible-core appends an error's __cause__ to its message: the filter's message must be the whole message.
    for exc in (TypeError("bad"), HostlistError("refused")):
        with pytest.raises(AnsibleFilterError) as info:
            raising(exc)("x")
        assert info.value.__cause__ is None and info.value.message == str(info.value)
        assert info.value.__context__ is exc  # the traceback still shows it


def test_is_refusal():
    assert is_refusal(HostlistError("x")) and is_refusal(InputRuleError("x")) and is_refusal(FilterInputError("x"))
    assert not is_refusal(ValueError("x")) and not is_refusal(NotTheCollections("x"))
    assert not is_refusal(json.JSONDecodeError("x", "", 0)) and not is_refusal(TypeError("x")) and not is_refusal(None)


_CORE_ERRORS = [ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, ZeroDivisionError,
                RuntimeError, RecursionError, LookupError, ArithmeticError, NotImplementedError, OSError,
                FileNotFoundError, UnicodeError, AssertionError, NotTheCollections, HostlistError, InputRuleError,
                StripingError, NvidiaSmiParseError, FilterInputError]


@given(name=st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True), error=st.sampled_from(_CORE_ERRORS),
       text=st.text(max_size=40), unreadable=st.sampled_from([None, "the output", "the layout"]))
def test_property_any_exception_of_a_core_comes_out_as_a_filter_error_naming_the_filter(name, error, text, unreadable):
    options = {} if unreadable is None else {"unreadable": unreadable}
    exc = error(text)
    message = message_of(exc, name, **options)
    assert message.startswith("gpufleet.cluster.%s:" % name)
    if is_refusal(exc):
        assert message == ("gpufleet.cluster.%s: %s" % (name, exc)).strip()  # AnsibleError strips its message
    else:
        assert message.startswith("gpufleet.cluster.%s: %s could not be read (%s: " % (
            name, unreadable or "the arguments", error.__name__))


# ---------------------------------------------------------------- the argument checks
def refusal(call):
    with pytest.raises(FilterInputError) as info:
        call()
    return str(info.value)


def test_require():
    require(True, "input", 5, "anything")
    assert refusal(lambda: require(0, "input", {"a": 1}, "a list")) == "input must be a list, got {'a': 1} of type dict"
    assert refusal(lambda: require("", "input", "x" * 200, "short")).endswith("xxx... of type str")


def test_of_type():
    assert of_type("layout", {"cpus": []}, dict, "a mapping") == {"cpus": []}
    assert of_type("nodes", None, list, "a list", optional=True) is None
    assert refusal(lambda: of_type("nodes", None, list, "a list of nodes")) == (
        "nodes must be a list of nodes, got None of type NoneType")
    assert refusal(lambda: of_type("input", (1,), list, "a list")) == "input must be a list, got (1,) of type tuple"


def test_one_of():
    assert one_of("format", "csv", ("q", "csv")) == "csv"
    assert one_of("platform", None, ["sonic"], optional=True) is None
    assert refusal(lambda: one_of("format", "xml", ("q", "csv"))) == (
        "format must be one of q, csv, got 'xml' of type str")
    assert refusal(lambda: one_of("format", ["q"], ("q", "csv"))).endswith("got ['q'] of type list")
    assert refusal(lambda: one_of("kind", {}, {"rdma": (), "gpu": ()})) == (
        "kind must be one of rdma, gpu, got {} of type dict")


def test_flag():
    assert flag("sort", False) is False
    assert refusal(lambda: flag("sort", "yes")) == "sort must be true or false, got 'yes' of type str"
    assert refusal(lambda: flag("sort", 1)) == "sort must be true or false, got 1 of type int"


def test_string_list():
    assert string_list("nodes", ["a", ""], "a list of node names") == ["a", ""]
    assert string_list("nodes", None, "a list", if_none=None) is None
    assert string_list("uris", None, "a list", if_none=[]) == []
    for value in (None, "a", ("a",), ["a", 1], b"a"):
        assert refusal(lambda: string_list("nodes", value, "a list of node names")).startswith(
            "nodes must be a list of node names, got ")
    assert string_list("nodes", ("a",), "a list", types=(list, tuple)) == ["a"]


def test_non_empty_strings():
    assert non_empty_strings("suites", ("bookworm",)) == ["bookworm"]
    assert non_empty_strings("exclude", None, if_none=[]) == []
    assert refusal(lambda: non_empty_strings("components", [""])) == (
        "components must be a list of non-empty strings, got [''] of type list")
    assert refusal(lambda: non_empty_strings("suites", "bookworm")).endswith("got 'bookworm' of type str")


def test_slurped_files():
    assert slurped_files("input", [{"path": "/a", "content": "x", "encoding": "base64"}]) == [("/a", "x")]
    assert refusal(lambda: slurped_files("input", "deb x")) == (
        "input must be a list of {path, content} dicts, got 'deb x' of type str")
    assert refusal(lambda: slurped_files("input", [{"path": "/a", "content": "x"}, {"path": "/b"}])) == (
        "input[1] must be a dict with the string keys path and content (the file's text, b64decode slurp's content), "
        "got {'path': '/b'} of type dict")
