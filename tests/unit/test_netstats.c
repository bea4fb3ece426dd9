/* Network counters from /proc/net/dev and /proc/net/snmp text: parsing, and the differences
 * between two readings (interfaces that appear or restart, idle ones left out). */
#include <string.h>

#include "../tap.h"
#include "sys/netstats.h"

static const char dev1[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	"    lo: 1000 10    0    0    0     0          0         0 1000 10    0    0    0     0       0          0\n"
	"  eth0: 5000 50    1    2    0     0          0         0  700  7    3    4    0     0       0          0\n"
	"  ifb0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n";
static const char dev2[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	"    lo: 1000 10    0    0    0     0          0         0 1000 10    0    0    0     0       0          0\n"
	"  eth0: 1053576 1050    1    5    0     0          0         0  2097852  2007    3    4    0     0       0          0\n"
	"  ifb0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
	"veth-new: 100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n";
static const char snmp1[] =
	"Ip: Forwarding DefaultTTL\nIp: 1 64\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 1949 1806 122 1022 36 1336717 1331645 647 0 1091 0\n"
	"Udp: InDatagrams NoPorts\nUdp: 5 6\n";
static const char snmp2[] =
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 1949 1806 122 1022 36 1336717 1332645 657 0 1091 0\n";

static const struct lb_sys_nic *nic(const struct lb_sys_net *n, const char *name)
{
	for (int i = 0; i < n->nnics; i++)
		if (!strcmp(n->nics[i].name, name))
			return &n->nics[i];
	return NULL;
}

int main(void)
{
	struct lb_net_raw a, b;
	lb_net_parse_dev(&a, dev1);
	lb_net_parse_snmp(&a, snmp1);
	is_int(a.n, 3, "three interfaces (the header lines are not)");
	is_str(a.names[1], "eth0", "names without spaces");
	is_int(a.v[1][LB_NET_RX_BYTES], 5000, "rx bytes");
	is_int(a.v[1][LB_NET_RX_ERRORS], 1, "rx errors");
	is_int(a.v[1][LB_NET_RX_DROPS], 2, "rx drops");
	is_int(a.v[1][LB_NET_TX_PACKETS], 7, "tx packets (column 10)");
	is_int(a.v[1][LB_NET_TX_DROPS], 4, "tx drops");
	ok(a.tcp_ok, "the Tcp: lines are found after another protocol's");
	is_int(a.tcp_out_segs, 1331645, "OutSegs");
	is_int(a.tcp_retrans_segs, 647, "RetransSegs (after a negative MaxConn)");

	lb_net_parse_dev(&b, dev2);
	lb_net_parse_snmp(&b, snmp2);
	struct lb_sys_net d;
	lb_net_diff(&a, &b, 2.0, &d);
	is_int(d.nnics, 2, "only interfaces whose counters moved: eth0 and the new one");
	const struct lb_sys_nic *e = nic(&d, "eth0");
	ok(e != NULL, "eth0 is there");
	if (e) {
		is_int(e->n[LB_NET_RX_BYTES], 1048576, "rx bytes over the interval");
		is_int(e->n[LB_NET_RX_PACKETS], 1000, "rx packets");
		is_int(e->n[LB_NET_RX_DROPS], 3, "rx drops");
		is_int(e->n[LB_NET_RX_ERRORS], 0, "no new errors");
		ok(e->rx_mib_per_s == 0.5, "1 MiB in 2 s is 0.5 MiB/s (%g)", e->rx_mib_per_s);
		ok(e->tx_mib_per_s == 1.0, "2 MiB in 2 s (%g)", e->tx_mib_per_s);
		ok(e->tx_packets_per_s == 1000.0, "packets/s (%g)", e->tx_packets_per_s);
	}
	const struct lb_sys_nic *v = nic(&d, "veth-new");
	ok(v && v->n[LB_NET_TX_BYTES] == 200, "an interface that appeared counts from zero");
	ok(!nic(&d, "lo") && !nic(&d, "ifb0"), "idle interfaces are left out");
	ok(d.have_tcp, "TCP figures");
	is_int(d.tcp_out_segs, 1000, "segments sent in the interval");
	is_int(d.tcp_retrans_segs, 10, "retransmitted");
	ok(d.tcp_retrans_per_s == 5.0, "retransmits/s (%g)", d.tcp_retrans_per_s);
	lb_sys_net_fini(&d);

	/* A counter that went down (an interface re-created) gives 0, not a huge difference. */
	lb_net_diff(&b, &a, 1.0, &d);
	e = nic(&d, "eth0");
	ok(!e || e->n[LB_NET_RX_BYTES] == 0, "a counter going backwards is 0");
	lb_sys_net_fini(&d);

	lb_net_parse_snmp(&b, NULL);
	ok(!b.tcp_ok, "no snmp file: no TCP figures");
	lb_net_parse_dev(&b, "garbage\nno colon here\nx: 1 2\n");
	is_int(b.n, 0, "lines that are not counters are skipped");
	return done_testing();
}
