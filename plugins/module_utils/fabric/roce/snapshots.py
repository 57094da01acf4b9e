# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Snapshots a switch keeps of what a push overwrites: which of them are beyond the newest ``keep``.

Before the roce_switch role changes a switch it copies what the change overwrites, on the switch, under a name
dated in UTC (``YYYYMMDDTHHMMSSZ``, which sorts as the time does):

* SONiC: ``config_db.<date>.running.json`` (the running CONFIG_DB) and ``config_db.<date>.saved.json`` (the
  saved /etc/sonic/config_db.json), paths in the snapshot directory;
* EOS: ``gpufleet-roce-<date>.cfg`` on flash (``dir flash:`` lists it among the switch's other files).

Only names of exactly these shapes count: anything else in the listing (the switch's own files, a name a person
gave a copy) is never returned, so never deleted. Each kind (SONiC's running and saved, EOS's) keeps its own newest
``keep``. Stdlib only.
"""
from __future__ import annotations

import posixpath
import re
from typing import Any, Dict, List

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import integer_in, list_of, must_be

__all__ = ["SnapshotError", "SNAPSHOT_RE", "beyond"]

#: A snapshot's file name: its kind (the name around the date) and its date.
SNAPSHOT_RE = re.compile(r"(?P<head>config_db\.|gpufleet-roce-)(?P<date>[0-9]{8}T[0-9]{6}Z)"
                         r"(?P<tail>\.running\.json|\.saved\.json|\.cfg)")
_KINDS = {("config_db.", ".running.json"), ("config_db.", ".saved.json"), ("gpufleet-roce-", ".cfg")}


class SnapshotError(ValueError):
    """A listing or a count the snapshot rotation cannot take."""


def beyond(names: Any, keep: Any) -> List[str]:
    """The entries of ``names`` (paths or bare names) that are snapshots older than the newest ``keep`` of their
    kind, oldest first; everything that is not a snapshot name is left out."""
    keep = integer_in("keep", keep, 1, 100, SnapshotError)
    items = list_of("names", names, SnapshotError, "a list of file names or paths")
    kinds: Dict[tuple, List[tuple]] = {}
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise must_be("names[%d]" % index, item, "a file name or path (a string)", SnapshotError)
        found = SNAPSHOT_RE.fullmatch(posixpath.basename(item))
        if not found or (found.group("head"), found.group("tail")) not in _KINDS:
            continue
        key = (posixpath.dirname(item), found.group("head"), found.group("tail"))
        kinds.setdefault(key, []).append((found.group("date"), item))
    old: List[tuple] = []
    for entries in kinds.values():
        entries = sorted(set(entries))
        old.extend(entries[:-keep] if len(entries) > keep else [])
    return [item for _date, item in sorted(old)]
