# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: lfs_stripe
version_added: 0.1.0
short_description: Set a Lustre directory's default layout (striping, pool, PFL components) with lfs setstripe
description:
  - Reads the default layout of the directory O(path) with C(lfs getstripe -d --yaml) (falling back to
    C(lfs getstripe -d) when an old C(lfs) refuses C(--yaml)), compares it with the desired one and runs
    C(lfs setstripe) only when they differ. The new layout replaces the old one whatever its kind (plain or
    composite); no C(lfs setstripe -d) is run first.
  - The desired layout is either plain (O(stripe_count), O(stripe_size), O(pool)) or progressive (PFL,
    O(components)). The C(components) a C(gpufleet.cluster.lustre_pfl_layout) filter returns can be passed
    as O(components) unchanged.
  - "Equal means: the directory has a default layout of its own, it has one mirror, the same number of
    components, and each has the same start and end, stripe count (-1 = all OSTs), stripe size in bytes,
    pool (V('') = none), pattern C(raid0) and stripe offset -1 (the MDS picks the first OST). A plain layout
    equals a composite one with a single 0..EOF component."
  - A directory without a default layout of its own (C(lfs) prints the file system default with
    C(pattern 0) then) never equals a desired layout, even one with the same numbers, so the layout is
    pinned on the directory.
  - After C(lfs setstripe) the layout is read back and the task fails when it differs from the desired one.
  - "O(path) must exist in a real run: the module sets layouts, it creates no directory (create it first with
    C(ansible.builtin.file), as the C(gpufleet.cluster.lustre_client) role does). In check mode a missing O(path)
    is reported as changed, with the diff C(before) V((absent)) and the layout it would get, since the task
    creating it ran in check mode too; nothing is read or run then."
  - Refuses, before running anything, stripe sizes that are not a multiple of 64 KiB or not below 4 GiB,
    stripe counts of 0, below -1 or above 2000, component ends that do not increase, are not a multiple of
    the component's stripe size, or do not finish at EOF.
options:
  path:
    description:
      - The directory whose default layout is managed. It must exist, be a directory and be on Lustre.
      - An absolute path without control characters (a relative path could be read by C(lfs) as an option).
      - In check mode a missing O(path) is not an error (see the description).
    type: path
    required: true
  stripe_count:
    description:
      - Plain layout, number of OSTs each file is striped over; -1 stripes over all OSTs.
      - Needs O(stripe_size); mutually exclusive with O(components).
    type: int
  stripe_size:
    description:
      - Plain layout, bytes per stripe, as bytes or with a binary unit (V(1M), V(4194304), V(64K)). A multiple
        of 64 KiB below 4 GiB.
    type: str
  pool:
    description:
      - OST pool to allocate from, without the C(fsname.) prefix. V('') or left out means no pool.
      - With O(components), the pool of every component that has no C(pool) key of its own.
    type: str
  components:
    description:
      - Progressive file layout, one dict per component in file offset order. Each has C(end) (bytes, a size
        like V(64M), or -1 / V(eof) for the last one), C(stripe_count) (-1 = all OSTs), C(stripe_size)
        (bytes or a size) and optionally C(pool) (V('') = none). A C(start) key is accepted and must equal
        the previous component's end (0 for the first).
      - Mutually exclusive with O(stripe_count) and O(stripe_size).
    type: list
    elements: dict
  state:
    description:
      - V(present) sets the layout given; V(absent) removes the directory's default layout (C(lfs setstripe -d)),
        so new files get the file system default. With V(absent) give no layout options.
    type: str
    choices: [present, absent]
    default: present
  lfs_command:
    description: The C(lfs) program, a name looked up in PATH or an absolute path.
    type: path
    default: lfs
attributes:
  check_mode:
    description:
      - Reads the layout and reports the C(lfs setstripe) command that would run; never runs it.
      - A missing O(path) is reported as changed (the directory would be created first, then get the layout).
  diff_mode:
    description: "Shows the layout before and after, one line per component, e.g. C(0-64M: 1 x 1M)."
extends_documentation_fragment:
  - gpufleet.cluster.attributes
notes:
  - Needs C(lfs) from the Lustre client utilities; PFL needs Lustre 2.10 or later, C(-p none) (used only on
    a component without pool that follows one with a pool) Lustre 2.11 or later.
  - The stripe offset (C(-i)), overstriping, Data-on-MDT and mirrors are not set by this module; a directory
    that has them is brought back to the plain C(raid0) layout given.
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Stripe a checkpoint directory over 8 OSTs with 4 MiB stripes
  gpufleet.cluster.lfs_stripe:
    path: /lustre/ckpt
    stripe_count: 8
    stripe_size: 4M

- name: Progressive layout computed by the lustre_pfl_layout filter
  gpufleet.cluster.lfs_stripe:
    path: /lustre/datasets
    components: "{{ (sizes | gpufleet.cluster.lustre_pfl_layout(ost_count=16)).components }}"

