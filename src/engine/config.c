/* General options and the configuration derived from them. */
#include "engine/config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/util.h"

static const struct lb_opt_def general_opts[] = {
	{ "threads", LB_OPT_INT, "1", "number of threads to use" },
	{ "events", LB_OPT_INT, "0", "limit for total number of events" },
	{ "time", LB_OPT_INT, "10", "limit for total execution time in seconds" },
	{ "warmup-time", LB_OPT_INT, "0",
	  "execute events for this many seconds with statistics disabled before the actual benchmark run with statistics enabled" },
	{ "end-grace", LB_OPT_DOUBLE, "5",
	  "seconds statements still running at the end of --time may take before they are cut off (counted as cut off, exit code 3), so a stalled server cannot stretch the run" },
	{ "forced-shutdown", LB_OPT_STRING, "off",
	  "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable" },
	{ "thread-stack-size", LB_OPT_SIZE, "64K", "size of stack per thread" },
	{ "thread-init-timeout", LB_OPT_INT, "30", "wait time in seconds for worker threads to initialize" },
	{ "rate", LB_OPT_DOUBLE, "0", "average transactions rate. 0 for unlimited rate" },
	{ "rate-arrival", LB_OPT_STRING, "poisson", "arrival process for --rate: poisson or constant" },
	{ "users", LB_OPT_INT, "0",
	  "number of emulated users, run as coroutines spread over --threads (0 = one per thread, as sysbench)" },
	{ "connections", LB_OPT_INT, "0",
	  "database connections per process that emulated users borrow for one event at a time (0 = one per user)" },
	{ "ramp-up", LB_OPT_STRING, "",
	  "start emulated users gradually: over N seconds (e.g. 60) or at a rate (e.g. 600/min); statistics start after it" },
	{ "report-interval", LB_OPT_INT, "0",
	  "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports" },
	{ "report-checkpoints", LB_OPT_LIST, "",
	  "dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default." },
	{ "debug", LB_OPT_BOOL, "off", "print more debugging info" },
	{ "validate", LB_OPT_BOOL, "off", "perform validation checks where possible" },
	{ "help", LB_OPT_BOOL, "off", "print help and exit" },
	{ "version", LB_OPT_BOOL, "off", "print version and exit" },
	{ "config-file", LB_OPT_FILE, NULL, "File containing command line options" },
	{ "luajit-cmd", LB_OPT_STRING, NULL,
	  "perform LuaJIT control command. This option is equivalent to 'luajit -j'. See LuaJIT documentation for more information" },
	{ "format", LB_OPT_STRING, "text", "report format on stdout: text, json or csv (csv = one line per report interval)" },
	{ "output", LB_OPT_STRING, NULL, "also write the complete result as JSON to this file (written atomically, also on interruption)" },
	{ "threshold", LB_OPT_STRING, NULL,
	  "pass/fail condition on the final statistics window, [TYPE.]METRIC<VALUE or >VALUE (<=, >= too): p95<50ms, tps>1000, errors<0.1%, NewOrder.p95<200ms, cache_miss<100 (metrics: pNN, avg, min, max, tps, qps, errors, events, reconnects, or the name of a luabench.counter, .rate or .gauge: NAME, NAME.min, NAME.max); repeat the option or separate with commas; a failed threshold makes the exit code 4" },
	{ "start-at", LB_OPT_STRING, NULL,
	  "start the run at this wall-clock time (seconds since the epoch, fractions allowed) once the threads are ready, so several processes start together" },
	{ "instance", LB_OPT_STRING, NULL,
	  "this process is instance i of n (i/n, 0 <= i < n) of a distributed run: scripts see luabench.instance and luabench.instances, results record both" },
	/* The CLI copies these to their new names; they keep their own values too, which 0.5-style
	 * scripts read as globals (num_threads ...), as in sysbench. */
	{ "tx-rate", LB_OPT_INT, "0", "deprecated alias for --rate" },
	{ "max-requests", LB_OPT_INT, "0", "deprecated alias for --events" },
	{ "max-time", LB_OPT_INT, "0", "deprecated alias for --time" },
	{ "num-threads", LB_OPT_INT, "1", "deprecated alias for --threads" },
};

