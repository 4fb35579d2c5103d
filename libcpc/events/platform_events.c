/* SPDX-License-Identifier: MIT */
/*
 * The platform event tables of the version 1 interfaces: the Pentium (P5),
 * Pentium Pro (P6) names of Solaris, and the AMD names of the Solaris
 * Opteron back end, with their 8-bit event codes, in table order.
 */
#include <stddef.h>
#include <string.h>

#include "libcpc.h"
#include "platform_events.h"

struct named_code {
	const char *name;
	unsigned code;
};

static const struct named_code p5_events[] = {
	{ "data_read", 0x00 },
	{ "data_write", 0x01 },
	{ "data_tlb_miss", 0x02 },
	{ "data_read_miss", 0x03 },
	{ "data_write_miss", 0x04 },
	{ "write_hit_to_M_or_E", 0x05 },
	{ "dcache_lines_wrback", 0x06 },
	{ "external_snoops", 0x07 },
	{ "external_dcache_snoop_hits", 0x08 },
	{ "memory_access_in_both_pipes", 0x09 },
	{ "bank_conflicts", 0x0a },
	{ "misaligned_ref", 0x0b },
	{ "code_read", 0x0c },
	{ "code_tlb_miss", 0x0d },
	{ "code_cache_miss", 0x0e },
	{ "any_segreg_loaded", 0x0f },
	{ "branches", 0x12 },
	{ "btb_hits", 0x13 },
	{ "taken_or_btb_hit", 0x14 },
	{ "pipeline_flushes", 0x15 },
	{ "instr_exec", 0x16 },
	{ "instr_exec_V_pipe", 0x17 },
	{ "clks_bus_cycle", 0x18 },
	{ "clks_full_wbufs", 0x19 },
	{ "pipe_stall_read", 0x1a },
	{ "stall_on_write_ME", 0x1b },
	{ "locked_bus_cycle", 0x1c },
	{ "io_rw_cycles", 0x1d },
	{ "reads_noncache_mem", 0x1e },
	{ "pipeline_agi_stalls", 0x1f },
	{ "flops", 0x22 },
	{ "bp_match_dr0", 0x23 },
	{ "bp_match_dr1", 0x24 },
	{ "bp_match_dr2", 0x25 },
	{ "bp_match_dr3", 0x26 },
	{ "hw_intrs", 0x27 },
	{ "data_rw", 0x28 },
	{ "data_rw_miss", 0x29 },
};

/* Pentium with MMX: codes 0x2a-0x3b have different names per counter. */
static const struct {
	unsigned code;
	const char *pic0, *pic1;
} p5_mmx_events[] = {
	{ 0x2a, "bus_ownership_latency", "bus_ownership_transfers" },
	{ 0x2b, "mmx_instr_upipe", "mmx_instr_vpipe" },
	{ 0x2c, "cache_M_line_sharing", "cache_lint_sharing" },
	{ 0x2d, "emms_instr", "mmx_fp_transitions" },
	{ 0x2e, "bus_util_processor", "writes_noncache_mem" },
	{ 0x2f, "sat_mmx_instr", "sats_performed" },
	{ 0x30, "clks_not_HLT", "clks_dcache_tlb_miss" },
	{ 0x31, "mmx_data_read", "mmx_data_read_miss" },
	{ 0x32, "clks_fp_stall", "taken_br" },
	{ 0x33, "d1_starv_fifo_0", "d1_starv_fifo_1" },
	{ 0x34, "mmx_data_write", "mmx_data_write_miss" },
	{ 0x35, "pipe_flush_wbp", "pipe_flush_wbp_wb" },
	{ 0x36, "mmx_misalign_data_refs", "mmx_pipe_stall_data_read" },
	{ 0x37, "rets_pred_incorrect", "rets_pred" },
	{ 0x38, "mmx_multiply_unit_interlock", "movd_movq_stall" },
	{ 0x39, "rets", "rsb_overflow" },
	{ 0x3a, "btb_false_entries", "btb_mispred_nt" },
	{ 0x3b, "clocks_stall_full_wb", "mmx_stall_write_ME" },
};

