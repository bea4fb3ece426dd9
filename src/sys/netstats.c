#include "sys/netstats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* /proc/net/dev: two header lines, then "name: rx bytes packets errs drop fifo frame compressed
 * multicast tx bytes packets errs drop ...". */
static void parse_dev(struct lb_net_raw *r, const char *text)
{
	static const int rx_cols[4] = { LB_NET_RX_BYTES, LB_NET_RX_PACKETS, LB_NET_RX_ERRORS, LB_NET_RX_DROPS };
	static const int tx_cols[4] = { LB_NET_TX_BYTES, LB_NET_TX_PACKETS, LB_NET_TX_ERRORS, LB_NET_TX_DROPS };
	for (const char *l = text; l && *l && r->n < LB_NET_MAX_IFS; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':'), *eol = strchr(l, '\n');
		if (!colon || (eol && colon > eol))
			continue;
		const char *name = l;
		while (*name == ' ')
			name++;
		size_t len = (size_t)(colon - name);
		if (!len || len >= LB_NET_NAME_BYTES || memchr(name, '|', len))
			continue;
		uint64_t col[16];
		char *p = (char *)colon + 1;
		int k = 0;
		for (; k < 16; k++) {
			char *end;
			col[k] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		if (k < 12)
			continue; /* not a counters line */
		memcpy(r->names[r->n], name, len);
		r->names[r->n][len] = '\0';
		for (int i = 0; i < 4; i++) {
			r->v[r->n][rx_cols[i]] = col[i];
			r->v[r->n][tx_cols[i]] = col[8 + i];
		}
		r->n++;
	}
}

/* /proc/net/snmp: a "Tcp:" line of names, then one of values. */
static void parse_snmp(struct lb_net_raw *r, const char *text)
{
	const char *names = strstr(text, "Tcp: ");
	const char *values = names ? strstr(names + 5, "\nTcp: ") : NULL;
	if (!values)
		return;
	values += 6;
	names += 5;
	char name[64];
	for (;;) {
		int nl = 0;
		if (sscanf(names, "%63s%n", name, &nl) != 1 || *names == '\n')
			break;
		char *end;
		long long v = strtoll(values, &end, 10);
		if (end == values)
			break;
		if (!strcmp(name, "OutSegs"))
			r->tcp_out_segs = (uint64_t)v;
		else if (!strcmp(name, "RetransSegs")) {
			r->tcp_retrans_segs = (uint64_t)v;
			r->tcp_ok = true;
		}
		names += nl;
		while (*names == ' ')
			names++;
		values = end;
		if (*names == '\n' || !*names)
			break;
	}
}

void lb_net_parse_dev(struct lb_net_raw *r, const char *text)
{
	r->n = 0;
	if (text)
		parse_dev(r, text);
}

void lb_net_parse_snmp(struct lb_net_raw *r, const char *text)
{
	r->tcp_ok = false;
	r->tcp_out_segs = r->tcp_retrans_segs = 0;
	if (text)
		parse_snmp(r, text);
}

static int find(const struct lb_net_raw *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->names[i], name))
			return i;
	return -1;
}

static uint64_t delta(uint64_t b, uint64_t a)
{
	return b >= a ? b - a : 0; /* an interface re-created in between restarts from 0 */
}

static double rate(double n, double s)
{
	return s > 0 ? n / s : 0;
}

void lb_net_diff(const struct lb_net_raw *a, const struct lb_net_raw *b, double interval_s, struct lb_sys_net *out)
{
	memset(out, 0, sizeof(*out));
	out->nics = lb_xcalloc((size_t)(b->n ? b->n : 1), sizeof(*out->nics));
	for (int i = 0; i < b->n; i++) {
		int j = find(a, b->names[i]);
		struct lb_sys_nic *o = &out->nics[out->nnics];
		bool moved = false;
		for (int k = 0; k < LB_NET_FIELDS; k++) {
			o->n[k] = j < 0 ? b->v[i][k] : delta(b->v[i][k], a->v[j][k]);
			moved = moved || o->n[k];
		}
		if (!moved)
			continue; /* idle interfaces (ifb, a down NIC) would only add lines of zeros */
		snprintf(o->name, sizeof(o->name), "%s", b->names[i]);
		o->rx_mib_per_s = rate((double)o->n[LB_NET_RX_BYTES] / 1048576.0, interval_s);
		o->tx_mib_per_s = rate((double)o->n[LB_NET_TX_BYTES] / 1048576.0, interval_s);
		o->rx_packets_per_s = rate((double)o->n[LB_NET_RX_PACKETS], interval_s);
		o->tx_packets_per_s = rate((double)o->n[LB_NET_TX_PACKETS], interval_s);
		out->nnics++;
	}
	out->have_tcp = a->tcp_ok && b->tcp_ok;
	if (out->have_tcp) {
		out->tcp_out_segs = delta(b->tcp_out_segs, a->tcp_out_segs);
		out->tcp_retrans_segs = delta(b->tcp_retrans_segs, a->tcp_retrans_segs);
		out->tcp_out_segs_per_s = rate((double)out->tcp_out_segs, interval_s);
		out->tcp_retrans_per_s = rate((double)out->tcp_retrans_segs, interval_s);
	}
}

void lb_sys_net_fini(struct lb_sys_net *n)
{
	free(n->nics);
	n->nics = NULL;
	n->nnics = 0;
}