static const struct lb_opt_def rand_opts[] = {
	{ "rand-type", LB_OPT_STRING, "special",
	  "random numbers distribution {uniform, gaussian, special, pareto, zipfian} to use by default" },
	{ "rand-spec-iter", LB_OPT_INT, "12", "number of iterations for the special and gaussian distributions" },
	{ "rand-spec-pct", LB_OPT_DOUBLE, "1", "percentage of the entire range where 'special' values will fall in the special distribution" },
	{ "rand-spec-res", LB_OPT_DOUBLE, "75", "percentage of 'special' values to use for the special distribution" },
	{ "rand-seed", LB_OPT_INT, "0",
	  "seed for random number generator. When 0, the current time is used as an RNG seed." },
	{ "rand-pareto-h", LB_OPT_DOUBLE, "0.2", "shape parameter for the Pareto distribution" },
	{ "rand-zipfian-exp", LB_OPT_DOUBLE, "0.8", "shape parameter (exponent, theta) for the Zipfian distribution" },
};

static const struct lb_opt_def log_opts[] = {
	{ "verbosity", LB_OPT_INT, "3", "verbosity level {5 - debug, 0 - only critical messages}" },
	{ "percentile", LB_OPT_STRING, "95",
	  "percentiles to calculate in latency statistics, a comma-separated list (0 < p <= 100, decimals allowed, e.g. 50,95,99,99.9; duplicates are dropped). Use the special value of 0 to disable percentile calculations" },
	{ "histogram", LB_OPT_BOOL, "off", "print latency histogram in report" },
	{ "report-statements", LB_OPT_BOOL, "off",
	  "report each SQL statement (its text with literals as ?, or a prepared statement's text) with count, errors and latency, like pgbench -r; costs nothing when off" },
	{ "report-metrics", LB_OPT_BOOL, "off",
	  "with --report-interval, print the script's named metrics (luabench.counter, .rate, .gauge) on a line of their own after each interval line" },
};

int lb_config_register_options(struct lb_opts *opts, char *err, int errlen)
{
	if (lb_opts_add_defs(opts, general_opts, LB_ARRAY_LENGTH(general_opts), "General options", err,
		      errlen) < 0 ||
	    lb_opts_add_defs(opts, rand_opts, LB_ARRAY_LENGTH(rand_opts),
		      "Pseudo-Random Numbers Generator options", err, errlen) < 0 ||
	    lb_opts_add_defs(opts, log_opts, LB_ARRAY_LENGTH(log_opts), "Log options", err, errlen) < 0 ||
	    lb_place_register_options(opts, err, errlen) < 0)
		return -1;
	return 0;
}

/* Each percentile once (JSON keys and CSV columns are per percentile), in the user's order:
 * the first is the one in sysbench's place in the reports. */
static bool has_percentile(const struct lb_config *c, double p)
{
	for (int i = 0; i < c->npercentiles; i++)
		if (c->percentiles[i] == p)
			return true;
	return false;
}

static int parse_percentiles(struct lb_config *c, const char *s, char *err, int errlen)
{
	c->npercentiles = 0;
	char *copy = lb_xstrdup(s), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double p = strtod(tok, &end);
		if (end == tok || *end) {
			snprintf(err, (size_t)errlen, "Invalid value for the 'percentile' option: '%s'", s);
			rc = LB_CONFIG_USAGE;
			break;
		}
		if (p < 0 || p > 100) {
			/* First line sysbench's message, then luabench's hint (see cli.c). */
			snprintf(err, (size_t)errlen,
				 "Invalid value for --percentile: %s\nexpected numbers in 0..100, comma-separated", s);
			rc = -1;
			break;
		}
		if (p == 0 || has_percentile(c, p))
			continue; /* 0 disables percentile statistics, as in sysbench; a repeat adds nothing */
		if (c->npercentiles == LB_MAX_PERCENTILES) {
			snprintf(err, (size_t)errlen, "too many percentiles (at most %d)", LB_MAX_PERCENTILES);
			rc = -1;
			break;
		}
		c->percentiles[c->npercentiles++] = p;
	}
	free(copy);
	return rc;
}

