# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: config_files
version_added: 0.1.0
short_description: Write a set of configuration files in one remote call
description:
  - Writes several files, each from its content, owner, group and mode, comparing every file first and writing only
    those that differ (atomically, in the file's own directory).
  - One call instead of one C(ansible.builtin.template) per file, each of which costs two remote module runs even
    when nothing changes (a checksum and a file-attribute run). A role that writes five files to a hundred nodes
    saves nine hundred module runs on an idempotent re-run.
  - A file is written to a temporary file beside it that is created with no access for group and others
    (C(O_CREAT|O_EXCL), mode 0600) and given its final owner, group and mode before its first byte is written, then
    renamed into place. So a file is never, not even for a moment, readable by more than its final mode allows
    (C(ansible.builtin.copy) and C(ansible.builtin.template) create a new file with the umask's mode, 0644, and
    change it afterwards).
  - Render the contents with C(lookup('ansible.builtin.template', ...)), which sets C(ansible_managed) as the
    template action does. A file that holds a secret is marked O(files[].secret) and the task gets C(no_log), as the
    content is in the task's arguments.
  - RV(changed_files) lists what changed, so later tasks can tell a reload from a restart.
  - A file may also be given as one block of lines between two marker lines inside a file that holds other lines
    (O(files[].block), as C(ansible.builtin.blockinfile) does; the rest of the file is kept), or as a file to remove
    (O(files[].state=absent); reported as changed only when it existed), in the same one call.
author:
  - gpufleet.cluster contributors (@gpufleet)
options:
  files:
    description: The files to write.
    type: list
    elements: dict
    required: true
    suboptions:
      dest:
        description:
          - Absolute path of the file, of letters, digits, C(_), C(.), C(+), C(@), C(:), C(~) and C(-), with no C(.) or
            C(..) part, blank or control character.
        type: path
        required: true
      content:
        description:
          - The file's whole content. One of O(files[].content) and O(files[].block) is required unless
            O(files[].state=absent).
        type: str
      block:
        description:
          - The lines between the file's two marker lines (O(files[].marker)); every other line of the file is kept.
            The block replaces the one between the markers, or is added at the end of the file when it has none (a
            missing file is created holding only the block). An empty block removes the block and its markers. A file
            whose markers do not pair up (a begin line without an end line after it, a marker twice) fails the task
            and is left as it is.
        type: str
      marker:
        description: The marker lines of O(files[].block), C({mark}) replaced by O(files[].marker_begin) and
          O(files[].marker_end); one line holding C({mark}) once.
        type: str
        default: "# {mark} ANSIBLE MANAGED BLOCK"
      marker_begin:
        description: What replaces C({mark}) in the first marker line.
        type: str
        default: BEGIN
      marker_end:
        description: What replaces C({mark}) in the last marker line.
        type: str
        default: END
      state:
        description:
          - C(present) writes the file (O(files[].content) or O(files[].block)); C(absent) removes it where it
            exists (a directory is refused), and is a change only where it existed.
        type: str
        choices: [present, absent]
        default: present
      owner:
        description: Owner of the file; left as it is when not given.
        type: str
      group:
        description: Group of the file; left as it is when not given.
        type: str
      mode:
        description: Permissions, octal as a string (C("0644")) or symbolic; left as they are when not given.
        type: raw
      secret:
        description:
          - The file holds a secret (a password, a key, a password hash). Its diff says only that the content
            changed, never the content. Give the task C(no_log) as well, and a mode without access for others.
        type: bool
        default: false
      parents:
        description:
          - Create missing parent directories (owner root, mode 0755). Without it a missing directory fails the task.
        type: bool
        default: false
  backup:
    description:
      - Before a file's content is replaced, keep its previous content beside it as C(<dest>.<UTC time>.bak) (owner,
        group and mode kept), and remove the oldest such copies beyond O(backups_kept). RV(files[].backup) names the
        copy, so a caller can put it back.
    type: bool
    default: false
  backups_kept:
    description: How many dated copies of each file O(backup) keeps (the newest ones).
    type: int
    default: 5
attributes:
  check_mode:
    description: Reports which files would change, and their diffs, writing nothing.
  diff_mode:
    description: One diff per changed file, headed with its path.
extends_documentation_fragment:
  - gpufleet.cluster.attributes
