# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make mutation` on the package layout (tests/mutation): a module's name (its path under plugins/module_utils
without .py), its staging name, the refusal of names that are no module, and the search for the tests to run
against a module (through the plugins and test helpers that import it)."""
from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "mutation"))

import mutation_names as names  # noqa: E402  pylint: disable=wrong-import-position
import run as mutation_run  # noqa: E402  pylint: disable=wrong-import-position
import scores  # noqa: E402  pylint: disable=wrong-import-position

PKG = "ansible_collections.gpufleet.cluster."


def write(root: Path, path: str, text: str = "") -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def tree(tmp_path):
    """A collection: slurm/hostlist, used by slurm/conf/settings (from-import), used by a filter (import in
    parentheses); an unrelated module; a helper that imports the filter; tests of each."""
    for package in ("", "slurm/", "slurm/conf/", "power/"):
        write(tmp_path, "plugins/module_utils/%s__init__.py" % package, '"""package"""\n')
    write(tmp_path, "plugins/module_utils/slurm/hostlist.py", "def expand(x):\n    return x\n")
    write(tmp_path, "plugins/module_utils/slurm/hostlist_extra.py", "X = 1\n")
    write(tmp_path, "plugins/module_utils/slurm/conf/settings.py", """\
        from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import hostlist
        """)
    write(tmp_path, "plugins/module_utils/power/model.py", "Y = 2\n")
    write(tmp_path, "plugins/filter/slurm_node_lines.py", """\
        from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf import (
            other,
            settings,
        )
        """)
    write(tmp_path, "tests/unit/helpers/node_lines.py", """\
        from ansible_collections.gpufleet.cluster.plugins.filter.slurm_node_lines import FilterModule
        """)
    write(tmp_path, "tests/unit/helpers/uses_node_lines.py", "import node_lines\n")
    write(tmp_path, "tests/unit/helpers/unrelated.py", "import os\n")
    tests = {
        "plugins/module_utils/slurm/test_hostlist.py":
            "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand\n",
        "plugins/module_utils/slurm/test_hostlist_extra.py":
            "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist_extra import X\n",
        "plugins/module_utils/slurm/conf/test_settings.py":
            "import ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings as s\n",
        "plugins/filter/test_slurm_node_lines.py":
            "from ansible_collections.gpufleet.cluster.plugins.filter import slurm_node_lines\n",
        "plugins/module_utils/power/test_model.py":
            "from ansible_collections.gpufleet.cluster.plugins.module_utils.power import model\n",
        "test_through_a_helper.py": "from uses_node_lines import node_lines\n",
        "test_unrelated_helper.py": "import unrelated\n",
    }
    for path, text in tests.items():
        write(tmp_path, "tests/unit/" + path, text)
    return tmp_path


@pytest.mark.parametrize("arg", ["slurm/conf/settings", "slurm/conf/settings.py",
                                 "plugins/module_utils/slurm/conf/settings.py", "slurm.conf.settings"])
def test_a_module_is_named_by_its_path_under_module_utils(arg):
    assert names.canonical(arg) == "slurm/conf/settings"


@pytest.mark.parametrize("arg", ["", "slurm/", "/slurm/hostlist", "slurm/../hostlist", "slurm//hostlist",
                                 "slurm/host-list", "slurm/__init__", "slurm/hostlist.pyc", "1slurm/hostlist"])
def test_what_is_no_module_name_is_refused(arg):
    with pytest.raises(ValueError, match="is not a module name: its path under plugins/module_utils without .py"):
        names.canonical(arg)


def test_the_paths_of_a_nested_module():
    module = "fabric/roce/pfc_headroom"
    assert names.source(module, Path("/r")) == Path("/r/plugins/module_utils/fabric/roce/pfc_headroom.py")
    assert names.relative_source(module) == "plugins/module_utils/fabric/roce/pfc_headroom.py"
    assert names.dotted(module) == "plugins.module_utils.fabric.roce.pfc_headroom"
    assert names.mutant_prefix(module) == PKG + "plugins.module_utils.fabric.roce.pfc_headroom."
    work = Path("/w")
    assert names.staged(work, module) == Path(
        "/w/ansible_collections/gpufleet/cluster/plugins/module_utils/fabric/roce/pfc_headroom.py")
    assert names.meta(work, module) == Path(
        "/w/mutants/ansible_collections/gpufleet/cluster/plugins/module_utils/fabric/roce/pfc_headroom.py.meta")


def test_the_staging_name_is_flat_and_maps_back():
    for module in mutation_run.CORE + ["slurm/hostlist", "a/b/c/d"]:
        flat = names.staging_name(module)
        assert "/" not in flat and os.sep not in flat
        assert names.canonical(flat) == module
    assert names.staging_name("slurm/hostlist") == "slurm.hostlist"


def test_core_names_are_module_names_each_once():
    assert len(set(mutation_run.CORE)) == len(mutation_run.CORE)
    assert [names.canonical(m) for m in mutation_run.CORE] == mutation_run.CORE


def test_core_names_are_modules_of_the_checkout():
    assert names.unknown(mutation_run.CORE) == {}


def test_known_lists_every_module_and_no_package_file(tree):
    assert names.known(tree) == ["power/model", "slurm/conf/settings", "slurm/hostlist", "slurm/hostlist_extra"]


def test_every_unknown_name_is_reported_with_the_module_it_may_mean(tree):
    found = names.unknown(["slurm/hostlist", "hostlist", "conf_settings", "slurm/nodes", "x/../y", "model"], tree)
    assert found == {
        "hostlist": "no plugins/module_utils/hostlist.py; did you mean slurm/hostlist?",
        "conf_settings": "no plugins/module_utils/conf_settings.py; did you mean slurm/conf/settings?",
        "slurm/nodes": "no plugins/module_utils/slurm/nodes.py",
        "x/../y": "'x/../y' is not a module name: its path under plugins/module_utils without .py, e.g. slurm/hostlist",
        "model": "no plugins/module_utils/model.py; did you mean power/model?",
    }


def test_a_run_with_an_unknown_module_stops_before_anything_runs(tree):
    with pytest.raises(SystemExit) as stop:
        mutation_run.modules_of(["slurm/hostlist", "slurm_hostlist", "slurm/conf/nodes"], tree)
    assert str(stop.value) == (
        "unknown module(s), nothing run:\n"
        "  slurm_hostlist: no plugins/module_utils/slurm_hostlist.py; did you mean slurm/hostlist?\n"
        "  slurm/conf/nodes: no plugins/module_utils/slurm/conf/nodes.py\n"
        "(a module is its path under plugins/module_utils without .py, e.g. slurm/hostlist)")


def test_the_modules_of_a_run_are_named_the_one_way(tree):
    assert mutation_run.modules_of(["slurm.hostlist", "power/model.py"], tree) == ["slurm/hostlist", "power/model"]


def test_the_default_run_is_core_and_refuses_a_missing_core_module(tree, monkeypatch):
    monkeypatch.setattr(mutation_run, "CORE", ["slurm/hostlist", "power/model"])
    assert mutation_run.modules_of([], tree) == ["slurm/hostlist", "power/model"]
    monkeypatch.setattr(mutation_run, "CORE", ["slurm/hostlist", "power/gone"])
    with pytest.raises(SystemExit, match="power/gone: no plugins/module_utils/power/gone.py"):
        mutation_run.modules_of([], tree)


@pytest.mark.parametrize("text", [
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import hostlist",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys, hostlist as h",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import (\n    keys,\n    hostlist,\n)",
    "import ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist as hostlist",
])
def test_the_spellings_that_import_a_module(text):
    assert names.imports("plugins.module_utils.slurm.hostlist").search(text)


@pytest.mark.parametrize("text", [
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist_extra import X",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import hostlist_extra",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf import hostlist",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils import hostlist",
    "from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import (\n    keys,\n)\nhostlist = 1",
])
def test_what_does_not_import_it(text):
    assert not names.imports("plugins.module_utils.slurm.hostlist").search(text)


def test_users_follow_imports_through_packages_and_plugins(tree):
    assert mutation_run.users("slurm/hostlist", tree) == {
        "plugins.module_utils.slurm.hostlist", "plugins.module_utils.slurm.conf.settings",
        "plugins.filter.slurm_node_lines"}
    assert mutation_run.users("power/model", tree) == {"plugins.module_utils.power.model"}


def test_helpers_that_import_a_user_count_as_users(tree):
    plugins = mutation_run.users("slurm/hostlist", tree)
    assert mutation_run.helpers(plugins, tree) == {"node_lines", "uses_node_lines"}
    assert mutation_run.helpers({"plugins.module_utils.power.model"}, tree) == set()


def test_the_tests_of_a_module_are_those_that_reach_it(tree):
    unit = "ansible_collections/gpufleet/cluster/tests/unit/"
    assert mutation_run.tests_for("slurm/hostlist", tree) == [unit + t for t in [
        "plugins/filter/test_slurm_node_lines.py",
        "plugins/module_utils/slurm/conf/test_settings.py",
        "plugins/module_utils/slurm/test_hostlist.py",
        "test_through_a_helper.py",
    ]]
    assert mutation_run.tests_for("power/model", tree) == [unit + "plugins/module_utils/power/test_model.py"]


def test_the_checkout_s_modules_have_their_tests_found_on_the_new_paths():
    def found(module):
        return [t.split("tests/unit/", 1)[1] for t in mutation_run.tests_for(module)]
    munge_key = found("slurm/munge_key")
    for test in ("plugins/module_utils/slurm/test_munge_key.py",  # the module itself
                 "plugins/modules/test_munge_key.py"):  # the munge_key module
        assert test in munge_key
    layout_parse = found("lustre/layout_parse")
    for test in ("plugins/module_utils/lustre/test_layout_parse.py",  # the module itself
                 "plugins/module_utils/lustre/test_layout.py",  # lustre/layout imports it
                 "plugins/modules/test_lfs_stripe.py"):  # the lfs_stripe module, through lustre/layout
        assert test in layout_parse


def test_the_setup_names_the_nested_module_and_its_tests(tmp_path):
    tests = ["ansible_collections/gpufleet/cluster/tests/unit/plugins/module_utils/slurm/test_hostlist.py"]
    mutation_run.write_config(tmp_path, "slurm/hostlist", tests)
    text = (tmp_path / "setup.cfg").read_text(encoding="utf-8")
    assert "only_mutate = ansible_collections/gpufleet/cluster/plugins/module_utils/slurm/hostlist.py\n" in text
    assert mutation_run.staged_selection(tmp_path) == tests


def _results(out: Path, module: str, codes: dict) -> None:
    path = names.meta(out / names.staging_name(module), module)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")


def test_scores_read_a_nested_module_s_results_and_name_old_layout_folders(tmp_path, monkeypatch, capsys):
    prefix = names.mutant_prefix("slurm/munge_key")
    _results(tmp_path, "slurm/munge_key", {prefix + "x_a__mutmut_1": 1, prefix + "x_a__mutmut_2": 0,
                                           prefix + "x_a__mutmut_3": None})
    (tmp_path / "hostlist").mkdir()
    (tmp_path / "odd-name").mkdir()
    monkeypatch.setattr(scores, "OUT", tmp_path)
    assert scores.staged_modules(tmp_path) == ["hostlist", "odd-name", "slurm/munge_key"]
    assert scores.load("slurm/munge_key") == {prefix + "x_a__mutmut_1": 1, prefix + "x_a__mutmut_2": 0,
                                              prefix + "x_a__mutmut_3": None}
    assert scores.main(["--survivors"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "hostlist                 no plugins/module_utils/hostlist.py: results of an older layout, " \
                       "remove %s" % (tmp_path / "hostlist")
    assert lines[2].startswith("odd-name                 no plugins/module_utils/odd-name.py: results of an older")
    assert lines[3].split() == ["slurm/munge_key", "1", "2", "1", "0", "0", "50.0%", "(1", "not", "checked)"]
    assert lines[4].split() == ["survived", "x_a__mutmut_2"]


def test_scores_refuse_an_old_flat_name(monkeypatch, tmp_path):
    monkeypatch.setattr(scores, "OUT", tmp_path)
    with pytest.raises(SystemExit, match="^unknown module[(]s[)]: roce_qos: no plugins/module_utils/roce_qos.py; "
                                         "did you mean fabric/roce/qos[?]$"):
        scores.main(["roce_qos"])