static int parse_forced_shutdown(struct lb_config *c, const char *s, char *err, int errlen)
{
	c->forced_shutdown_ns = -1;
	if (!strcmp(s, "off"))
		return 0;
	if (!*s)
		s = "5%"; /* --forced-shutdown= as the bare option (sysbench) */
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0 || (*end && strcmp(end, "%"))) {
		snprintf(err, (size_t)errlen,
			 "Invalid value for the 'forced-shutdown' option: '%s' (expected seconds, N%% of --time, or off)", s);
		return -1;
	}
	if (*end == '%') {
		if (!c->time_ns) {
			snprintf(err, (size_t)errlen, "--forced-shutdown=%s needs a --time limit", s);
			return -1;
		}
		c->forced_shutdown_ns = (int64_t)((double)c->time_ns * v / 100.0);
	} else {
		c->forced_shutdown_ns = (int64_t)(v * LB_NS_PER_S);
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int parse_checkpoints(struct lb_config *c, const struct lb_opt *o, char *err, int errlen)
{
	c->ncheckpoints = 0;
	for (int i = 0; i < o->nlist; i++) {
		char *end;
		double v = strtod(o->list[i], &end);
		if (end == o->list[i] || *end || v < 0) {
			/* sysbench's message */
			snprintf(err, (size_t)errlen, "Invalid value for --report-checkpoints: '%s'", o->list[i]);
			return -1;
		}
		if (c->ncheckpoints == LB_MAX_CHECKPOINTS) {
			snprintf(err, (size_t)errlen, "too many report checkpoints (at most %d)",
				 LB_MAX_CHECKPOINTS);
			return -1;
		}
		c->checkpoints_ns[c->ncheckpoints++] = (int64_t)(v * LB_NS_PER_S);
	}
	qsort(c->checkpoints_ns, (size_t)c->ncheckpoints, sizeof(int64_t), cmp_i64);
	return 0;
}

static int parse_rand(struct lb_config *c, const struct lb_opts *o, char *err, int errlen)
{
	static const char *const names[] = { "uniform", "gaussian", "special", "pareto", "zipfian" };
	const char *t = lb_opts_str(o, "rand-type");
	size_t i;
	for (i = 0; i < LB_ARRAY_LENGTH(names); i++)
		if (!strcmp(t, names[i]))
			break;
	if (i == LB_ARRAY_LENGTH(names)) {
		snprintf(err, (size_t)errlen,
			 "Invalid random numbers distribution: %s.\nexpected uniform, gaussian, special, pareto or zipfian", t);
		return -1;
	}
	c->rand.type = (enum lb_rand_type)i;
	c->rand.spec_iter = (int)lb_opts_int(o, "rand-spec-iter");
	c->rand.spec_pct = lb_opts_double(o, "rand-spec-pct");
	c->rand.spec_res = lb_opts_double(o, "rand-spec-res");
	c->rand.pareto_h = lb_opts_double(o, "rand-pareto-h");
	c->rand.zipf_exp = lb_opts_double(o, "rand-zipfian-exp");
	if (c->rand.pareto_h <= 0 || c->rand.pareto_h >= 1) {
		snprintf(err, (size_t)errlen, "--rand-pareto-h must be between 0 and 1 (exclusive)");
		return -1;
	}
	int64_t seed = lb_opts_int(o, "rand-seed");
	c->seed_from_time = seed == 0;
	c->rand.seed = seed ? (uint64_t)seed : (uint64_t)lb_wall_ns();
	return 0;
}

static int check_range(const char *name, int64_t v, int64_t lo, int64_t hi, char *err, int errlen)
{
	if (v >= lo && v <= hi)
		return 0;
	snprintf(err, (size_t)errlen, "Invalid value for the '%s' option: '%lld' (expected %lld..%lld)",
		 name, (long long)v, (long long)lo, (long long)hi);
	return -1;
}

/* --start-at and --instance: processes started by an orchestrator on several machines run one
 * benchmark together; `luabench merge` combines their results. */
static int parse_distributed(struct lb_config *c, const struct lb_opts *o, char *err, int errlen)
{
	const char *s = lb_opts_str(o, "start-at");
	if (*s) {
		char *end;
		double t = strtod(s, &end);
		if (end == s || *end || !isfinite(t) || t <= 0) {
			snprintf(err, (size_t)errlen,
				 "Invalid value for the 'start-at' option: '%s' (expected seconds since the epoch, e.g. $(($(date +%%s) + 10)))", s);
			return -1;
		}
		double late = (double)lb_wall_ns() / 1e9 - t;
		if (late > LB_START_AT_TOLERANCE_S) {
			snprintf(err, (size_t)errlen, "--start-at=%s is %.1f seconds in the past: give a time in the future", s, late);
			return -1;
		}
		c->start_at = t;
	}
	const char *in = lb_opts_str(o, "instance");
	c->instance = 0;
	c->instances = 1;
	if (*in) {
		int i, n, len = 0;
		if (sscanf(in, "%d/%d%n", &i, &n, &len) != 2 || in[len] || n < 1 || i < 0 || i >= n) {
			snprintf(err, (size_t)errlen,
				 "Invalid value for the 'instance' option: '%s' (expected i/n with 0 <= i < n, e.g. 0/4)", in);
			return -1;
		}
		c->instance = i;
		c->instances = n;
		/* Instances given the same --rand-seed must still draw different numbers. */
		if (!c->seed_from_time)
			c->rand.seed += (uint64_t)i;
	}
	return 0;
}

static int parse_format(struct lb_config *c, const char *f, char *err, int errlen)
{
	if (!strcmp(f, "text"))
		c->format = LB_FORMAT_TEXT;
	else if (!strcmp(f, "json"))
		c->format = LB_FORMAT_JSON;
	else if (!strcmp(f, "csv"))
		c->format = LB_FORMAT_CSV;
	else {
		snprintf(err, (size_t)errlen, "Invalid value for the 'format' option: '%s' (expected text, json or csv)", f);
		return -1;
	}
	return 0;
}

static int parse_ramp(struct lb_config *c, const char *s, char *err, int errlen)
{
	if (!*s)
		return 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0)
		goto bad;
	if (!strcmp(end, "/min") || !strcmp(end, "/s")) {
		if (v <= 0)
			goto bad;
		c->ramp_rate_per_ns = v / (end[1] == 'm' ? 60e9 : 1e9);
		c->ramp_up_ns = (int64_t)((double)c->users / c->ramp_rate_per_ns);
		return 0;
	}
	if (*end && strcmp(end, "s"))
		goto bad;
	c->ramp_up_ns = (int64_t)(v * 1e9);
	return 0;
bad:
	snprintf(err, (size_t)errlen,
		 "Invalid value for the 'ramp-up' option: '%s' (expected seconds, or users per minute as N/min)", s);
	return -1;
}

