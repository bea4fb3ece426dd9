/* Declarative options with sysbench 1.0.20 syntax and semantics.
 *
 * Parsing happens in two passes: every "--name[=value]" argument (and every line of a
 * --config-file) is first collected as pending; options are then registered in groups (general
 * options first, the script's own after it is loaded) and each registration consumes the pending
 * values that match it ('-' and '_' are the same character). Whatever is still pending at the end
 * is an invalid option, reported with a "did you mean" suggestion. */
#ifndef LB_UTIL_OPT_H
#define LB_UTIL_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Numbering matches sysbench.cmdline.ARG_* so scripts can pass explicit types. */
enum lb_opt_type {
	LB_OPT_NULL = 0,
	LB_OPT_BOOL = 1,
	LB_OPT_INT = 2,
	LB_OPT_SIZE = 3,
	LB_OPT_DOUBLE = 4,
	LB_OPT_STRING = 5,
	LB_OPT_LIST = 6,
	LB_OPT_FILE = 7,
	LB_OPT_MAX = 8,
};

struct lb_opt {
	char *name;
	char *desc;
	char *group;
	char *def;          /* default as text, may be NULL */
	char *value;        /* current value as text, NULL = unset */
	enum lb_opt_type type;
	bool given;         /* set on the command line or in a config file */
	bool secret;        /* never printed or written anywhere */
	bool extension;     /* luabench's, beyond what sysbench has: left out of its help */
	bool sysbench_values; /* read as sysbench's C tests read it (lb_opts.sysbench_values) */
	bool coerced;       /* value is not one of its type: it reads as sysbench reads it (0) */
	bool declared_name; /* a bad value names it as declared, not with '_' (lb_opts.declared_names) */
	/* A STRING that sysbench has as a BOOL (luabench takes more words): a boolean's value or
	 * one of these, anything else refused as sysbench refuses a boolean's value. */
	const char *const *words;
	/* Parsed values, valid after a successful set. */
	bool b;
	int64_t i;
	double d;
	char **list;
	int nlist;
};

/* A row of a static option table (general options, database options, ...). */
struct lb_opt_def {
	const char *name;
	enum lb_opt_type type;
	const char *def;
	const char *desc;
	const char *const *words; /* see lb_opt.words; NULL-terminated, NULL for none */
};

struct lb_pending {
	char *name;
	char *value;        /* NULL when given as a bare "--name" */
	char *origin;       /* "command line" or "file:line" */
	bool used;
};

struct lb_opts {
	struct lb_opt **v;
	int n, cap;
	/* Options added while this is set read a value that is not one of their type as sysbench's
	 * C tests do (an empty number, a size or a real number that does not parse: 0) and are
	 * marked coerced, so the test's own check can answer with sysbench's message first. */
	bool sysbench_values;
	/* Options added while this is set are a script's, in luabench's personality: a bad value
	 * names the option as the script declared it ('value-size'), where sysbench's line has
	 * '_' for '-'. */
	bool declared_names;
	struct lb_pending *pending;
	int npending, cappending;
};

void lb_opts_init(struct lb_opts *o);
void lb_opts_fini(struct lb_opts *o);

/* Queues an option given as "--name[=value]" text (without the dashes). */
void lb_opts_push(struct lb_opts *o, const char *arg, const char *origin);
/* Reads a config file: one "name = value" per line, '#' comments, optional quotes.
 * Returns 0 or -1 with a message in err. */
int lb_opts_read_file(struct lb_opts *o, const char *path, char *err, int errlen);

/* Registers an option and applies any pending value for it. If an option with that name already
 * exists, only its description/default are kept from the first registration.
 * Returns the option, or NULL with a message in err when a pending value is invalid. */
struct lb_opt *lb_opts_add(struct lb_opts *o, const char *name, enum lb_opt_type type,
			   const char *def, const char *desc, const char *group, char *err, int errlen);

/* Registers every option of a table in `group`. Returns 0, or -1 with a message in err. */
int lb_opts_add_defs(struct lb_opts *o, const struct lb_opt_def *defs, size_t n, const char *group,
		     char *err, int errlen);

struct lb_opt *lb_opts_find(const struct lb_opts *o, const char *name);
/* A boolean's value as text (on/off, true/false, yes/no, 1/0): 0 and *out, or -1. */
int lb_opt_parse_bool(const char *v, bool *out);
/* Sets a value from text with type checking. Returns 0 or -1 with a message in err. */
int lb_opt_set(struct lb_opt *opt, const char *value, char *err, int errlen);

/* First pending value no option consumed; NULL if none. */
struct lb_pending *lb_opts_first_unused(struct lb_opts *o);
/* The last value given for `name` (the one its registration will keep), before an option of that
 * name is registered; NULL if it was not given. */
const struct lb_pending *lb_opts_pending(const struct lb_opts *o, const char *name);
/* Closest registered name to `name` (for "did you mean"), or NULL if nothing is close. */
const char *lb_opts_suggest(const struct lb_opts *o, const char *name);

/* The value of option `name`, or NULL when it is unset or empty, or when it was not given and
 * the environment has `env_fallback` (e.g. PGHOST: the client library then reads it). */
const char *lb_opts_value(const struct lb_opts *o, const char *name, const char *env_fallback);

/* Typed accessors for registered options (by name; the option must exist). */
bool lb_opts_bool(const struct lb_opts *o, const char *name);
int64_t lb_opts_int(const struct lb_opts *o, const char *name);
double lb_opts_double(const struct lb_opts *o, const char *name);
const char *lb_opts_str(const struct lb_opts *o, const char *name);

/* Parses "10", "4K", "1G" (powers of 1024). Returns 0 or -1. */
int lb_parse_size(const char *s, int64_t *out);

/* Prints "  --name=TYPE  desc [default]" lines for one group (NULL = all groups). */
void lb_opts_print_help(const struct lb_opts *o, const char *group, bool extensions, FILE *out);

#endif