static const struct named_code p6_events[] = {
	{ "data_mem_refs", 0x43 },
	{ "dcu_lines_in", 0x45 },
	{ "dcu_m_lines_in", 0x46 },
	{ "dcu_m_lines_out", 0x47 },
	{ "dcu_miss_outstanding", 0x48 },
	{ "ifu_ifetch", 0x80 },
	{ "ifu_ifetch_miss", 0x81 },
	{ "itlb_miss", 0x85 },
	{ "ifu_mem_stall", 0x86 },
	{ "ild_stall", 0x87 },
	{ "l2_ifetch", 0x28 },
	{ "l2_ld", 0x29 },
	{ "l2_st", 0x2a },
	{ "l2_lines_in", 0x24 },
	{ "l2_lines_out", 0x26 },
	{ "l2_m_lines_inm", 0x25 },
	{ "l2_m_lines_outm", 0x27 },
	{ "l2_rqsts", 0x2e },
	{ "l2_ads", 0x21 },
	{ "l2_dbus_busy", 0x22 },
	{ "l2_dbus_busy_rd", 0x23 },
	{ "bus_drdy_clocks", 0x62 },
	{ "bus_lock_clocks", 0x63 },
	{ "bus_req_outstanding", 0x60 },
	{ "bus_tran_brd", 0x65 },
	{ "bus_tran_rfo", 0x66 },
	{ "bus_trans_wb", 0x67 },
	{ "bus_tran_ifetch", 0x68 },
	{ "bus_tran_inval", 0x69 },
	{ "bus_tran_pwr", 0x6a },
	{ "bus_trans_p", 0x6b },
	{ "bus_trans_io", 0x6c },
	{ "bus_tran_def", 0x6d },
	{ "bus_tran_burst", 0x6e },
	{ "bus_tran_any", 0x70 },
	{ "bus_tran_mem", 0x6f },
	{ "bus_data_rcv", 0x64 },
	{ "bus_bnr_drv", 0x61 },
	{ "bus_hit_drv", 0x7a },
	{ "bus_hitm_drv", 0x7b },
	{ "bus_snoop_stall", 0x7e },
	{ "flops", 0xc1 },
	{ "fp_comp_ops_exe", 0x10 },
	{ "fp_assist", 0x11 },
	{ "mul", 0x12 },
	{ "div", 0x13 },
	{ "cycles_div_busy", 0x14 },
	{ "ld_blocks", 0x03 },
	{ "sb_drains", 0x04 },
	{ "misalign_mem_ref", 0x05 },
	{ "inst_retired", 0xc0 },
	{ "uops_retired", 0xc2 },
	{ "inst_decoder", 0xd0 },
	{ "hw_int_rx", 0xc8 },
	{ "cycles_int_masked", 0xc6 },
	{ "cycles_int_pending_and_masked", 0xc7 },
	{ "br_inst_retired", 0xc4 },
	{ "br_miss_pred_retired", 0xc5 },
	{ "br_taken_retired", 0xc9 },
	{ "br_miss_pred_taken_ret", 0xca },
	{ "br_inst_decoded", 0xe0 },
	{ "btb_misses", 0xe2 },
	{ "br_bogus", 0xe4 },
	{ "baclears", 0xe6 },
	{ "resource_stalls", 0xa2 },
	{ "partial_rat_stalls", 0xd2 },
	{ "segment_reg_loads", 0x06 },
	{ "cpu_clk_unhalted", 0x79 },
};

static const struct named_code p6_mmx_events[] = {
	{ "mmx_instr_exec", 0xb0 },
	{ "mmx_sat_instr_exec", 0xb1 },
	{ "mmx_uops_exec", 0xb2 },
	{ "mmx_instr_type_exec", 0xb3 },
	{ "fp_mmx_trans", 0xcc },
	{ "mmx_assists", 0xcd },
	{ "mmx_instr_ret", 0xce },
	{ "seg_rename_stalls", 0xd4 },
	{ "seg_reg_renames", 0xd5 },
	{ "ret_seg_renames", 0xd6 },
};