- name: Hand-written PFL on the flash pool for the first 64 MiB
  gpufleet.cluster.lfs_stripe:
    path: /lustre/scratch/run42
    components:
      - {end: 64M, stripe_count: 1, stripe_size: 1M, pool: flash}
      - {end: eof, stripe_count: -1, stripe_size: 4M}

- name: Go back to the file system default
  gpufleet.cluster.lfs_stripe:
    path: /lustre/scratch/run42
    state: absent
"""

RETURN = r"""
layout:
  description:
    - The directory's default layout, normalised, after the change when one was made (and not in check mode).
    - Null in check mode when O(path) does not exist yet.
    - C(is_set) is false when the directory has no default layout of its own (the components are then the
      file system default lfs printed), null when an old C(lfs) does not say.
    - Each component has C(start), C(end) (-1 = EOF), C(stripe_count) (-1 = all OSTs), C(stripe_size) (bytes),
      C(pool) (V('') = none), C(pattern) and C(stripe_offset).
  returned: always
  type: dict
  sample:
    is_set: true
    mirror_count: 1
    components:
      - {start: 0, end: 67108864, stripe_count: 1, stripe_size: 1048576, pool: '', pattern: raid0, stripe_offset: -1}
      - {start: 67108864, end: -1, stripe_count: 8, stripe_size: 4194304, pool: '', pattern: raid0, stripe_offset: -1}
desired:
  description: The desired layout in the same form; no components with O(state=absent).
  returned: always
  type: dict
diff:
  description: "The layout before and after as text, one line per component (C(0-64M: 1 x 1M))."
  returned: always
  type: dict
  sample: {before: "0-EOF: 1 x 1M\n", after: "0-64M: 1 x 1M\n64M-EOF: 8 x 4M\n"}
command:
  description: The C(lfs setstripe) argv that ran, or would run in check mode; empty when nothing was to do.
  returned: always
  type: list
  elements: str
  sample: [lfs, setstripe, -E, 64M, -c, '1', -S, 1M, -E, '-1', -c, '8', -S, 4M, /lustre/ckpt]
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import CommandRunner
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (
    LayoutError,
    LayoutParseError,
    delete_argv,
    desired_layout,
    differences,
    layout_text,
    read_layout,
    setstripe_argv,
)

