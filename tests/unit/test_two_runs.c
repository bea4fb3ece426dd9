/* Two engines, one after the other, in one process: each run's result must be its own. Run
 * state that outlived a run (a process-wide registry of type names, shared objects, the
 * unique() sequence, the SQL configuration cache, file I/O statistics) would show up in the
 * second result.
 *
 * The runs are real ones: the Lua host, worker threads, the null SQL driver, a sink that keeps
 * what the engine hands over. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "engine/dbopts.h"
#include "bind/vm.h"
#include "engine/engine.h"
#include "util/log.h"
#include "util/opt.h"

struct captured {
	uint64_t events;
	int ntypes;
	char type0[LB_TYPE_NAME_BYTES];
	uint64_t type0_done;
	bool sql;
	int windows, failures;
	char status[32];
};

static int on_header(void *ctx, const struct lb_config *c) { return 0; }
static int on_started(void *ctx, const struct lb_config *c, const struct lb_types *t,
		      const struct lb_metric_defs *m, bool server_stats, char *err, size_t errlen) { return 0; }
static void on_attach(void *ctx, struct lb_vm *control, struct lb_vm *reporter) {}
static int on_interval(void *ctx, const struct lb_result *r) { return 0; }

static int on_window(void *ctx, const struct lb_result *r)
{
	struct captured *k = ctx;
	k->windows++;
	k->events = r->st.cnt[LB_CNT_EVENT];
	k->ntypes = r->types->n;
	snprintf(k->type0, sizeof(k->type0), "%s", lb_types_name(r->types, 0));
	k->type0_done = r->snap->types[0] ? r->snap->types[0]->cnt[LB_TCNT_DONE] : 0;
	k->sql = r->sql;
	snprintf(k->status, sizeof(k->status), "%s", r->status);
	return 0;
}

static void on_failed(void *ctx, const struct lb_result *r)
{
	((struct captured *)ctx)->failures++;
}

static const struct lb_run_sink capture_sink = {
	.attach = on_attach, .header = on_header, .started = on_started, .interval = on_interval,
	.window = on_window, .failed = on_failed,
};

/* The script prints what the checks need from inside the run: the first unique() value, how
 * many times a shared counter had been bumped before this run, and what the file I/O report
 * counts: reads submitted through a queue (one per event), the threads with queues, and the
 * wall time its CPU figures cover against the window's. */
static const char *script_text =
	"local ffi, lio = require('ffi'), luabench.io\n"
	"local T = luabench.stats.type(os.getenv('LB_TYPE'))\n"
	"function thread_init()\n"
	"  counter = luabench.shared('counter', 'uint64_t', 1)\n"
	"  con = sysbench.sql.driver('null'):connect()\n"
	"  q = lio.queue({ engine = 'null', depth = 1 })\n"
	"  file = lio.open(os.getenv('LB_OUT'))\n"
	"  buf = lio.buffer(4096)\n"
	"end\n"
	"function event()\n"
	"  local t0 = T:start()\n"
	"  luabench.atomic_add(counter, 1)\n"
	"  con:query('SELECT 1')\n"
	"  q:read(file, buf, 16, 0, false)\n"
	"  q:reap(1)\n"
	"  T:done(t0)\n"
	"end\n"
	"function done()\n"
	"  local r = ffi.C.lb_fio_report_new(sysbench.worker)\n"
	"  local lat, win = ffi.new('struct lb_fio_lat'), ffi.new('struct lb_fio_window')\n"
	"  ffi.C.lb_fio_report_part(r, 0, 0, nil, 0, lat)\n"
	"  ffi.C.lb_fio_report_window(r, win)\n"
	"  ffi.C.lb_fio_report_free(r)\n"
	"  local f = io.open(os.getenv('LB_OUT'), 'w')\n"
	"  f:write(tostring(sysbench.rand.unique()), ' ', tonumber(luabench.atomic_load(luabench.shared('counter', 'uint64_t', 1))),\n"
	"    ' ', tonumber(lat.count), ' ', tonumber(win.depth_threads), ' ', win.cpu_wall_s, ' ', win.elapsed_s)\n"
	"  f:close()\n"
	"end\n";

static char script_path[] = "/tmp/lb-two-runs-XXXXXX.lua";
static char out_path[] = "/tmp/lb-two-runs-out-XXXXXX";