/* AMD family 0Fh/10h names (Solaris Opteron back end); raw event codes. */
static const struct named_code amd_events[] = {
	{ "FP_dispatched_fpu_ops", 0x00 },
	{ "FP_cycles_no_fpu_ops_retired", 0x01 },
	{ "FP_dispatched_fpu_ops_ff", 0x02 },
	{ "LS_seg_reg_load", 0x20 },
	{ "LS_uarch_resync_self_modify", 0x21 },
	{ "LS_uarch_resync_snoop", 0x22 },
	{ "LS_buffer_2_full", 0x23 },
	{ "LS_locked_operation", 0x24 },
	{ "LS_retired_cflush", 0x26 },
	{ "LS_retired_cpuid", 0x27 },
	{ "DC_access", 0x40 },
	{ "DC_miss", 0x41 },
	{ "DC_refill_from_L2", 0x42 },
	{ "DC_refill_from_system", 0x43 },
	{ "DC_copyback", 0x44 },
	{ "DC_dtlb_L1_miss_L2_hit", 0x45 },
	{ "DC_dtlb_L1_miss_L2_miss", 0x46 },
	{ "DC_misaligned_data_ref", 0x47 },
	{ "DC_uarch_late_cancel_access", 0x48 },
	{ "DC_uarch_early_cancel_access", 0x49 },
	{ "DC_1bit_ecc_error_found", 0x4a },
	{ "DC_dispatched_prefetch_instr", 0x4b },
	{ "DC_dcache_accesses_by_locks", 0x4c },
	{ "BU_cpu_clk_unhalted", 0x76 },
	{ "BU_internal_L2_req", 0x7d },
	{ "BU_fill_req_missed_L2", 0x7e },
	{ "BU_fill_into_L2", 0x7f },
	{ "IC_fetch", 0x80 },
	{ "IC_miss", 0x81 },
	{ "IC_refill_from_L2", 0x82 },
	{ "IC_refill_from_system", 0x83 },
	{ "IC_itlb_L1_miss_L2_hit", 0x84 },
	{ "IC_itlb_L1_miss_L2_miss", 0x85 },
	{ "IC_uarch_resync_snoop", 0x86 },
	{ "IC_instr_fetch_stall", 0x87 },
	{ "IC_return_stack_hit", 0x88 },
	{ "IC_return_stack_overflow", 0x89 },
	{ "FR_retired_x86_instr_w_excp_intr", 0xc0 },
	{ "FR_retired_uops", 0xc1 },
	{ "FR_retired_branches_w_excp_intr", 0xc2 },
	{ "FR_retired_branches_mispred", 0xc3 },
	{ "FR_retired_taken_branches", 0xc4 },
	{ "FR_retired_taken_branches_mispred", 0xc5 },
	{ "FR_retired_far_ctl_transfer", 0xc6 },
	{ "FR_retired_resyncs", 0xc7 },
	{ "FR_retired_near_rets", 0xc8 },
	{ "FR_retired_near_rets_mispred", 0xc9 },
	{ "FR_retired_taken_branches_mispred_addr_miscompare", 0xca },
	{ "FR_retired_fpu_instr", 0xcb },
	{ "FR_retired_fastpath_double_op_instr", 0xcc },
	{ "FR_intr_masked_cycles", 0xcd },
	{ "FR_intr_masked_while_pending_cycles", 0xce },
	{ "FR_taken_hardware_intrs", 0xcf },
	{ "FR_nothing_to_dispatch", 0xd0 },
	{ "FR_dispatch_stalls", 0xd1 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int __cpc_platform_family(int cpuver)
{
	switch (cpuver) {
	case CPC_PENTIUM:
	case CPC_PENTIUM_MMX:
		return CPC_FAMILY_P5;
	case CPC_PENTIUM_PRO:
	case CPC_PENTIUM_PRO_MMX:
		return CPC_FAMILY_P6;
	case CPC_AMD64:
		return CPC_FAMILY_AMD;
	case CPC_LINUX_PERF:
		return CPC_FAMILY_PERF;
	default:
		return CPC_FAMILY_NONE;
	}
}

/* P6 codes that only one counter can measure. */
static int p6_counter_ok(int regno, unsigned code)
{
	switch (code) {
	case 0xc1:
	case 0x10:
	case 0x14:
		return regno == 0;
	case 0x11:
	case 0x12:
	case 0x13:
		return regno == 1;
	default:
		return 1;
	}
}

void __cpc_platform_walk(int cpuver, int regno, void *arg,
    void (*action)(void *arg, int regno, const char *name, uint8_t bits))
{
	if (regno != 0 && regno != 1)
		return;
	switch (cpuver) {
	case CPC_PENTIUM:
	case CPC_PENTIUM_MMX:
		for (size_t i = 0; i < NELEM(p5_events); i++)
			action(arg, regno, p5_events[i].name,
			    (uint8_t)p5_events[i].code);
		if (cpuver == CPC_PENTIUM_MMX)
			for (size_t i = 0; i < NELEM(p5_mmx_events); i++)
				action(arg, regno,
				    regno == 0 ? p5_mmx_events[i].pic0
					       : p5_mmx_events[i].pic1,
				    (uint8_t)p5_mmx_events[i].code);
		break;
	case CPC_PENTIUM_PRO:
	case CPC_PENTIUM_PRO_MMX:
		for (size_t i = 0; i < NELEM(p6_events); i++)
			if (p6_counter_ok(regno, p6_events[i].code))
				action(arg, regno, p6_events[i].name,
				    (uint8_t)p6_events[i].code);
		if (cpuver == CPC_PENTIUM_PRO_MMX)
			for (size_t i = 0; i < NELEM(p6_mmx_events); i++)
				action(arg, regno, p6_mmx_events[i].name,
				    (uint8_t)p6_mmx_events[i].code);
		break;
	case CPC_AMD64:
		for (size_t i = 0; i < NELEM(amd_events); i++)
			action(arg, regno, amd_events[i].name,
			    (uint8_t)amd_events[i].code);
		break;
	default:
		break;
	}
}

struct find_name {
	const char *name;
	int found;
	unsigned code;
};

static void match_name(void *arg, int regno, const char *name, uint8_t bits)
{
	struct find_name *f = arg;
	(void)regno;
	if (!f->found && strcmp(f->name, name) == 0) {
		f->found = 1;
		f->code = bits;
	}
}

int __cpc_platform_lookup(int cpuver, int regno, const char *name,
    unsigned *code)
{
	struct find_name f = { name, 0, 0 };
	__cpc_platform_walk(cpuver, regno, &f, match_name);
	if (f.found)
		*code = f.code;
	return f.found;
}

int __cpc_platform_known_name(int cpuver, const char *name)
{
	unsigned code;
	return __cpc_platform_lookup(cpuver, 0, name, &code) ||
	    __cpc_platform_lookup(cpuver, 1, name, &code);
}

const char *__cpc_platform_name(int cpuver, int regno, unsigned code)
{
	switch (cpuver) {
	case CPC_PENTIUM:
	case CPC_PENTIUM_MMX:
		for (size_t i = 0; i < NELEM(p5_events); i++)
			if (p5_events[i].code == code)
				return p5_events[i].name;
		if (cpuver == CPC_PENTIUM_MMX)
			for (size_t i = 0; i < NELEM(p5_mmx_events); i++)
				if (p5_mmx_events[i].code == code)
					return regno == 0 ? p5_mmx_events[i].pic0
							  : p5_mmx_events[i].pic1;
		return NULL;
	case CPC_PENTIUM_PRO:
	case CPC_PENTIUM_PRO_MMX:
		if (!p6_counter_ok(regno, code))
			return NULL;
		for (size_t i = 0; i < NELEM(p6_events); i++)
			if (p6_events[i].code == code)
				return p6_events[i].name;
		if (cpuver == CPC_PENTIUM_PRO_MMX)
			for (size_t i = 0; i < NELEM(p6_mmx_events); i++)
				if (p6_mmx_events[i].code == code)
					return p6_mmx_events[i].name;
		return NULL;
	case CPC_AMD64:
		for (size_t i = 0; i < NELEM(amd_events); i++)
			if (amd_events[i].code == code)
				return amd_events[i].name;
		return NULL;
	default:
		return NULL;
	}
}
