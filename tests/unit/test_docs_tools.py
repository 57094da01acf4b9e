# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/tools/troubleshooting.py and the parts of docs/tools/role_docs.py that decide what the pages say:
the refusals found in a role, their explanations checked both ways, the simplified messages, the default column
of a computed default and the Tags check; and docs/tools/doc_refs.py: each kind of name a doc gives (a role
variable, a tag, a repository path or link, a make target) found when the code has it and reported, with its file
and line, when the code lacks it, and the checkout's own README.md and docs/ clean."""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "docs", "tools"))

import doc_refs  # noqa: E402
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


def test_a_problem_list_shows_each_problem_with_single_and_double_quoted_literals():
    """A message that joins a list of problems: each problem's literals in order, an apostrophe's double-quoted
    literal included, filter arguments and expressions left out."""
    refusal = {"message": "{{ __demo_problems | join(' ') }}", "vars": {"__demo_problems": (
        "{{ ([(inventory_hostname ~ ': the stacks replace' ~ \" each other's libraries: remove \" ~ __demo_purge"
        " ~ ' first, or set demo_switch: true to let apt replace it.')] if x else [])"
        " + ([('demo_port (' ~ (demo_port | join(', ')) ~ ') must be a port number from 1 to 65535.')] if y else []) }}")}}
    assert troubleshooting.message_parts(refusal) == [
        "<...>: the stacks replace each other's libraries: remove <...> first, or set demo_switch: true to let apt"
        " replace it.",
        "demo_port (<...>) must be a port number from 1 to 65535.",
    ]


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


def test_a_problem_list_shows_each_problem_literal_or_worded_in_its_own_variable():
    """A message that joins a list of problems: each `[('...' ~ x)]` literal, and each `[__x_message]` by that
    variable's text, or the parts of the problem list it joins in turn, in the list's order."""
    refusal = {"role": "demo", "message": "{{ __demo_problems | join(' ') }}", "vars": {
        "__demo_port_message": "{{ inventory_hostname }}: demo_port ({{ demo_port }}) must be 1-65535.",
        "__demo_nested_message": "{{ inventory_hostname }}: {{ __demo_nested | join(' ') }}",
        "__demo_nested": "{{ ([('demo_tls_cert_file and demo_tls_key_file are set together or both left empty.')] if x else []) }}",
        "__demo_problems": """{{ ([('demo_user (' ~ demo_user ~ ') is a system name: letters, digits and -')] if a else [])
             + ([__demo_port_message] if b else []) + ([__demo_nested_message] if c else []) + ([__demo_absent] if d else []) }}""",
    }}
    assert troubleshooting.message_parts(refusal) == [
        "demo_user (<...>) is a system name: letters, digits and -",
        "<host>: demo_port (<demo_port>) must be 1-65535.",
        "demo_tls_cert_file and demo_tls_key_file are set together or both left empty.",
    ]


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


# ---------------------------------------------------------------- doc_refs.py
@pytest.fixture
def refs_tree(tmp_path):
    """For doc_refs.py: a collection with one role (a default, an argument spec with a sub-option, a register and a
    set_fact, tags), a playbook, a filter, an inventory, a Makefile and a .gitignore."""
    root = tmp_path
    write(str(root / "roles" / "demo" / "defaults" / "main.yml"), "---\ndemo_port: 80\n")
    write(str(root / "roles" / "demo" / "vars" / "main.yml"), "---\n__demo_unit_file: /etc/demo.conf\n")
    write(str(root / "roles" / "demo" / "meta" / "argument_specs.yml"), """\
        ---
        argument_specs:
          main:
            options:
              demo_port: {type: int}
              demo_source: {type: dict, options: {demo_source_uri: {type: str}}}
        """)
    write(str(root / "roles" / "demo" / "tasks" / "main.yml"), """\
        ---
        - name: Read
          ansible.builtin.command: demo --version
          register: demo_version_read
          tags: [demo, demo_preflight]
        - name: Remember
          ansible.builtin.set_fact:
            demo_seen: true
          tags: demo_service
        """)
    write(str(root / "playbooks" / "demo.yml"), "---\n- hosts: all\n  tags: [demo_play]\n  roles: [demo]\n")
    write(str(root / "plugins" / "filter" / "demo_lines.py"), "def demo_lines():\n    return []\n")
    write(str(root / "inventories" / "site" / "group_vars" / "all.yml"), "---\ngpufleet_ip: 10.0.0.1\n")
    write(str(root / "docs" / "other.md"), "# other\n")
    write(str(root / "Makefile"), "lint: venv\n\tansible-lint\nvenv:\n\ttrue\nX := 1\n")
    write(str(root / ".gitignore"), ".build/\nbench/results/\n")
    return str(root)


def problems_of(refs_tree, text, rel="docs/page.md"):
    return doc_refs.check_text(rel, textwrap.dedent(text), doc_refs.known(refs_tree), refs_tree)


