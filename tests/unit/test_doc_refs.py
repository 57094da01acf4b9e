# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/tools/doc_refs.py: each kind of name a doc gives (a role variable, a tag, a repository path or link, a make
target) found when the code has it and reported, with its file and line, when the code lacks it; and the
checkout's own README.md and docs/ clean."""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "docs", "tools"))

import doc_refs  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(textwrap.dedent(text))


@pytest.fixture
def tree(tmp_path):
    """A collection with one role (a default, an argument spec with a sub-option, a register and a set_fact,
    tags), a playbook, a filter, an inventory, a Makefile and a .gitignore."""
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


def problems_of(tree, text, rel="docs/page.md"):
    return doc_refs.check_text(rel, textwrap.dedent(text), doc_refs.known(tree), tree)


def test_what_the_code_has_passes(tree):
    assert problems_of(tree, """\
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


def test_a_variable_the_code_lacks_is_reported_with_its_line(tree):
    assert problems_of(tree, """\
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


def test_names_of_other_things_are_not_variables(tree):
    # a word without a role's prefix, a path's parts and a command are no role variable
    assert problems_of(tree, "`slurmctld`, `cluster_name`, `roles/demo/tasks/main.yml`, `demo --version`\n") == []


def test_a_tag_no_role_or_playbook_has_is_reported(tree):
    assert problems_of(tree, """\
        Run with `--tags demo_policy` or:

        ```bash
        ansible-playbook playbooks/demo.yml --tags=demo,demo_config
        ```
        """) == [
        "docs/page.md:1: `demo_policy` is no variable, tag, plugin or name of the collection's code",
        "docs/page.md:1: --tags demo_policy: no role or playbook has the tag 'demo_policy'",
        "docs/page.md:4: --tags demo_config: no role or playbook has the tag 'demo_config'",
    ]


def test_a_path_or_link_that_is_not_there_is_reported(tree):
    assert problems_of(tree, """\
        See `roles/demo/tasks/gone.yml`, `playbooks/{demo,other}.yml`, `roles/<role>/templates/x.j2`.
        And [gone](gone.md), [the top](../README.md).
        """) == [
        "docs/page.md:1: roles/demo/tasks/gone.yml does not exist",
        "docs/page.md:1: playbooks/{demo,other}.yml does not exist",
        "docs/page.md:1: roles/<role>/templates/x.j2 does not exist",
        "docs/page.md:2: the link gone.md leads nowhere (docs/gone.md does not exist)",
        "docs/page.md:2: the link ../README.md leads nowhere (README.md does not exist)",
    ]


def test_a_make_target_the_makefile_lacks_is_reported(tree):
    assert problems_of(tree, """\
        `make lint test` and

        ```bash
        cd x && make plan
        ```
        """) == [
        "docs/page.md:1: make test: the Makefile has no target 'test'",
        "docs/page.md:4: make plan: the Makefile has no target 'plan'",
    ]


def test_check_exits_non_zero_listing_each_problem(tree, monkeypatch, capsys):
    write(os.path.join(tree, "README.md"), "`demo_port` and `make lint`\n")
    monkeypatch.setattr(doc_refs, "ROOT", tree)
    assert doc_refs.main(["--check"]) == 0
    write(os.path.join(tree, "docs", "x", "deep.md"), "`make gone` and `demo_gone`\n")
    assert doc_refs.main(["--check"]) == 1
    assert doc_refs.main([]) == 0
    out = capsys.readouterr()
    assert "docs/x/deep.md:1: make gone: the Makefile has no target 'gone'" in out.out
    assert "docs/x/deep.md:1: `demo_gone` is no variable" in out.out


def test_the_checkouts_docs_name_only_what_the_code_has():
    assert doc_refs.check() == []
