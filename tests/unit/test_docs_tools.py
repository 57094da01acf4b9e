# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/tools/troubleshooting.py and the parts of docs/tools/role_docs.py that decide what the pages say:
the refusals found in a role, their explanations checked both ways, the simplified messages, the default column
of a computed default and the Tags check."""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "docs", "tools"))

import role_docs  # noqa: E402
import troubleshooting  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(textwrap.dedent(text))


@pytest.fixture
def tree(tmp_path):
    """A collection with one role: an assert in a block, a fail, and a task that refuses nothing."""
    write(str(tmp_path / "roles" / "demo" / "tasks" / "preflight.yml"), """\
        ---
        - name: Preflight | Checks
          block:
            - name: Preflight | Check the port
              ansible.builtin.assert:
                that: demo_port | int > 0
                fail_msg: "{{ inventory_hostname }}: demo_port ({{ demo_port }}) must be 1-65535; {{ a if b else c }}."
            - name: Preflight | Check the shape
              ansible.builtin.assert:
                that: [demo_x | length > 0]
        - name: Preflight | Say hello
          ansible.builtin.debug:
            msg: hello
        """)
    write(str(tmp_path / "roles" / "demo" / "tasks" / "service.yml"), """\
        ---
        - name: Service | Give up
          ansible.builtin.fail:
            msg: "{{ __demo_unit }} failed on {{ ansible_facts['hostname'] }}"
        """)
    return str(tmp_path)


def test_refusals_are_found_in_blocks_and_in_order(tree):
    found = troubleshooting.refusals(tree)
    assert [(r["file"], r["name"], r["kind"]) for r in found] == [
        ("tasks/preflight.yml", "Preflight | Check the port", "assert"),
        ("tasks/preflight.yml", "Preflight | Check the shape", "assert"),
        ("tasks/service.yml", "Service | Give up", "fail"),
    ]
    assert found[1]["message"] == "" and found[1]["that"] == ["demo_x | length > 0"]


def test_messages_are_simplified():
    assert troubleshooting.simplify(
        "{{ inventory_hostname }}: demo_port ({{ demo_port | int }}) {{ a if b else c }} on {{ ansible_facts['distribution'] }}",
        "demo") == "<host>: demo_port (<demo_port>) <...> on <distribution>"
    assert troubleshooting.simplify("{{ __demo_unit }} {% if x %}y{% endif %}", "demo") == "<unit> y"


def test_every_refusal_needs_an_explanation_and_every_explanation_a_refusal(tree):
    found = troubleshooting.refusals(tree)
    explanations = {"roles": {"demo": {
        "Preflight | Check the port": {"means": "m", "fix": "f"},
        "Preflight | Check the shape": {"means": "m", "fix": ""},
        "Preflight | Check a port that is gone": {"means": "m", "fix": "f"},
    }}}
    problems = troubleshooting.problems(found, explanations)
    assert any("'Service | Give up' has no explanation" in p for p in problems)
    assert any("'Preflight | Check the shape'" in p and "needs both means and fix" in p for p in problems)
    assert any("'Preflight | Check a port that is gone' explains no task" in p for p in problems)
    assert len(problems) == 3


def test_the_page_shows_message_conditions_and_explanation(tree):
    found = troubleshooting.refusals(tree)
    explanations = {"roles": {"demo": {name: {"means": "It means " + name, "fix": "Fix " + name}
                                       for name in ("Preflight | Check the port", "Preflight | Check the shape",
                                                    "Service | Give up")}},
                    "logs": [{"daemon": "demod", "hosts": "all", "log": "/var/log/demo.log", "read": "`tail`"}]}
    assert troubleshooting.problems(found, explanations) == []
    page = troubleshooting.render(found, explanations)
    assert "| demod | all | /var/log/demo.log | `tail` |" in page
    assert "> `<host>`: demo_port (`<demo_port>`) must be 1-65535; `<...>`." in page
    assert "- `demo_x | length > 0`" in page
    assert "**Means:** It means Service | Give up" in page


def test_the_collections_page_is_current_and_complete():
    assert troubleshooting.main(check=True) == 0


def test_default_cells(tmp_path):
    write(str(tmp_path / "defaults" / "main.yml"), """\
        ---
        demo_count: "{{ gpufleet_hardware.gpus | default(0) }}"
        # computed from: the platform (144 for sonic)
        demo_cell: "{{ __demo_cells[demo_platform] }}"
        demo_internal: "{{ __demo_x }}"
        demo_list: [1, 2]
        demo_long: {%s}
        demo_null: null
        """ % ", ".join(f"k{i}: {'v' * 20}" for i in range(12)))
    defaults, notes = role_docs.role_defaults(str(tmp_path))

    def cell(name, opt=None):
        return role_docs.default_cell(name, opt or {}, defaults, notes)

    assert cell("demo_count") == ("computed: `gpufleet_hardware.gpus \\| default(0)`", None)
    assert cell("demo_cell") == ("computed from the platform (144 for sonic)", None)
    text, problem = cell("demo_internal")
    assert "reads internal variables" in problem
    assert cell("demo_list") == ("`[1, 2]`", None)
    assert cell("demo_long") == ("see `defaults/main.yml` (12 keys)", None)
    assert cell("demo_null") == ("`null`", None)
    assert cell("demo_spec_only", {"default": "x"}) == ('`"x"`', None)
    assert cell("demo_required", {"required": True}) == ("*required*", None)


def test_tags_section_must_match_the_tasks(tree, monkeypatch):
    role = os.path.join(tree, "roles", "demo")
    write(os.path.join(role, "tasks", "main.yml"), """\
        ---
        - name: Preflight
          ansible.builtin.import_tasks: preflight.yml
          tags: [demo, demo_preflight]
        - name: Service
          ansible.builtin.import_tasks: service.yml
          tags: [demo, demo_service]
        """)
    monkeypatch.setattr(role_docs, "ROOT", tree)
    assert "no '## Tags' section" in role_docs.tags_problem(role, "# demo\n")
    assert role_docs.tags_problem(role, "## Tags\n`demo`, `demo_preflight`, `demo_service`.\n\n## Variables\n") is None
    stale = role_docs.tags_problem(role, "## Tags\n`demo`, `demo_preflight`, `demo_gone`.\n")
    assert "not listed: demo_service" in stale and "no task has: demo_gone" in stale


def test_the_role_readmes_are_current():
    assert role_docs.main(check=True) == 0
