# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every filter file must hold for Ansible and ansible-doc: FilterModule registering the filter under its name,
and DOCUMENTATION, EXAMPLES and RETURN that parse and describe it."""
from __future__ import annotations

import inspect

import yaml


def assert_documented(plugin, name, version_added="0.1.0", options_are_arguments=False):
    """The filter file ``plugin`` registers ``name`` as its function and documents it; returns its DOCUMENTATION.

    With ``options_are_arguments``, the documented options are exactly the function's arguments after the input.
    """
    function = getattr(plugin, name)
    assert plugin.FilterModule().filters() == {name: function}
    doc = yaml.safe_load(plugin.DOCUMENTATION)
    assert doc["name"] == name and doc["version_added"] == version_added
    positional = doc["positional"].replace(" ", "").split(",")
    assert positional[0] == "_input" and set(positional) <= set(doc["options"])
    assert doc["options"]["_input"]["required"] is True
    assert yaml.safe_load(plugin.EXAMPLES)
    assert yaml.safe_load(plugin.RETURN)["_value"]["description"]
    if options_are_arguments:
        assert set(doc["options"]) - {"_input"} == set(list(inspect.signature(function).parameters)[1:])
    return doc
