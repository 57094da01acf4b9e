# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""common.marked_blocks: a block between two marker lines, the rest of the file kept, as blockinfile does."""
import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.marked_blocks import (
    MarkedBlockError, block_of, marker_lines, with_block,
)
from hypothesis import example, given
from hypothesis import strategies as st

M = "# {mark} gpufleet.cluster: cluster hosts"
HOSTS = ("127.0.0.1\tlocalhost\n# BEGIN gpufleet.cluster: cluster hosts\n10.0.0.1        gpu01\n"
         "10.0.0.8        gpu08\n# END gpufleet.cluster: cluster hosts\n192.0.2.5       printer\n")


def test_the_block_is_replaced_in_place_every_other_line_kept():
    assert with_block(HOSTS, "10.0.0.1        gpu01\n10.0.0.2        gpu02", M) == (
        "127.0.0.1\tlocalhost\n# BEGIN gpufleet.cluster: cluster hosts\n10.0.0.1        gpu01\n"
        "10.0.0.2        gpu02\n# END gpufleet.cluster: cluster hosts\n192.0.2.5       printer\n")


def test_a_block_not_there_is_added_at_the_end_and_a_missing_file_holds_only_it():
    assert with_block("127.0.0.1 localhost", "a", M) == (
        "127.0.0.1 localhost\n# BEGIN gpufleet.cluster: cluster hosts\na\n# END gpufleet.cluster: cluster hosts\n")
    assert with_block(None, "a\n", M) == "# BEGIN gpufleet.cluster: cluster hosts\na\n# END gpufleet.cluster: cluster hosts\n"


def test_an_empty_block_removes_the_block_and_its_markers():
    assert with_block(HOSTS, "", M) == "127.0.0.1\tlocalhost\n192.0.2.5       printer\n"
    assert with_block(None, "", M) == ""


def test_the_same_block_again_changes_nothing_and_block_of_reads_it_back():
    once = with_block(HOSTS, "x\ny", M)
    assert with_block(once, "x\ny", M) == once and with_block(once, "x\ny\n", M) == once
    assert block_of(once, M) == "x\ny" and block_of(HOSTS.replace("# END", "# END?"), M) is None
    assert block_of(None, M) is None and block_of("no markers\n", M) is None


def test_lines_split_at_newlines_only():
    text = "a\x0cb\r\nc\n"
    assert with_block(text, "", M) == text


@pytest.mark.parametrize("text", [
    "# BEGIN gpufleet.cluster: cluster hosts\nx\n",
    "# END gpufleet.cluster: cluster hosts\n# BEGIN gpufleet.cluster: cluster hosts\n",
    HOSTS + HOSTS,
])
def test_markers_that_do_not_pair_up_are_refused_not_guessed(text):
    with pytest.raises(MarkedBlockError, match="markers do not pair up"):
        with_block(text, "x", M)
    assert block_of(text, M) is None


@pytest.mark.parametrize("marker, begin, end, said", [
    ("# no mark", "BEGIN", "END", "must hold {mark} once"),
    ("# {mark} {mark}", "BEGIN", "END", "must hold {mark} once"),
    ("# {mark}\n", "BEGIN", "END", "marker must be one line"),
    ("# {mark}", "X", "X", "two different"),
    ("{mark}", " ", "END", "non-blank"),
    ("# {mark}", "BEGIN\r", "END", "marker_begin must be one line"),
])
def test_a_marker_that_cannot_delimit_a_block_is_refused(marker, begin, end, said):
    with pytest.raises(MarkedBlockError, match=said):
        marker_lines(marker, begin, end)


_LINE = st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=12)


@given(st.lists(_LINE, max_size=5), st.lists(_LINE, max_size=5), st.lists(_LINE, max_size=4))
@example([], [], [""])
@example([], [], ["", ""])  # a block of one empty line: given as "\n", read back as ""
def test_any_lines_around_any_block_round_trip(before, after, block):
    lines = ["# BEGIN gpufleet.cluster: cluster hosts", "# END gpufleet.cluster: cluster hosts"]
    before = [line for line in before if line not in lines]
    after = [line for line in after if line not in lines]
    block = [line for line in block if line not in lines]
    text = "".join(line + "\n" for line in before + after)
    wanted = "\n".join(block)
    written = with_block(text, wanted, M)
    assert with_block(written, wanted, M) == written
    if wanted:
        assert block_of(written, M) == (wanted[:-1] if wanted.endswith("\n") else wanted)
        assert written.startswith("".join(line + "\n" for line in before))
    else:
        assert written == text
