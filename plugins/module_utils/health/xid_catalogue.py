# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""DATA: NVIDIA's XID catalogue (code, mnemonic, resolution bucket) and the action class each bucket needs here.

This file is data (the 500-line rule of docs/architecture.md does not apply to its table). Standard library only:
it runs on the nodes without Ansible (see the package docstring).

Sources (read 2026-11-29 through the project's stored copies of public material; nothing here was guessed):

- DOC: NVIDIA, "Xid Errors" deployment guide, "Analyzing Xid Errors with the Xid Catalog",
  https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html (Ampere and newer; the page's table and
  the downloadable spreadsheet Xid-Catalog.xlsx). Only the page's head was readable here: its columns (Code,
  Mnemonic, Description, Applies to A100/H100/B100/GB200, Resolution Bucket (Immediate Action), Resolution Bucket
  (Investigatory Action), Xid 154 linkage, Trigger Conditions) and rows 1 to 8, which agree with the table below.
  The stored copy shows no document version or date.
- DATA: the same catalogue as NVIDIA ships it in NVIDIA/NVSentinel,
  distros/kubernetes/nvsentinel/charts/gpu-health-monitor/xiderrorsmapping.csv at commit
  6f8b0fcfa8e502bdda78fabf96facef729a9285b (Apache-2.0): code, mnemonic and immediate action of codes 1 to 162.
  The table below is that file, row for row, with two changes: code 154's bucket is written XID_154 (the CSV
  has the sentence "Follow guidance as it applies to another Xid"), and the unused codes' bucket is the CSV's
  UNEXPECTED_ERR_REPORT_ISSUE where the DOC rows 1-7 say CONTACT_SUPPORT (both mean a person: `rma` here).
- NVLINK: the catalogue's WORKFLOW_NVLINK_ERR text (XID 74 on Hopper, register bits) as quoted in NVSentinel's
  design 022 (tanishagoyal2/NVSentinel docs/designs/022-workflow-nvlink-err.md at 0789ca42, merged upstream as
  NVIDIA/NVSentinel pull request 516); implemented in xid.py.
- RETIREMENT: NVIDIA, "Dynamic Page Retirement", https://docs.nvidia.com/deploy/dynamic-page-retirement/ (XID 48
  a DBE, 63 a page retired: reload the driver to activate, 64 retirement failed).
- UNVERIFIED: where only a third party's restatement of the catalogue (its investigatory column, the rows past
  162, the solo/not-solo rule of XID 45) was readable, the entry says so in its note and the rule is ours.

Codes past 162 (PSHC_*, PCIE_FATAL_TIMEOUT, REDUCED_GPU_MEMORY_CAPACITY, UNCORRECTABLE_DRAM_ERROR, ...) were seen
only in that restatement, without an action: they are not in the table, so judge() treats them as unknown
codes, which need a person (`rma`) until the table is updated from NVIDIA's catalogue.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

#: Our action classes, mildest first: judge() keeps the worst per GPU.
#: informational: nothing to do; application: the job's fault, the node is fine; reset: a GPU reset heals it;
#: reboot: the node must reboot; rma: a person (hardware to replace, a support case, cables, firmware).
ACTIONS = ("informational", "application", "reset", "reboot", "rma")

SOURCE_DOC = "NVIDIA Xid Catalog, https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"
SOURCE_DATA = ("NVIDIA/NVSentinel charts/gpu-health-monitor/xiderrorsmapping.csv @6f8b0fcf (NVIDIA's copy of the "
               "Xid Catalog's immediate action)")
SOURCE_NVLINK = ("Xid Catalog WORKFLOW_NVLINK_ERR, as quoted in NVSentinel design 022 "
                 "(tanishagoyal2/NVSentinel docs/designs/022-workflow-nvlink-err.md @0789ca42)")
SOURCE_RETIREMENT = "NVIDIA Dynamic Page Retirement, https://docs.nvidia.com/deploy/dynamic-page-retirement/"

