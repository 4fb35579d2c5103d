/* SPDX-License-Identifier: MIT */
/*
 * Constants shared by the libcpc interfaces (Solaris <sys/cpc_impl.h>):
 * request flags, bind flags, capabilities, limits and error subcodes.
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_CPC_IMPL_H
#define _SYS_CPC_IMPL_H

#include <sys/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An attribute of a request: name and value. */
typedef struct {
	char *ca_name;
	uint64_t ca_val;
} cpc_attr_t;

/* Request flags (cpc_set_add_request). */
#define CPC_OVF_NOTIFY_EMT 0x1
#define CPC_COUNT_USER 0x2
#define CPC_COUNT_SYSTEM 0x4
#define CPC_COUNT_HV 0x8

/* Bind flags. */
#define CPC_BIND_LWP_INHERIT 0x1
#define CPC_BIND_EMT_OVF 0x2

/* Capabilities (cpc_caps). */
#define CPC_CAP_OVERFLOW_INTERRUPT 0x1
#define CPC_CAP_OVERFLOW_PRECISE 0x2

/* Limits. */
#define CPC_MAX_IMPL_NAME 512
#define CPC_MAX_CPUREF 1024
#define CPC_MAX_EVENT_LEN 512
#define CPC_MAX_ATTR_LEN 32

/* Set flags. */
#define CPC_SET_ALL_FLAGS 0x1

/* Error subcodes passed to a cpc_errhndlr_t. */
#define CPC_INVALID_EVENT 1
#define CPC_INVALID_PICNUM 2
#define CPC_INVALID_ATTRIBUTE 3
#define CPC_ATTRIBUTE_OUT_OF_RANGE 4
#define CPC_RESOURCE_UNAVAIL 5
#define CPC_PIC_NOT_CAPABLE 6
#define CPC_REQ_INVALID_FLAGS 7
#define CPC_CONFLICTING_REQS 8
#define CPC_ATTR_REQUIRES_PRIVILEGE 9
#define CPC_PBIND_FAILED 10
#define CPC_HV_NO_ACCESS 11

#ifdef __cplusplus
}
#endif

#endif /* _SYS_CPC_IMPL_H */
