/*
 * guard.h -- keeps the local kernel out of our handshakes.  Each scaleprobe
 * process owns one nftables table, "table inet scaleprobe-PID-RANDOM", whose
 * prerouting chain (priority -300, before conntrack) drops TCP addressed to
 * this host on the process's own block of probe source ports, so the kernel
 * never answers our SYN-ACKs with a RST (forwarded traffic passes).
 * libpcap's tap runs before netfilter: capture still sees every packet.
 * Blocks of ports lie above ip_local_port_range and are chosen so that live
 * processes never share one.  The table is owned by the process (nftables'
 * owner flag): the kernel removes it when the process ends, however it
 * ends; on kernels without the flag, tables whose process is gone are
 * removed at open.
 */
#ifndef SCALEPROBE_GUARD_H
#define SCALEPROBE_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUARD_BLOCK_PORTS 64	/* the unit of the range a process claims */

struct guard;

/* Removes orphaned tables, picks nblocks consecutive free blocks (1 for
 * one flow per path; the port plan's portplan_blocks for more), creates
 * the table.  Returns NULL with a one-line reason in err. */
struct guard *guard_open(unsigned nblocks, char *err, size_t errlen);

/* The range owned: [port_lo, port_lo + guard_ports(g)). */
uint16_t guard_port_lo(const struct guard *g);
unsigned guard_ports(const struct guard *g);

/* The table's name (scaleprobe-PID-RANDOM). */
const char *guard_name(const struct guard *g);

/* Deletes the table.  Safe to call from a signal-driven shutdown path. */
void guard_close(struct guard *g);

#endif