"""

EXAMPLES = r"""
- name: Write slurm.conf and nodes.conf
  gpufleet.cluster.config_files:
    files:
      - dest: /etc/slurm/slurm.conf
        content: "{{ lookup('ansible.builtin.template', 'slurm.conf.j2') }}"
        owner: root
        group: root
        mode: "0644"
      - dest: /etc/slurm/nodes.conf
        content: "{{ lookup('ansible.builtin.template', 'nodes.conf.j2') }}"
        owner: root
        group: root
        mode: "0644"
  register: slurm_files

- name: Keep the cluster's hosts in a block of /etc/hosts and remove an old drop-in, in the same call
  gpufleet.cluster.config_files:
    files:
      - dest: /etc/hosts
        block: "10.0.0.1        gpu01\n10.0.0.2        gpu02"
        marker: "# {mark} gpufleet.cluster: cluster hosts"
        owner: root
        group: root
        mode: "0644"
      - dest: /etc/systemd/system/chrony.service.d/old.conf
        state: absent

- name: Reconfigure only when slurm.conf changed
  ansible.builtin.command: scontrol reconfigure
  when: "'/etc/slurm/slurm.conf' in slurm_files.changed_files"
"""

RETURN = r"""
changed_files:
  description: The files whose content, owner, group or mode changed (or would change in check mode), in input order.
  returned: always
  type: list
  elements: str
  sample: [/etc/slurm/slurm.conf]
files:
  description: One entry per file, in input order.
  returned: always
  type: list
  elements: dict
  contains:
    dest:
      description: The path.
      type: str
    changed:
      description: Whether anything about the file changed.
      type: bool
    content_changed:
      description: Whether its content changed (a new file counts, and so does a removed one).
      type: bool
    removed:
      description: Whether O(files[].state=absent) removed it (or would, in check mode).
      type: bool
    created:
      description: Whether the file did not exist before.
      type: bool
    backup:
      description: The copy of the previous content O(backup) kept, or null when none was made.
      type: str
"""

import datetime
import os
import re
import stat
from types import SimpleNamespace
from typing import Any, Dict, List, Optional, Tuple

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.file_rules import (
    FileRuleError,
    absolute_path,
    account,
    mode,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.marked_blocks import (
    DEFAULT_MARKER,
    MarkedBlockError,
    marker_lines,
    with_block,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.final_mode_write import (
    account_id,
    write_with_final_mode,
)

ARGUMENT_SPEC = {
    "files": {
        "type": "list",
        "elements": "dict",
        "required": True,
        "options": {
            "dest": {"type": "path", "required": True},
            "content": {"type": "str"},
            "block": {"type": "str"},
            "marker": {"type": "str", "default": DEFAULT_MARKER},
            "marker_begin": {"type": "str", "default": "BEGIN"},
            "marker_end": {"type": "str", "default": "END"},
            "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
            "owner": {"type": "str"},
            "group": {"type": "str"},
            "mode": {"type": "raw"},
            "secret": {"type": "bool", "default": False},
            "parents": {"type": "bool", "default": False},
        },
    },
    "backup": {"type": "bool", "default": False},
    "backups_kept": {"type": "int", "default": 5},
}
BACKUP_SUFFIX = ".bak"


def read_current(dest: str) -> Optional[bytes]:
    """The file's bytes, or None when it does not exist."""
    try:
        with open(dest, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def make_parents(directory: str) -> None:
    """Create a missing directory chain, root-owned 0755 (umask aside)."""
    missing = []
    while directory and not os.path.isdir(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)
    for path in reversed(missing):
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)


def final_attributes(module: AnsibleModule, dest: str, spec: Dict[str, Any]) -> Tuple[int, int, int]:
    """The mode, uid and gid the file ends with: those asked for; what is not asked for is kept from the file there
    now, or for a new file is what a new file gets (the umask's mode, this process's user, the directory's group
    when it is setgid, as Ansible's atomic_move gives it)."""
    try:
        current = os.stat(dest)
    except FileNotFoundError:
        current = None
    umask = os.umask(0)
    os.umask(umask)
    base_mode = stat.S_IMODE(current.st_mode) if current else 0o666 & ~umask
    directory = os.stat(os.path.dirname(dest))
    uid = account_id(spec["owner"], "user")
    gid = account_id(spec["group"], "group")
    if uid is None:
        uid = current.st_uid if current else os.geteuid()
    if gid is None:
        gid = current.st_gid if current else (directory.st_gid if directory.st_mode & stat.S_ISGID else os.getegid())
    wanted = spec["mode"]
    if wanted is None:
        final = base_mode
    elif isinstance(wanted, int):
        final = wanted
    elif wanted.isdigit():
        final = int(wanted, 8)
    else:  # symbolic, applied to what the file has (or would get) as chmod does
        # pylint: disable-next=protected-access
        final = module._symbolic_mode_to_octal(SimpleNamespace(st_mode=stat.S_IFREG | base_mode), wanted)
    return final, uid, gid