static int parse_users(struct lb_config *c, const struct lb_opts *o, char *err, int errlen)
{
	int64_t users = lb_opts_int(o, "users"), conns = lb_opts_int(o, "connections");
	if (check_range("users", users, 0, 10000000, err, errlen) < 0 ||
	    check_range("connections", conns, 0, 1000000, err, errlen) < 0)
		return -1;
	c->users = (int)users;
	c->connections = (int)conns;
	if (!users && (conns || *lb_opts_str(o, "ramp-up"))) {
		snprintf(err, (size_t)errlen, "--connections and --ramp-up apply to emulated users: give --users too");
		return -1;
	}
	if (!users)
		return 0;
	if (users < c->threads) {
		snprintf(err, (size_t)errlen, "--users=%lld is less than --threads=%d: every thread needs at least one user",
			 (long long)users, c->threads);
		return -1;
	}
	if (c->rate > 0) {
		snprintf(err, (size_t)errlen, "--rate cannot be combined with --users (emulated users pace themselves with think times)");
		return -1;
	}
	if (!c->connections || c->connections > c->users)
		c->connections = c->users;
	if (c->connections < c->threads)
		c->connections = c->threads; /* every worker needs one connection to borrow */
	if (parse_ramp(c, lb_opts_str(o, "ramp-up"), err, errlen) < 0)
		return -1;
	/* Statistics start once every user is running. */
	if (c->ramp_up_ns > c->warmup_ns)
		c->warmup_ns = c->ramp_up_ns;
	return 0;
}

