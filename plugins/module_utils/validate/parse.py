# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pieces of the validate.yml output parsers (stdlib only).

Every parser of the validation tools (validate/perftest, validate/nccl, validate/fio, validate/dcgm,
validate/smi) raises a subclass of ValidateParseError whose message names the tool, the line (1-based)
and what was expected there, so a failed check says which output line could not be read.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Type, Union

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

Number = Union[int, float]

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")  # fullmatch: no trailing newline


class ValidateParseError(ValueError):
    """A tool's output cannot be read; the message names the tool, the line and what was expected."""

    tool = "output"

    def __init__(self, message: str, line: Optional[int] = None, text: Optional[str] = None) -> None:
        where = "" if line is None else " line %d" % line
        shown = "" if text is None else ": %r" % (text.strip()[:160])
        super().__init__("%s%s: %s%s" % (self.tool, where, message, shown))
        self.line = line


def text_input(text: Any, what: str, error: Type[ValidateParseError]) -> str:
    """``text`` when it is a string: every parser reads a tool's printed output; anything else is refused as
    ``<tool>: input must be <what>, got <value> of type <type>``."""
    if not isinstance(text, str):
        raise must_be("input", text, what, error)
    return text


def is_number(token: str) -> bool:
    return isinstance(token, str) and bool(_NUMBER.fullmatch(token))


def number(token: str) -> Number:
    """'20000' -> 20000, '24056.72' -> 24056.72, '7e-07' -> 7e-07 (int when the text is an integer)."""
    if re.fullmatch(r"[+-]?\d+", token):
        return int(token)
    return float(token)


def rounded(value: float, digits: int = 3) -> float:
    """A derived value rounded for reports (the raw one stays in the parser's output)."""
    return float(round(value, digits))