def write_atomically(module: AnsibleModule, dest: str, data: bytes, spec: Dict[str, Any]) -> None:
    """Write data through a temporary file beside dest that has its final owner, group and mode before its first
    byte (common.final_mode_write), then rename it over dest."""
    write_with_final_mode(dest, data, *final_attributes(module, dest, spec))


def backups_of(dest: str) -> List[str]:
    """The dated copies backup_file made of dest, oldest first (the UTC time in their names sorts)."""
    directory, base = os.path.split(dest)
    pattern = re.compile(re.escape(base) + r"[.][0-9]{8}T[0-9]{6}[.][0-9]{6}Z" + re.escape(BACKUP_SUFFIX))
    return sorted(os.path.join(directory, name) for name in os.listdir(directory) if pattern.fullmatch(name))


def backup_file(dest: str, kept: int) -> str:
    """Copy dest (content, owner, group, mode) to a dated name beside it; drop the oldest copies beyond kept."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    copy = f"{dest}.{stamp}{BACKUP_SUFFIX}"
    # The copy has the file's owner, group and mode before its first byte, as the file itself (a secret's old
    # copy is as secret as the file).
    info = os.stat(dest)
    with open(dest, "rb") as handle:
        write_with_final_mode(copy, handle.read(), stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid,
                              prefix=".gpufleet_bak")
    for old in backups_of(dest)[:-kept]:
        os.unlink(old)
    return copy


def remove_file(module: AnsibleModule, spec: Dict[str, Any], diffs: List[Dict[str, str]]) -> Dict[str, Any]:
    """Remove one file where it exists (state absent); a change only where it existed."""
    dest = spec["dest"]
    if os.path.isdir(dest) and not os.path.islink(dest):
        module.fail_json(msg=f"config_files: cannot remove {dest}: it is a directory (state absent removes files)")
    existed = os.path.lexists(dest)
    if existed and module._diff:  # pylint: disable=protected-access
        try:
            have = b"" if os.path.islink(dest) else read_current(dest) or b""
        except (OSError, IOError) as err:
            module.fail_json(msg=f"config_files: reading {dest} before removing it failed: {to_native(err)}")
        diffs.append({"before_header": dest, "after_header": f"{dest} (absent)",
                      "before": "(a secret: its content is not shown)\n" if spec["secret"]
                      else to_text(have, errors="surrogate_or_replace"), "after": ""})
    if existed and not module.check_mode:
        try:
            os.unlink(dest)
        except OSError as err:
            module.fail_json(msg=f"config_files: removing {dest} failed: {to_native(err)}")
    return {"dest": dest, "changed": existed, "content_changed": existed, "created": False, "backup": None,
            "removed": existed}


def sync_file(module: AnsibleModule, spec: Dict[str, Any], diffs: List[Dict[str, str]]) -> Dict[str, Any]:
    """Bring one file to its content (or its marked block) and attributes; return what changed."""
    dest = spec["dest"]
    if spec["state"] == "absent":
        return remove_file(module, spec, diffs)
    directory = os.path.dirname(dest)
    if os.path.isdir(dest):
        module.fail_json(msg=f"config_files: cannot write {dest}: it is a directory")
    try:
        have = read_current(dest)
    except (OSError, IOError) as err:
        module.fail_json(msg=f"config_files: reading {dest} to compare it failed: {to_native(err)}")
    if spec["block"] is not None:
        try:
            text = with_block(None if have is None else to_text(have, errors="surrogate_or_strict"), spec["block"],
                              spec["marker"], spec["marker_begin"], spec["marker_end"])
        except (MarkedBlockError, UnicodeError) as err:
            module.fail_json(msg=f"config_files: cannot put the block into {dest}, left as it is: {to_native(err)}")
        spec = dict(spec, content=text)
    want = to_bytes(spec["content"], errors="surrogate_or_strict")
    content_changed = have != want
    if content_changed and not os.path.isdir(directory) and not spec["parents"]:
        module.fail_json(msg=f"config_files: cannot write {dest}: its directory {directory} does not exist "
                             "(set parents: true to create it)")
    backup = None
    if content_changed and have is not None and module.params["backup"] and not module.check_mode:
        try:
            backup = backup_file(dest, module.params["backups_kept"])
        except OSError as err:
            module.fail_json(msg=f"config_files: keeping a copy of {dest} before replacing it failed, so it was left "
                                 f"as it is: {to_native(err)}")
    if content_changed and not module.check_mode:
        if not os.path.isdir(directory):
            try:
                make_parents(directory)
            except OSError as err:
                module.fail_json(msg=f"config_files: creating {directory} for {dest} failed: {to_native(err)}")
        try:
            write_atomically(module, dest, want, spec)
        except (OSError, IOError) as err:
            module.fail_json(msg=f"config_files: writing {dest} failed: {to_native(err)}")
    attrs_changed = False
    if os.path.exists(dest):
        file_args = module.load_file_common_arguments(
            {"path": dest, "owner": spec["owner"], "group": spec["group"], "mode": spec["mode"]})
        try:
            attrs_changed = module.set_fs_attributes_if_different(file_args, False)
        except (OSError, IOError) as err:
            module.fail_json(msg=f"config_files: setting owner {spec['owner']}, group {spec['group']} and mode "
                                 f"{spec['mode']} of {dest} failed: {to_native(err)}")
    elif module.check_mode:
        attrs_changed = True  # a new file gets its attributes too
    if content_changed and module._diff:  # pylint: disable=protected-access
        hidden = "(a secret: its content is not shown)\n"
        diffs.append({
            "before_header": dest if have is not None else f"{dest} (absent)",
            "after_header": dest,
            "before": hidden if spec["secret"] and have is not None else to_text(have or b"", errors="surrogate_or_replace"),
            "after": hidden if spec["secret"] else spec["content"],
        })
    return {"dest": dest, "changed": content_changed or attrs_changed, "content_changed": content_changed,
            "created": have is None, "backup": backup, "removed": False}


def check_spec(module: AnsibleModule, index: int, spec: Dict[str, Any]) -> None:
    """Refuse a dest, owner, group or mode no file should get, before anything is written."""
    try:
        absolute_path(f"files[{index}].dest", spec["dest"])
        account(f"files[{index}].owner", spec["owner"])
        account(f"files[{index}].group", spec["group"])
        mode(f"files[{index}].mode", spec["mode"])
    except FileRuleError as err:
        module.fail_json(msg=f"config_files: refusing to write files[{index}]: {err}")
    given = [name for name in ("content", "block") if spec[name] is not None]
    if spec["state"] == "absent" and given:
        module.fail_json(msg=f"config_files: refusing files[{index}] ({spec['dest']}): state absent removes the file, "
                             f"so it takes no {' or '.join(given)}")
    if spec["state"] == "present" and len(given) != 1:
        module.fail_json(msg=f"config_files: refusing files[{index}] ({spec['dest']}): give its content or its block "
                             f"(one of them), got {' and '.join(given) if given else 'neither'}")
    if spec["block"] is not None:
        try:
            marker_lines(spec["marker"], spec["marker_begin"], spec["marker_end"])
        except MarkedBlockError as err:
            module.fail_json(msg=f"config_files: refusing files[{index}] ({spec['dest']}): {err}")


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    if module.params["backups_kept"] < 1:
        module.fail_json(msg=f"config_files: backups_kept is {module.params['backups_kept']}; keep at least one copy "
                             "(the one backup makes of each replaced file)")
    seen = set()
    for index, spec in enumerate(module.params["files"]):
        check_spec(module, index, spec)
        if spec["dest"] in seen:
            module.fail_json(msg=f"config_files: {spec['dest']} is listed twice; each file is written once")
        seen.add(spec["dest"])
    diffs: List[Dict[str, str]] = []
    results = [sync_file(module, spec, diffs) for spec in module.params["files"]]
    changed_files = [item["dest"] for item in results if item["changed"]]
    module.exit_json(changed=bool(changed_files), changed_files=changed_files, files=results, diff=diffs)


if __name__ == "__main__":
    main()
