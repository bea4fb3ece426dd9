/* Network counters beside the results: per interface bytes, packets, drops and errors from
 * /proc/net/dev, TCP segments and retransmissions from /proc/net/snmp (both of the process's
 * network namespace). Parsers take the files' text, so they can be tested on fabricated input;
 * the system monitor (sysmetrics.c) reads the files and turns two readings into a sample. */
#ifndef LB_SYS_NETSTATS_H
#define LB_SYS_NETSTATS_H

#include <stdbool.h>
#include <stdint.h>

#define LB_NET_MAX_IFS 64
#define LB_NET_NAME_BYTES 32

enum lb_net_field {
	LB_NET_RX_BYTES, LB_NET_RX_PACKETS, LB_NET_RX_ERRORS, LB_NET_RX_DROPS,
	LB_NET_TX_BYTES, LB_NET_TX_PACKETS, LB_NET_TX_ERRORS, LB_NET_TX_DROPS, LB_NET_FIELDS,
};

/* One reading. */
struct lb_net_raw {
	int n;
	char names[LB_NET_MAX_IFS][LB_NET_NAME_BYTES];
	uint64_t v[LB_NET_MAX_IFS][LB_NET_FIELDS];
	bool tcp_ok;
	uint64_t tcp_out_segs, tcp_retrans_segs;
};

/* One interface over an interval (counts are the interval's, not since boot). */
struct lb_sys_nic {
	char name[LB_NET_NAME_BYTES];
	uint64_t n[LB_NET_FIELDS];
	double rx_mib_per_s, tx_mib_per_s, rx_packets_per_s, tx_packets_per_s;
};

/* The network part of a sample. */
struct lb_sys_net {
	int nnics;                    /* interfaces whose counters moved in the interval */
	struct lb_sys_nic *nics;      /* owned */
	bool have_tcp;                /* /proc/net/snmp was readable */
	uint64_t tcp_out_segs, tcp_retrans_segs;
	double tcp_out_segs_per_s, tcp_retrans_per_s;
};

/* The text of /proc/net/dev (the interfaces) and of /proc/net/snmp (TCP); NULL: unreadable. */
void lb_net_parse_dev(struct lb_net_raw *r, const char *text);
void lb_net_parse_snmp(struct lb_net_raw *r, const char *text);
/* The interval from reading a to reading b, interval_s long. */
void lb_net_diff(const struct lb_net_raw *a, const struct lb_net_raw *b, double interval_s, struct lb_sys_net *out);
void lb_sys_net_fini(struct lb_sys_net *n);

#endif