/* One run of the script as `luabench <script> --events=N --threads=2 --rand-seed=7 run`. */
static int run_once(const char *type, int events, struct captured *k, char *done_line, size_t len)
{
	setenv("LB_TYPE", type, 1);
	setenv("LB_OUT", out_path, 1);
	char err[4096];
	struct lb_opts opts;
	lb_opts_init(&opts);
	char ev[32];
	snprintf(ev, sizeof(ev), "events=%d", events);
	const char *args[] = { ev, "threads=2", "time=0", "rand-seed=7", "system-stats=off" };
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		lb_opts_push(&opts, args[i], "command line");
	struct lb_config cfg;
	if (lb_config_register_options(&opts, err, sizeof(err)) < 0 ||
	    lb_dbopts_register(&opts, err, sizeof(err)) < 0 ||
	    lb_sysmon_register_options(&opts, err, sizeof(err)) < 0 ||
	    lb_config_read(&cfg, &opts, err, sizeof(err)) < 0 ||
	    lb_sysmon_configure(&opts, &cfg.sys, err, sizeof(err)) < 0) {
		diag("options: %s", err);
		return -1;
	}
	struct lb_engine *e = calloc(1, sizeof(*e));
	struct lb_script *script = NULL;
	int rc = lb_script_load(script_path, &script, err, sizeof(err));
	if (rc == 0) {
		struct lb_session s = { .cfg = cfg, .opts = &opts, .script = script, .workload = script->name };
		lb_engine_init(e, &s, &lb_lua_host);
		e->sink = &capture_sink;
		e->sink_ctx = k;
		rc = lb_engine_open_control(e, err, sizeof(err)) == 0 ? lb_engine_run(e) : -1;
	}
	if (rc)
		diag("run: rc %d %s", rc, err);
	if (script)
		lb_engine_fini(e);
	free(e);
	lb_script_free(script);
	lb_opts_fini(&opts);
	FILE *f = fopen(out_path, "r");
	done_line[0] = '\0';
	if (f) {
		if (!fgets(done_line, (int)len, f))
			done_line[0] = '\0';
		fclose(f);
	}
	return rc;
}

int main(void)
{
	lb_log_set_verbosity(LB_LOG_ALERT);
	int fd = mkstemps(script_path, 4);
	if (fd < 0 || write(fd, script_text, strlen(script_text)) != (ssize_t)strlen(script_text)) {
		printf("Bail out! cannot write the test script\n");
		return 1;
	}
	close(fd);
	fd = mkstemp(out_path);
	close(fd);

	struct captured a = { 0 }, b = { 0 };
	char done_a[128], done_b[128];
	ok(run_once("alpha", 1000, &a, done_a, sizeof(done_a)) == 0, "first run succeeds");
	usleep(300 * 1000); /* a CPU reading left from the first run would cover this pause */
	ok(run_once("beta", 500, &b, done_b, sizeof(done_b)) == 0, "second run succeeds");

	ok(a.windows == 1 && b.windows == 1 && !a.failures && !b.failures, "one final result each");
	ok(!strcmp(a.status, "ok") && !strcmp(b.status, "ok"), "both ok (%s, %s)", a.status, b.status);
	ok(a.events == 1000, "first run: 1000 events (%llu)", (unsigned long long)a.events);
	ok(b.events == 500, "second run: 500 events (%llu)", (unsigned long long)b.events);
	ok(a.ntypes == 1 && !strcmp(a.type0, "alpha"), "first run: one type, alpha (%d, %s)", a.ntypes, a.type0);
	ok(b.ntypes == 1 && !strcmp(b.type0, "beta"), "second run: one type, beta, with id 0 (%d, %s)", b.ntypes,
	   b.type0);
	ok(a.type0_done == 1000 && b.type0_done == 500, "per-type counts are the runs' own (%llu, %llu)",
	   (unsigned long long)a.type0_done, (unsigned long long)b.type0_done);
	ok(a.sql && b.sql, "both runs used a SQL driver");

	unsigned long long ua = 0, ub = 0, ca = 0, cb = 0, ra = 0, rb = 0, qa = 0, qb = 0;
	double cpu_wall_s = 0, elapsed_s = 0, unused;
	ok(sscanf(done_a, "%llu %llu %llu %llu %lf %lf", &ua, &ca, &ra, &qa, &unused, &unused) == 6 &&
	   sscanf(done_b, "%llu %llu %llu %llu %lf %lf", &ub, &cb, &rb, &qb, &cpu_wall_s, &elapsed_s) == 6,
	   "done() wrote its line both times ('%s', '%s')", done_a, done_b);
	ok(ra == 1000 && rb == 500, "file I/O: each run's report counts its own reads (%llu, %llu)", ra, rb);
	/* A fast thread may take every event before the other submits (then it never publishes). */
	ok(qa >= 1 && qa <= 2 && qb >= 1 && qb <= 2,
	   "file I/O: each run's report counts only its own threads' queues (%llu, %llu)", qa, qb);
	ok(cpu_wall_s > 0 && cpu_wall_s <= elapsed_s + 0.1,
	   "file I/O: the second run's CPU figures cover its own window (%.3f s of %.3f s)", cpu_wall_s, elapsed_s);
	ok(ca == 1000, "first run's shared counter counted its 1000 events (%llu)", ca);
	ok(cb == 500, "second run's shared counter starts from zero (%llu)", cb);
	ok(ua == ub, "unique() starts its sequence again for the same seed (%llu, %llu)", ua, ub);
	unlink(script_path);
	unlink(out_path);
	return done_testing();
}