int lb_config_read(struct lb_config *c, const struct lb_opts *o, char *err, int errlen)
{
	memset(c, 0, sizeof(*c));
	int64_t threads = lb_opts_int(o, "threads"), t = lb_opts_int(o, "time");
	int64_t events = lb_opts_int(o, "events"), warm = lb_opts_int(o, "warmup-time");
	int64_t ri = lb_opts_int(o, "report-interval"), tit = lb_opts_int(o, "thread-init-timeout");
	if (threads == 0) {
		/* sysbench's, with the empty line its log leaves after it */
		snprintf(err, (size_t)errlen, "Invalid value for --threads: 0.\n\n");
		return -1;
	}
	if (check_range("threads", threads, 1, 100000, err, errlen) < 0 ||
	    check_range("time", t, 0, INT32_MAX, err, errlen) < 0 ||
	    check_range("events", events, 0, INT64_MAX, err, errlen) < 0 ||
	    check_range("warmup-time", warm, 0, INT32_MAX, err, errlen) < 0 ||
	    check_range("report-interval", ri, 0, INT32_MAX, err, errlen) < 0 ||
	    check_range("thread-init-timeout", tit, 1, INT32_MAX, err, errlen) < 0)
		return -1;
	c->threads = (int)threads;
	c->time_ns = t * LB_NS_PER_S;
	c->events = (uint64_t)events;
	c->warmup_ns = warm * LB_NS_PER_S;
	c->report_interval_ns = ri * LB_NS_PER_S;
	c->thread_init_timeout_ns = tit * LB_NS_PER_S;
	c->thread_stack_bytes = (uint64_t)lb_opts_int(o, "thread-stack-size");
	if (!c->thread_stack_bytes) {
		snprintf(err, (size_t)errlen, "Invalid value for thread-stack-size: 0.\n\n"); /* sysbench's */
		return -1;
	}
	double grace = lb_opts_double(o, "end-grace");
	if (grace < 0 || grace > 86400 || !isfinite(grace)) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'end-grace' option: '%s' (expected seconds, 0..86400)",
			 lb_opts_str(o, "end-grace"));
		return -1;
	}
	c->end_grace_ns = (int64_t)(grace * 1e9);
	c->rate = lb_opts_double(o, "rate");
	if (c->rate < 0 || !isfinite(c->rate)) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'rate' option: '%s'", lb_opts_str(o, "rate"));
		return -1;
	}
	const char *arrival = lb_opts_str(o, "rate-arrival");
	if (strcmp(arrival, "poisson") && strcmp(arrival, "constant")) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'rate-arrival' option: '%s' (expected poisson or constant)", arrival);
		return -1;
	}
	c->rate_constant = !strcmp(arrival, "constant");
	c->histogram = lb_opts_bool(o, "histogram");
	c->report_statements = lb_opts_bool(o, "report-statements");
	c->report_metrics = lb_opts_bool(o, "report-metrics");
	c->debug = lb_opts_bool(o, "debug");
	c->validate = lb_opts_bool(o, "validate");
	const char *out = lb_opts_str(o, "output");
	c->output_path = *out ? out : NULL;
	int rc = parse_percentiles(c, lb_opts_str(o, "percentile"), err, errlen);
	if (rc < 0)
		return rc;
	if (parse_forced_shutdown(c, lb_opts_str(o, "forced-shutdown"), err, errlen) < 0 ||
	    parse_checkpoints(c, lb_opts_find(o, "report-checkpoints"), err, errlen) < 0 ||
	    parse_rand(c, o, err, errlen) < 0 || parse_format(c, lb_opts_str(o, "format"), err, errlen) < 0 ||
	    parse_distributed(c, o, err, errlen) < 0 || lb_place_configure(o, &c->place, err, errlen) < 0)
		return -1;
	if (c->histogram && !c->npercentiles) {
		snprintf(err, (size_t)errlen, "--histogram cannot be used with --percentile=0");
		return -1;
	}
	return parse_users(c, o, err, errlen);
}
