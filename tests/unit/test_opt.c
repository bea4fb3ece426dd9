/* Option parsing: every type, every error, config files, suggestions. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../tap.h"
#include "util/opt.h"

static char err[1024];

static struct lb_opt *add(struct lb_opts *o, const char *name, enum lb_opt_type t, const char *def)
{
	return lb_opts_add(o, name, t, def, "desc", "g", err, sizeof(err));
}

static int set(struct lb_opt *opt, const char *v)
{
	return lb_opt_set(opt, v, err, sizeof(err));
}

int main(void)
{
	struct lb_opts o;
	lb_opts_init(&o);
	struct lb_opt *b = add(&o, "flag", LB_OPT_BOOL, "off");
	ok(b && !b->b, "bool default off");
	const char *yes[] = { "on", "true", "1", "yes", "ON" }, *no[] = { "off", "false", "0", "no" };
	for (int i = 0; i < 5; i++)
		ok(set(b, yes[i]) == 0 && b->b, "bool '%s' is on", yes[i]);
	for (int i = 0; i < 4; i++)
		ok(set(b, no[i]) == 0 && !b->b, "bool '%s' is off", no[i]);
	ok(set(b, NULL) == 0 && b->b, "bare --flag is on");
	ok(set(b, "maybe") < 0, "bool rejects 'maybe'");
	is_str(err, "Invalid value for the 'flag' option: 'maybe'", "bool error text");

	struct lb_opt *i = add(&o, "count", LB_OPT_INT, "10");
	ok(i->i == 10, "int default");
	ok(set(i, "-42") == 0 && i->i == -42, "negative int");
	ok(set(i, "12abc") < 0, "int rejects trailing junk");
	ok(set(i, "") < 0, "int rejects empty");
	ok(set(i, "99999999999999999999") < 0, "int rejects overflow");
	ok(set(i, NULL) < 0, "int without value is an error");
	is_str(err, "option '--count' requires a value", "missing value text");

	struct lb_opt *s = add(&o, "size", LB_OPT_SIZE, "64K");
	ok(s->i == 65536, "size default 64K");
	struct { const char *in; long long want; } sizes[] = {
		{ "100", 100 }, { "4k", 4096 }, { "1M", 1 << 20 }, { "2G", 2LL << 30 },
		{ "1T", 1LL << 40 }, { "8KB", 8192 }, { "1MiB", 1 << 20 }, { "1.5K", 1536 },
	};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		ok(set(s, sizes[k].in) == 0 && s->i == sizes[k].want, "size '%s' = %lld", sizes[k].in, sizes[k].want);
	ok(set(s, "10X") < 0, "size rejects an unknown suffix");
	ok(set(s, "-1K") < 0, "size rejects a negative value");

	struct lb_opt *d = add(&o, "ratio", LB_OPT_DOUBLE, "1.5");
	ok(d->d == 1.5, "double default");
	ok(set(d, "1e6") == 0 && d->d == 1e6, "double 1e6");
	ok(set(d, "abc") < 0, "double rejects text");

	struct lb_opt *l = add(&o, "hosts", LB_OPT_LIST, "a,b");
	ok(l->nlist == 2, "list default has 2 items");
	ok(set(l, "x,y,z") == 0 && l->nlist == 3 && !strcmp(l->list[2], "z"), "list of 3");
	ok(set(l, "") == 0 && l->nlist == 0, "empty value clears the list");

	struct lb_opt *st = add(&o, "name", LB_OPT_STRING, NULL);
	ok(st->value == NULL, "string without default is unset");
	ok(set(st, "") == 0 && !strcmp(lb_opts_str(&o, "name"), ""), "string set to empty");

	ok(lb_opts_find(&o, "hosts") == lb_opts_find(&o, "hosts") && lb_opts_find(&o, "ho-sts") == NULL,
	   "find by name");
	struct lb_opt *dash = add(&o, "table-size", LB_OPT_INT, "5");
	ok(lb_opts_find(&o, "table_size") == dash, "'-' and '_' are the same");

	/* Pending values: registered later, consumed at registration, unknown ones remain. */
	lb_opts_push(&o, "late-opt=7", "command line");
	lb_opts_push(&o, "tabel-size=9", "command line");
	struct lb_opt *late = add(&o, "late_opt", LB_OPT_INT, "1");
	ok(late && late->i == 7 && late->given, "pending value applied at registration");
	struct lb_pending *p = lb_opts_first_unused(&o);
	ok(p && !strcmp(p->name, "tabel-size"), "unknown option stays pending");
	is_str(lb_opts_suggest(&o, "tabel-size"), "table-size", "did you mean");
	ok(lb_opts_suggest(&o, "completely-different") == NULL, "no suggestion for far names");
	/* A name that holds a declared one's words, or is held by it: the longest match, not a tie. */
	add(&o, "value-size", LB_OPT_INT, "1");
	add(&o, "think", LB_OPT_DOUBLE, "0");
	add(&o, "time", LB_OPT_INT, "0");
	add(&o, "redis-port", LB_OPT_INT, "1");
	add(&o, "mysql-port", LB_OPT_INT, "1");
	is_str(lb_opts_suggest(&o, "value"), "value-size", "did you mean: a word of a name");
	is_str(lb_opts_suggest(&o, "think-time"), "think", "did you mean: the longest name held");
	ok(lb_opts_suggest(&o, "port") == NULL, "no suggestion when two names hold it alike");

	/* A script's option names itself as declared and shows its value's control characters as
	 * escapes; one registered otherwise is named as sysbench does ('_' for '-'). */
	o.declared_names = true;
	lb_opts_push(&o, "key-size=1\r\n", "command line");
	ok(add(&o, "key-size", LB_OPT_INT, "0") == NULL, "a declared option's bad value fails");
	is_str(err, "Invalid value for the 'key-size' option: '1\\r\\n'", "named as declared, escaped");
	o.declared_names = false;
	lb_opts_push(&o, "row-size=1\t", "command line");
	ok(add(&o, "row-size", LB_OPT_INT, "0") == NULL, "a built-in option's bad value fails");
	is_str(err, "Invalid value for the 'row_size' option: '1\t'", "named as sysbench, as given");

	lb_opts_push(&o, "bad-int=zz", "command line");
	ok(add(&o, "bad-int", LB_OPT_INT, "0") == NULL, "invalid pending value fails registration");

	/* Secrets never show in error text. */
	struct lb_opt *pw = add(&o, "pgsql-password", LB_OPT_INT, "0");
	ok(pw->secret, "password options are secret");
	set(pw, "hunter2");
	ok(strstr(err, "hunter2") == NULL, "password value not echoed in errors");

	/* Config file: comments, spaces around '=', quotes, leading dashes. */
	char path[] = "/tmp/lb_opt_test_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "# comment\n threads = 4\n--rate=10\nmysql-host = \"db1,db2\" # trailing\nverbose\n");
	fclose(f);
	struct lb_opts c;
	lb_opts_init(&c);
	ok(lb_opts_read_file(&c, path, err, sizeof(err)) == 0, "config file read");
	struct lb_opt *t = lb_opts_add(&c, "threads", LB_OPT_INT, "1", "", "", err, sizeof(err));
	struct lb_opt *r = lb_opts_add(&c, "rate", LB_OPT_INT, "0", "", "", err, sizeof(err));
	struct lb_opt *h = lb_opts_add(&c, "mysql-host", LB_OPT_LIST, "", "", "", err, sizeof(err));
	struct lb_opt *v = lb_opts_add(&c, "verbose", LB_OPT_BOOL, "off", "", "", err, sizeof(err));
	ok(t->i == 4 && r->i == 10, "config values with spaces and dashes");
	ok(h->nlist == 2 && !strcmp(h->list[1], "db2"), "quoted list value, trailing comment dropped");
	ok(v->b, "bare name in a config file turns a bool on");
	ok(lb_opts_read_file(&c, "/nonexistent/x.conf", err, sizeof(err)) < 0 &&
	   strstr(err, "/nonexistent/x.conf"), "missing config file named in the error");
	unlink(path);
	lb_opts_fini(&c);

	/* A value read before its option is registered: the last one given, '-' or '_' alike. */
	struct lb_opts pend;
	lb_opts_init(&pend);
	lb_opts_push(&pend, "memory-runs=3", "file:1");
	lb_opts_push(&pend, "memory_runs=0", "command line");
	lb_opts_push(&pend, "memory-method", "command line");
	const struct lb_pending *runs = lb_opts_pending(&pend, "memory-runs");
	ok(runs && !strcmp(runs->value, "0") && !strcmp(runs->origin, "command line"), "pending: the last value given");
	ok(lb_opts_pending(&pend, "memory-method") && !lb_opts_pending(&pend, "memory-method")->value,
	   "pending: a bare option has no value");
	ok(!lb_opts_pending(&pend, "threads"), "pending: NULL when not given");
	lb_opts_fini(&pend);
	/* A string sysbench has as a boolean: its words and the table's, else sysbench's refusal. */
	static const char *const modes[] = { "required", NULL };
	const struct lb_opt_def ssl_def[] = { { "ssl", LB_OPT_STRING, "off", "", modes } };
	const char *const givens[][2] = { { "ssl=0", "0" }, { "ssl=REQUIRED", "REQUIRED" }, { "ssl", "on" } };
	for (size_t g = 0; g < sizeof(givens) / sizeof(givens[0]); g++) {
		struct lb_opts w;
		lb_opts_init(&w);
		lb_opts_push(&w, givens[g][0], "command line");
		ok(lb_opts_add_defs(&w, ssl_def, 1, "", err, sizeof(err)) == 0 &&
		   !strcmp(lb_opts_find(&w, "ssl")->value, givens[g][1]), "--%s taken as '%s'", givens[g][0],
		   givens[g][1]);
		lb_opts_fini(&w);
	}
	const char *const refused[] = { "ssl=x", "ssl=-1", "ssl=" };
	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
		struct lb_opts w;
		lb_opts_init(&w);
		lb_opts_push(&w, refused[k], "command line");
		char want[64];
		snprintf(want, sizeof(want), "invalid option: --%s", refused[k]);
		ok(lb_opts_add_defs(&w, ssl_def, 1, "", err, sizeof(err)) < 0 && !strcmp(err, want),
		   "--%s refused as sysbench refuses a boolean's value (%s)", refused[k], err);
		lb_opts_fini(&w);
	}
	lb_opts_fini(&o);
	return done_testing();
}