#: NVIDIA's resolution buckets (immediate action) and the action class each needs here, where the bucket alone
#: decides. The WORKFLOW_* buckets and XID_154 depend on the line (xid.py refines them); the class given here is
#: what they get when the line does not carry the data.
BUCKET_ACTIONS: Dict[str, str] = {
    "IGNORE": "informational",
    "RESTART_APP": "application",
    "RESET_GPU": "reset",
    "RESTART_BM": "reboot",
    "RESTART_VM": "reboot",  # bare metal: the node is the machine to restart
    "CONTACT_SUPPORT": "rma",
    "UNEXPECTED_ERR_REPORT_ISSUE": "rma",  # unused codes: NVIDIA says report it
    "CHECK_MECHANICALS": "rma",  # a person checks cables, power, seating
    "UPDATE_SWFW": "rma",  # a person updates the driver or firmware
    "CHECK_UVM": "reset",  # reset if UVM was in use, nothing if not: the line does not say, so the safer one
    "WORKFLOW_XID_45": "reset",
    "WORKFLOW_XID_48": "reset",
    "WORKFLOW_NVLINK_ERR": "reset",
    "WORKFLOW_NVLINK5_ERR": "reset",
    "XID_154": "reset",
}

#: (code, mnemonic, NVIDIA immediate action): the DATA source, row for row (see the module docstring).
_ROWS: Tuple[Tuple[int, str, str], ...] = (
    (1, "ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (2, "ROBUST_CHANNEL_FIFO_ERROR_SW_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (3, "ROBUST_CHANNEL_FIFO_ERROR_UNK_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (4, "ROBUST_CHANNEL_FIFO_ERROR_CHANNEL_BUSY", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (5, "ROBUST_CHANNEL_FIFO_ERROR_RUNOUT_OVERFLOW", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (6, "ROBUST_CHANNEL_FIFO_ERROR_PARSE_ERR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (7, "ROBUST_CHANNEL_FIFO_ERROR_PTE_ERR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "RESTART_APP"),
    (9, "ROBUST_CHANNEL_GR_ERROR_INSTANCE", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (10, "ROBUST_CHANNEL_GR_ERROR_SINGLE_STEP", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (11, "ROBUST_CHANNEL_GR_ERROR_MISSING_HW", "RESTART_APP"),
    (12, "ROBUST_CHANNEL_GR_ERROR_SW_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (13, "ROBUST_CHANNEL_GR_EXCEPTION / ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY", "RESTART_APP"),
    (14, "ROBUST_CHANNEL_FAKE_ERROR", "IGNORE"),
    (15, "ROBUST_CHANNEL_SCANLINE_TIMEOUT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (16, "ROBUST_CHANNEL_VBLANK_CALLBACK_TIMEOUT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (17, "ROBUST_CHANNEL_PARAMETER_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (18, "ROBUST_CHANNEL_BUS_MASTER_TIMEOUT_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (19, "ROBUST_CHANNEL_DISP_MISSED_NOTIFIER", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (20, "ROBUST_CHANNEL_MPEG_ERROR_SW_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (21, "ROBUST_CHANNEL_ME_ERROR_SW_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (22, "ROBUST_CHANNEL_VP_ERROR_SW_METHOD", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (23, "ROBUST_CHANNEL_RC_LOGGING_ENABLED", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (24, "ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (25, "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY", "RESTART_APP"),
    (26, "ROBUST_CHANNEL_FIFO_ERROR_FBISTATE_TIMEOUT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (27, "ROBUST_CHANNEL_VP_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (28, "ROBUST_CHANNEL_VP2_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (29, "ROBUST_CHANNEL_BSP_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (30, "ROBUST_CHANNEL_BAD_ADDR_ACCESS", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "RESTART_APP"),
    (32, "ROBUST_CHANNEL_PBDMA_ERROR", "RESTART_APP"),
    (33, "ROBUST_CHANNEL_SEC_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (34, "ROBUST_CHANNEL_MSVLD_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (35, "ROBUST_CHANNEL_MSPDEC_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (36, "ROBUST_CHANNEL_MSPPP_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (37, "ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD", "IGNORE"),
    (38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "IGNORE"),
    (39, "ROBUST_CHANNEL_CE0_ERROR", "RESTART_APP"),
    (40, "ROBUST_CHANNEL_CE1_ERROR", "RESTART_APP"),
    (41, "ROBUST_CHANNEL_CE2_ERROR", "RESTART_APP"),
    (42, "ROBUST_CHANNEL_VIC_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "IGNORE"),
    (44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "IGNORE"),
    (45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "WORKFLOW_XID_45"),
    (46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "RESET_GPU"),
    (47, "ROBUST_CHANNEL_NVENC0_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (48, "ROBUST_CHANNEL_GPU_ECC_DBE", "WORKFLOW_XID_48"),
    (49, "SILENT_RUNNING_CONSTANT_LEVEL_SET_BY_REGISTRY", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (50, "SILENT_RUNNING_LEVEL_TRANSITION_DUE_TO_RC_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (51, "SILENT_RUNNING_STRESS_TEST_FAILURE", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (52, "SILENT_RUNNING_LEVEL_TRANS_DUE_TO_TEMP_RISE", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (53, "SILENT_RUNNING_TEMP_REDUCED_CLOCKING", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", "CHECK_MECHANICALS"),
    (55, "SILENT_RUNNING_TEMPERATURE_READ_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (56, "DISPLAY_CHANNEL_EXCEPTION", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (57, "FB_LINK_TRAINING_FAILURE_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (58, "FB_MEMORY_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (59, "PMU_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (60, "ROBUST_CHANNEL_SEC2_ERROR", "RESTART_APP"),
    (61, "PMU_BREAKPOINT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (62, "PMU_HALT_ERROR", "RESET_GPU"),
    (63, "INFOROM_DRAM_RETIREMENT_EVENT", "IGNORE"),
    (64, "INFOROM_DRAM_RETIREMENT_FAILURE", "RESET_GPU"),
    (65, "ROBUST_CHANNEL_NVENC1_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (66, "ROBUST_CHANNEL_FECS_ERR_REG_ACCESS_VIOLATION", "IGNORE"),
    (67, "ROBUST_CHANNEL_FECS_ERR_VERIF_VIOLATION", "IGNORE"),
    (68, "ROBUST_CHANNEL_NVDEC0_ERROR", "RESTART_APP"),
    (69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "RESTART_APP"),
    (70, "ROBUST_CHANNEL_CE3_ERROR", "RESTART_APP"),
    (71, "ROBUST_CHANNEL_CE4_ERROR", "RESTART_APP"),
    (72, "ROBUST_CHANNEL_CE5_ERROR", "RESTART_APP"),
    (73, "ROBUST_CHANNEL_NVENC2_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (74, "NVLINK_ERROR", "WORKFLOW_NVLINK_ERR"),
    (75, "ROBUST_CHANNEL_CE6_ERROR", "RESTART_APP"),
    (76, "ROBUST_CHANNEL_CE7_ERROR", "RESTART_APP"),
    (77, "ROBUST_CHANNEL_CE8_ERROR", "RESTART_APP"),
    (78, "VGPU_START_ERROR", "UPDATE_SWFW"),
    (79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "RESTART_BM"),
    (80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "RESTART_APP"),
    (81, "ROBUST_CHANNEL_VGA_SUBSYSTEM_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (82, "ROBUST_CHANNEL_NVJPG0_ERROR", "RESTART_APP"),
    (83, "ROBUST_CHANNEL_NVDEC1_ERROR", "RESTART_APP"),
    (84, "ROBUST_CHANNEL_NVDEC2_ERROR", "RESTART_APP"),
    (85, "ROBUST_CHANNEL_CE9_ERROR", "RESTART_APP"),
    (86, "ROBUST_CHANNEL_OFA0_ERROR", "RESTART_APP"),
    (87, "NVTELEMETRY_DRIVER_REPORT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (88, "ROBUST_CHANNEL_NVDEC3_ERROR", "RESTART_APP"),
    (89, "ROBUST_CHANNEL_NVDEC4_ERROR", "RESTART_APP"),
    (90, "LTC_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (91, "RESERVED_XID", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (92, "EXCESSIVE_SBE_INTERRUPTS", "IGNORE"),
    (93, "INFOROM_ERASE_LIMIT_EXCEEDED", "IGNORE"),
    (94, "ROBUST_CHANNEL_CONTAINED_ERROR", "RESTART_APP"),
    (95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "RESET_GPU"),
    (96, "ROBUST_CHANNEL_NVDEC5_ERROR", "RESTART_APP"),
    (97, "ROBUST_CHANNEL_NVDEC6_ERROR", "RESTART_APP"),
    (98, "ROBUST_CHANNEL_NVDEC7_ERROR", "RESTART_APP"),
    (99, "ROBUST_CHANNEL_NVJPG1_ERROR", "RESTART_APP"),
    (100, "ROBUST_CHANNEL_NVJPG2_ERROR", "RESTART_APP"),
    (101, "ROBUST_CHANNEL_NVJPG3_ERROR", "RESTART_APP"),
    (102, "ROBUST_CHANNEL_NVJPG4_ERROR", "RESTART_APP"),
    (103, "ROBUST_CHANNEL_NVJPG5_ERROR", "RESTART_APP"),
    (104, "ROBUST_CHANNEL_NVJPG6_ERROR", "RESTART_APP"),
    (105, "ROBUST_CHANNEL_NVJPG7_ERROR", "RESTART_APP"),
    (106, "SMBPBI_TEST_MESSAGE", "IGNORE"),
    (107, "SMBPBI_TEST_MESSAGE_SILENT", "IGNORE"),
    (108, "DESTINATION_FLA_TRANSLATION_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "RESET_GPU"),
    (110, "SEC_FAULT_ERROR", "RESET_GPU"),
    (111, "BUNDLE_ERROR_EVENT", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (112, "DISP_SUPERVISOR_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (113, "DP_LT_FAILURE", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (114, "HEAD_RG_UNDERFLOW", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (115, "CORE_CHANNEL_REGS", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (116, "WINDOW_CHANNEL_REGS", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (117, "CURSOR_CHANNEL_REGS", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (118, "HEAD_REGS", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (119, "GSP_RPC_TIMEOUT", "RESET_GPU"),
    (120, "GSP_ERROR", "RESET_GPU"),
    (121, "C2C_ERROR", "IGNORE"),
    (122, "SPI_PMU_RPC_READ_FAIL", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (123, "SPI_PMU_RPC_WRITE_FAIL", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (124, "SPI_PMU_RPC_ERASE_FAIL", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (125, "INFOROM_FS_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (126, "ROBUST_CHANNEL_CE10_ERROR", "RESTART_APP"),
    (127, "ROBUST_CHANNEL_CE11_ERROR", "RESTART_APP"),
    (128, "ROBUST_CHANNEL_CE12_ERROR", "RESTART_APP"),
    (129, "ROBUST_CHANNEL_CE13_ERROR", "RESTART_APP"),
    (130, "ROBUST_CHANNEL_CE14_ERROR", "RESTART_APP"),
    (131, "ROBUST_CHANNEL_CE15_ERROR", "RESTART_APP"),
    (132, "ROBUST_CHANNEL_CE16_ERROR", "RESTART_APP"),
    (133, "ROBUST_CHANNEL_CE17_ERROR", "RESTART_APP"),
    (134, "ROBUST_CHANNEL_CE18_ERROR", "RESTART_APP"),
    (135, "ROBUST_CHANNEL_CE19_ERROR", "RESTART_APP"),
    (136, "ALI_TRAINING_FAIL", "RESET_GPU"),
    (137, "NVLINK_FLA_PRIV_ERR", "IGNORE"),
    (138, "ROBUST_CHANNEL_DLA_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (139, "ROBUST_CHANNEL_OFA1_ERROR", "RESTART_APP"),
    (140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "RESET_GPU"),
    (141, "ROBUST_CHANNEL_FAST_PATH_ERROR", "IGNORE"),
    (142, "ROBUST_CHANNEL_NVENC3_ERROR", "UNEXPECTED_ERR_REPORT_ISSUE"),
    (143, "GPU_INIT_ERROR", "RESET_GPU"),
    (144, "NVLINK_SAW_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (145, "NVLINK_RLW_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (146, "NVLINK_TLW_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (147, "NVLINK_TREX_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (148, "NVLINK_NVLPW_CTRL_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (149, "NVLINK_NETIR_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (150, "NVLINK_MSE_ERROR", "WORKFLOW_NVLINK5_ERR"),
    (151, "ROBUST_CHANNEL_KEY_ROTATION_ERROR", "RESTART_VM"),
    (152, "ROBUST_CHANNEL_DLA_SMMU_ERROR", "IGNORE"),
    (153, "ROBUST_CHANNEL_DLA_TIMEOUT", "IGNORE"),
    (154, "GPU_RECOVERY_ACTION_CHANGED", "XID_154"),
    (155, "NVLINK_SW_DEFINED_ERROR", "RESET_GPU"),
    (156, "RESOURCE_RETIREMENT_EVENT", "RESET_GPU"),
    (157, "RESOURCE_RETIREMENT_FAILURE", "IGNORE"),
    (158, "GPU_FATAL_TIMEOUT", "RESET_GPU"),
    (159, "ROBUST_CHANNEL_CHI_NON_DATA_ERROR", "CHECK_UVM"),
    (160, "CHANNEL_RETIREMENT_EVENT", "RESTART_BM"),
    (161, "CHANNEL_RETIREMENT_FAILURE", "IGNORE"),
    (162, "", "RESET_GPU"),
)

#: Where our class differs from the bucket's, or the bucket needs a rule: (class, note). The note is what an
#: operator reads; "UNVERIFIED" marks a rule taken from a third party's restatement of the catalogue.
_OVERRIDES: Dict[int, Tuple[str, str]] = {
    13: ("application", "WORKFLOW_XID_13 (investigatory): the same GPU faulting under several different jobs points "
                        "to hardware; that needs the history of passes, not one read"),
    31: ("application", "WORKFLOW_XID_31 (investigatory): repeated faults on one GPU across jobs point to hardware, "
                        "on several GPUs to the application"),
    43: ("informational", "a channel stopped after an earlier error: follow the XID that preceded it"),
    45: ("reset", "WORKFLOW_XID_45: a cleanup after another XID (the line says 'caused by previous Xid N'), then "
                  "informational; alone, UNVERIFIED: the catalogue's restatement says restart the fabric manager"),
    48: ("reset", "WORKFLOW_XID_48: a double bit ECC error; a reset retires the page or activates the remapped row; "
                  "with XID 64 (remapping failed) the GPU needs a person"),
    63: ("informational", "a row marked for remapping or a page retired: when the line says 'reset gpu to activate' "
                          "or 'reload the driver to activate' the remap is pending and a reset activates it"),
    64: ("rma", "ours, stricter than NVIDIA's immediate RESET_GPU: row remapping or page retirement failed, the "
                "spare rows are spent; NVIDIA's GPU debug guidelines RMA a GPU on remapping failures"),
    74: ("reset", "WORKFLOW_NVLINK_ERR: decided from the line's seven registers (Hopper) where it carries them"),
    79: ("reboot", "the GPU left the PCIe bus: only a node reboot brings it back; if it recurs, a person"),
    94: ("application", "contained ECC error: only the application that touched the memory is hit"),
    95: ("reset", "uncontained ECC error: every application on the GPU is hit; reset the GPU"),
    108: ("rma", "CONFLICT: NVIDIA's CSV says report it (unused), the restatement of the newer catalogue says "
                 "IGNORE (NVLINK_REMOTE_TRANSLATION_ERROR); the stricter kept"),
    119: ("reset", "GSP RPC timeout: reset the GPU; if it recurs, a driver issue (investigatory INVESTIGATE_SW, "
                   "UNVERIFIED)"),
    120: ("reset", "GSP error: reset the GPU; if it recurs, a driver issue (investigatory INVESTIGATE_SW, "
                   "UNVERIFIED)"),
    154: ("reset", "GPU recovery action changed: the line names the action (None, GPU Reset, Node Reboot, Drain "
                   "P2P, Drain and Reset), decided from it"),
    160: ("reboot", "CONFLICT: NVIDIA's CSV says RESTART_BM, the restatement of the newer catalogue says IGNORE; "
                    "the stricter kept"),
    162: ("reset", "CONFLICT: NVIDIA's CSV has no mnemonic and RESET_GPU, the restatement names it PSHC_REENGAGED "
                   "without an action; the stricter kept"),
}
for _code in range(144, 151):
    _OVERRIDES[_code] = ("reset", "WORKFLOW_NVLINK5_ERR: the catalogue's per-subcode rules (NVLink5, Blackwell) "
                                  "were not readable here; a GPU reset, the action most of them need, is assumed")


@dataclass(frozen=True)
class XidEntry:
    """One XID code: NVIDIA's mnemonic and bucket, our action class, where it comes from, and the rule's note."""

    code: int
    mnemonic: str
    nvidia_action: str
    action: str
    source: str
    note: str = ""


def _entry(code: int, mnemonic: str, bucket: str) -> XidEntry:
    action, note = _OVERRIDES.get(code, (BUCKET_ACTIONS[bucket], ""))
    source = SOURCE_DATA
    if code <= 8:
        source = "%s; %s (row read)" % (SOURCE_DATA, SOURCE_DOC)
    elif code == 74:
        source = "%s; %s" % (SOURCE_DATA, SOURCE_NVLINK)
    elif code in (48, 63, 64):
        source = "%s; %s" % (SOURCE_DATA, SOURCE_RETIREMENT)
    return XidEntry(code, mnemonic, bucket, action, source, note)


#: The catalogue judge() uses by default: code -> entry.
CATALOGUE: Dict[int, XidEntry] = {row[0]: _entry(*row) for row in _ROWS}