def test_what_the_code_has_passes(refs_tree):
    assert problems_of(refs_tree, """\
        `demo_port`, `demo_source` with `demo_source_uri`, `demo_version_read` and `demo_seen`, the filter
        `demo_lines`, `gpufleet_ip`, the private `__demo_unit_file` (or `demo_unit_file` as the generated pages
        spell it), the family `demo_source_`, the role `demo`, the tags `demo_preflight` and `demo_play`.
        Files: `roles/demo/tasks/main.yml`, `roles/<role>/defaults/main.yml`, `meta/argument_specs.yml`,
        `playbooks/{demo,demo}.yml`, `bench/results/run.txt` (written by the bench), `docs/other.md:3`, and
        [the other page](other.md#top), [a site](https://example.org/x).
        `make lint`, `make lint venv`, `LAB=1 make lint`, `make -s lint X=1`.

        ```bash
        ansible-playbook playbooks/demo.yml --tags demo,demo_preflight -e demo_port=8080 --skip-tags always
        make venv   # a comment naming make nothing
        sudo apt-get install -y make python3
        ```
        """) == []


def test_a_variable_the_code_lacks_is_reported_with_its_line(refs_tree):
    assert problems_of(refs_tree, """\
        # A page
        Set `demo_prot` (a typo), or `demo_source_url`; `gpufleet_ipv6` too.

        ```bash
        ansible-playbook playbooks/demo.yml -e demo_gone=1
        ```

        ```yaml
        demo_port: 8080
        demo_sources:
          - demo_source_uri: x
        ```
        """) == [
        "docs/page.md:2: `demo_prot` is no variable, tag, plugin or name of the collection's code",
        "docs/page.md:2: `demo_source_url` is no variable, tag, plugin or name of the collection's code",
        "docs/page.md:2: `gpufleet_ipv6` is no variable, tag, plugin or name of the collection's code",
        "docs/page.md:5: demo_gone (set in a code block) is no variable the collection has",
        "docs/page.md:10: demo_sources (set in a code block) is no variable the collection has",
    ]


def test_names_of_other_things_are_not_variables(refs_tree):
    # a word without a role's prefix, a path's parts and a command are no role variable
    assert problems_of(refs_tree, "`slurmctld`, `cluster_name`, `roles/demo/tasks/main.yml`, `demo --version`\n") == []


def test_a_tag_no_role_or_playbook_has_is_reported(refs_tree):
    assert problems_of(refs_tree, """\
        Run with `--tags demo_policy` or:

        ```bash
        ansible-playbook playbooks/demo.yml --tags=demo,demo_config
        ```
        """) == [
        "docs/page.md:1: `demo_policy` is no variable, tag, plugin or name of the collection's code",
        "docs/page.md:1: --tags demo_policy: no role or playbook has the tag 'demo_policy'",
        "docs/page.md:4: --tags demo_config: no role or playbook has the tag 'demo_config'",
    ]


def test_a_path_or_link_that_is_not_there_is_reported(refs_tree):
    assert problems_of(refs_tree, """\
        See `roles/demo/tasks/gone.yml`, `playbooks/{demo,other}.yml`, `roles/<role>/templates/x.j2`.
        And [gone](gone.md), [the top](../README.md).
        """) == [
        "docs/page.md:1: roles/demo/tasks/gone.yml does not exist",
        "docs/page.md:1: playbooks/{demo,other}.yml does not exist",
        "docs/page.md:1: roles/<role>/templates/x.j2 does not exist",
        "docs/page.md:2: the link gone.md leads nowhere (docs/gone.md does not exist)",
        "docs/page.md:2: the link ../README.md leads nowhere (README.md does not exist)",
    ]


def test_a_make_target_the_makefile_lacks_is_reported(refs_tree):
    assert problems_of(refs_tree, """\
        `make lint test` and

        ```bash
        cd x && make plan
        ```
        """) == [
        "docs/page.md:1: make test: the Makefile has no target 'test'",
        "docs/page.md:4: make plan: the Makefile has no target 'plan'",
    ]


def test_check_exits_non_zero_listing_each_problem(refs_tree, monkeypatch, capsys):
    write(os.path.join(refs_tree, "README.md"), "`demo_port` and `make lint`\n")
    monkeypatch.setattr(doc_refs, "ROOT", refs_tree)
    assert doc_refs.main(["--check"]) == 0
    write(os.path.join(refs_tree, "roles", "demo", "README.md"), "`demo_port`, tag `demo_service`\n")
    assert doc_refs.main(["--check"]) == 0
    write(os.path.join(refs_tree, "roles", "demo", "README.md"), "`demo_prot`\n")
    write(os.path.join(refs_tree, "docs", "x", "deep.md"), "`make gone` and `demo_gone`\n")
    assert doc_refs.main(["--check"]) == 1
    assert doc_refs.main([]) == 0
    out = capsys.readouterr()
    assert "docs/x/deep.md:1: make gone: the Makefile has no target 'gone'" in out.out
    assert "docs/x/deep.md:1: `demo_gone` is no variable" in out.out
    assert "roles/demo/README.md:1: `demo_prot` is no variable" in out.out


def test_the_checkouts_docs_name_only_what_the_code_has():
    assert doc_refs.check() == []