ARGUMENT_SPEC = {
    "path": {"type": "path", "required": True},
    "stripe_count": {"type": "int"},
    "stripe_size": {"type": "str"},
    "pool": {"type": "str"},
    "components": {"type": "list", "elements": "dict"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "lfs_command": {"type": "path", "default": "lfs"},
}
LAYOUT_OPTIONS = ("stripe_count", "stripe_size", "pool", "components")
_BAD_OPTION_RE = re.compile(r"unrecognized option|invalid option|unknown option|illegal option", re.IGNORECASE)
_NOT_LUSTRE_RE = re.compile(r"not on a Lustre|Inappropriate ioctl|\(25\)", re.IGNORECASE)


class ModuleFailure(Exception):
    """A failure to report with fail_json; carries the command it was about."""

    def __init__(self, msg, command=None):
        super().__init__(msg)
        self.command = command or []


def _said(out, err):
    text = " ".join(line.strip() for line in ((err or "") + "\n" + (out or "")).splitlines() if line.strip())
    return text or "no message"


class Lfs:
    """The lfs program run through the module's command runner (C messages)."""

    def __init__(self, runner, program):
        self.runner = runner
        self.program = program

    def run(self, argv):
        return self.runner.run(argv)

    def read(self, path):
        """(normalised layout, argv that read it)."""
        argv = [self.program, "getstripe", "-d", "--yaml", path]
        rc, out, err = self.run(argv)
        if rc != 0 and _BAD_OPTION_RE.search((err or "") + (out or "")):
            argv = [self.program, "getstripe", "-d", path]  # lfs before 2.10 has no --yaml
            rc, out, err = self.run(argv)
        if rc != 0:
            if _NOT_LUSTRE_RE.search((err or "") + (out or "")):
                raise ModuleFailure("%s is not on a Lustre file system: %s exited with status %d: %s"
                                    % (path, " ".join(argv), rc, _said(out, err)))
            raise ModuleFailure("reading the default layout of %s: %s exited with status %d: %s"
                                % (path, " ".join(argv), rc, _said(out, err)))
        try:
            return read_layout(out or ""), argv
        except LayoutParseError as exc:
            raise ModuleFailure("reading the default layout of %s: the output of %s is not understood: %s"
                                % (path, " ".join(argv), exc)) from None

    def has_default(self, path, layout):
        """Whether path has a default layout of its own; asks 'getstripe -d --raw' when lfs did not say."""
        if layout["is_set"] is not None:
            return layout["is_set"]
        rc, out, _err = self.run([self.program, "getstripe", "-d", "--raw", path])
        try:
            raw = read_layout(out or "") if rc == 0 else None
        except LayoutParseError:
            raw = None
        if raw is None or len(raw["components"]) != 1:
            return True  # cannot tell: 'setstripe -d' on a directory without default layout does no harm
        comp = raw["components"][0]
        # --raw prints what is stored: 0 / 0 / -1 and no pool when nothing is.
        return not (comp["stripe_count"] == 0 and comp["stripe_size"] == 0 and comp["stripe_offset"] == -1
                    and not comp["pool"])


def _program(runner, name):
    if os.sep in name:
        return name
    found = runner.which(name)
    if not found:
        raise ModuleFailure("the lfs command %r is not in PATH (nor /usr/sbin, /sbin); install the Lustre client "
                            "utilities or set lfs_command to its full path" % name)
    return found


ABSENT_TEXT = "(absent)\n"


def _check_path(path, check_mode):
    """Whether path exists; a missing path is an error except in check mode (an earlier task would create it)."""
    if not os.path.exists(path):
        if check_mode:
            return False
        raise ModuleFailure("%s does not exist; lfs_stripe sets the default layout of an existing directory, "
                            "create it first (ansible.builtin.file state=directory)" % path)
    if not os.path.isdir(path):
        raise ModuleFailure("%s is not a directory; lfs_stripe manages directories' default layouts (a file's "
                            "layout is fixed when it is created)" % path)
    return True


def _checked_path(path):
    """An absolute path without control characters: lfs reads a relative '-c' as an option, and a newline would
    split the command shown in messages and results."""
    if not isinstance(path, str) or not path.startswith("/") or CONTROL_RE.search(path):
        raise ModuleFailure("path: %r is not allowed; expected the directory's absolute path (starting with '/', no "
                            "control characters such as a newline)" % (path,))
    return path


def run_module(module):
    params = module.params
    path, state = _checked_path(params["path"]), params["state"]
    exists = _check_path(path, module.check_mode)
    try:
        if state == "absent":
            given = [name for name in LAYOUT_OPTIONS if params[name] not in (None, "")]
            if given:
                raise LayoutError("state=absent removes the default layout; drop %s" % ", ".join(given))
            desired = {"is_set": False, "mirror_count": 1, "components": []}
        else:
            desired = desired_layout(params["stripe_count"], params["stripe_size"], params["pool"],
                                     params["components"])
    except LayoutError as exc:
        raise ModuleFailure("desired layout for %s: %s" % (path, exc)) from None
    runner = CommandRunner(module, opt_dirs=["/usr/sbin", "/sbin", "/usr/local/sbin"])
    lfs = Lfs(runner, _program(runner, params["lfs_command"]))
    if not exists:
        # Check mode only: the directory would be created by an earlier task, with no default layout of its own.
        if state == "absent":
            return {"changed": False, "layout": None, "desired": desired, "command": [],
                    "diff": {"before": ABSENT_TEXT, "after": ABSENT_TEXT}}
        return {"changed": True, "layout": None, "desired": desired,
                "command": setstripe_argv(lfs.program, desired, path, params["components"] is not None),
                "diff": {"before": ABSENT_TEXT, "after": layout_text(desired)}}
    current, _read_argv = lfs.read(path)
    if state == "absent":
        changed = lfs.has_default(path, current)
        command = delete_argv(lfs.program, path) if changed else []
    else:
        changed = bool(differences(current, desired))
        command = setstripe_argv(lfs.program, desired, path, params["components"] is not None) if changed else []
    layout = current
    if changed and not module.check_mode:
        rc, out, err = lfs.run(command)
        if rc != 0:
            raise ModuleFailure("setting the default layout of %s: %s exited with status %d: %s"
                                % (path, " ".join(command), rc, _said(out, err)), command)
        layout, _argv = lfs.read(path)
        if state == "present" and differences(layout, desired):
            raise ModuleFailure("lfs setstripe succeeded but the directory reads back as %s (wanted %s: %s)"
                                % (layout_text(layout).strip().replace("\n", "; "),
                                   layout_text(desired).strip().replace("\n", "; "),
                                   "; ".join(differences(layout, desired))), command)
        if state == "absent" and layout["is_set"] is True:
            raise ModuleFailure("lfs setstripe -d succeeded but %s still reads back with a default layout: %s"
                                % (path, layout_text(layout).strip().replace("\n", "; ")), command)
    before = layout_text(current)
    if not changed:
        after = before
    elif module.check_mode:
        after = layout_text(desired)
    else:
        after = layout_text(layout)
    return {"changed": changed, "layout": layout, "desired": desired, "command": command,
            "diff": {"before": before, "after": after}}


def main():
    module = AnsibleModule(
        argument_spec=ARGUMENT_SPEC,
        supports_check_mode=True,
        mutually_exclusive=[("components", "stripe_count"), ("components", "stripe_size")],
        required_together=[("stripe_count", "stripe_size")],
    )
    try:
        result = run_module(module)
    except ModuleFailure as exc:
        module.fail_json(msg=str(exc), command=exc.command)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
