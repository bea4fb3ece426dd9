#include "util/opt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/secret.h"
#include "util/util.h"

void lb_opts_init(struct lb_opts *o)
{
	memset(o, 0, sizeof(*o));
}

static void free_list(struct lb_opt *opt)
{
	for (int i = 0; i < opt->nlist; i++)
		free(opt->list[i]);
	free(opt->list);
	opt->list = NULL;
	opt->nlist = 0;
}

void lb_opts_fini(struct lb_opts *o)
{
	for (int i = 0; i < o->n; i++) {
		struct lb_opt *opt = o->v[i];
		free(opt->name);
		free(opt->desc);
		free(opt->group);
		free(opt->def);
		free(opt->value);
		free_list(opt);
		free(opt);
	}
	free(o->v);
	for (int i = 0; i < o->npending; i++) {
		free(o->pending[i].name);
		free(o->pending[i].value);
		free(o->pending[i].origin);
	}
	free(o->pending);
	memset(o, 0, sizeof(*o));
}

static void push_pending(struct lb_opts *o, const char *name, size_t namelen, const char *value,
			 const char *origin)
{
	if (o->npending == o->cappending) {
		o->cappending = o->cappending ? o->cappending * 2 : 16;
		o->pending = lb_xrealloc(o->pending, (size_t)o->cappending * sizeof(*o->pending));
	}
	struct lb_pending *p = &o->pending[o->npending++];
	p->name = lb_xstrndup(name, namelen);
	p->value = value ? lb_xstrdup(value) : NULL;
	p->origin = lb_xstrdup(origin);
	p->used = false;
}

void lb_opts_push(struct lb_opts *o, const char *arg, const char *origin)
{
	const char *eq = strchr(arg, '=');
	if (eq)
		push_pending(o, arg, (size_t)(eq - arg), eq + 1, origin);
	else
		push_pending(o, arg, strlen(arg), NULL, origin);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static char *unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] >> 5) == 0x6 ? 2 : (s[0] >> 4) == 0xe ? 3 : (s[0] >> 3) == 0x1e ? 4 : 0;
	if (!len || len > n || (len == 2 && s[0] < 0xc2))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* A config line must be text: UTF-8 without control characters (tabs aside). Binary junk is
 * refused before any work starts instead of being read as some option. */
static int check_text(const char *line, size_t n, const char *origin, char *err, int errlen)
{
	const unsigned char *s = (const unsigned char *)line;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(s + i, n - i);
		if (!len || (s[i] < 0x20 && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') || s[i] == 0x7f) {
			snprintf(err, (size_t)errlen, "%s: not a text line (byte 0x%02x at column %zu); "
				 "a config file holds name=value lines", origin, s[i], i + 1);
			return -1;
		}
		i += len;
	}
	return 0;
}

static bool option_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

static int read_line(struct lb_opts *o, char *line, size_t n, const char *origin, char *err, int errlen)
{
	if (check_text(line, n, origin, err, errlen) < 0)
		return -1;
	char *s = trim(line);
	if (*s == '#' || *s == '\0')
		return 0;
	char *hash = strstr(s, " #");
	if (hash)
		*hash = '\0';
	/* Lines may be written "name=value", "--name=value" or "name = value". */
	while (*s == '-')
		s++;
	char *eq = strchr(s, '=');
	if (eq)
		*eq = '\0';
	char *name = trim(s);
	if (!option_name(name)) {
		snprintf(err, (size_t)errlen, "%s: '%s' is not an option name (expected name=value)", origin, name);
		return -1;
	}
	push_pending(o, name, strlen(name), eq ? unquote(trim(eq + 1)) : NULL, origin);
	return 0;
}

int lb_opts_read_file(struct lb_opts *o, const char *path, char *err, int errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, (size_t)errlen, "cannot read config file '%s': %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, rc = 0;
	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		char *origin = lb_xasprintf("%s:%d", path, ++lineno);
		rc = read_line(o, line, (size_t)n, origin, err, errlen);
		free(origin);
	}
	free(line);
	fclose(f);
	return rc;
}

struct lb_opt *lb_opts_find(const struct lb_opts *o, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (lb_name_eq(o->v[i]->name, name))
			return o->v[i];
	return NULL;
}

int lb_parse_size(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	int64_t mult = 1;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'K':
		mult = 1LL << 10;
		break;
	case 'M':
		mult = 1LL << 20;
		break;
	case 'G':
		mult = 1LL << 30;
		break;
	case 'T':
		mult = 1LL << 40;
		break;
	default:
		return -1;
	}
	if (*end) {
		end++;
		/* Accept "K", "KB" and "KiB" alike. */
		if (*end == 'i')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (*end)
		return -1;
	*out = (int64_t)(v * (double)mult);
	return 0;
}

int lb_opt_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "on", "true", "yes", "1" };
	static const char *const no[] = { "off", "false", "no", "0" };
	for (size_t i = 0; i < LB_ARRAY_LENGTH(yes); i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static void split_list(struct lb_opt *opt, const char *v)
{
	free_list(opt);
	if (!*v)
		return;
	for (const char *s = v;;) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		opt->list = lb_xrealloc(opt->list, (size_t)(opt->nlist + 1) * sizeof(char *));
		opt->list[opt->nlist++] = lb_xstrndup(s, n);
		if (!c)
			break;
		s = c + 1;
	}
}

static int parse_value(struct lb_opt *opt, const char *v)
{
	char *end;
	switch (opt->type) {
	case LB_OPT_BOOL:
		return lb_opt_parse_bool(v, &opt->b);
	case LB_OPT_INT:
		errno = 0;
		opt->i = strtoll(v, &end, 10);
		return (end == v || *end || errno) ? -1 : 0;
	case LB_OPT_SIZE:
		return lb_parse_size(v, &opt->i);
	case LB_OPT_DOUBLE:
		errno = 0;
		opt->d = strtod(v, &end);
		return (end == v || *end || errno) ? -1 : 0;
	case LB_OPT_LIST:
		split_list(opt, v);
		return 0;
	default:
		return 0;
	}
}

/* sysbench's reading of a size: leading digits, then K/M/G/T (any case) or nothing; anything
 * else is 0. */
static int64_t sysbench_size(const char *v)
{
	uint64_t n = 0; /* wraps as sysbench's unsigned long long does */
	const char *c = v;
	for (; *c >= '0' && *c <= '9'; c++)
		n = n * 10 + (uint64_t)(*c - '0');
	if (c == v || !*c)
		return (int64_t)(n & INT64_MAX);
	const char *mods = "KMGT", *m = strchr(mods, toupper((unsigned char)*c));
	if (!m || !*m)
		return 0;
	for (const char *k = mods; k <= m; k++)
		n *= 1024;
	return (int64_t)(n & INT64_MAX);
}

/* The value sysbench's C tests read where ours does not parse; false where sysbench refuses
 * it too (an integer that is not one). */
static bool sysbench_coerce(struct lb_opt *opt, const char *v)
{
	switch (opt->type) {
	case LB_OPT_INT:
		if (*v)
			return false;
		opt->i = 0;
		return true;
	case LB_OPT_SIZE:
		opt->i = sysbench_size(v);
		return true;
	case LB_OPT_DOUBLE:
		opt->d = strtod(v, NULL);
		return true;
	default:
		return false;
	}
}

int lb_opt_set(struct lb_opt *opt, const char *value, char *err, int errlen)
{
	if (!value) {
		if (opt->type == LB_OPT_BOOL)
			value = "on";
		else {
			snprintf(err, (size_t)errlen, "option '--%s' requires a value", opt->name);
			return -1;
		}
	}
	struct lb_opt probe = *opt;
	probe.list = NULL;
	probe.nlist = 0;
	int rc = parse_value(&probe, value);
	probe.coerced = rc < 0 && opt->sysbench_values && sysbench_coerce(&probe, value);
	if (rc < 0 && !probe.coerced) {
		free_list(&probe);
		/* sysbench names the option as it stores it, with '_' for '-'. */
		int n = snprintf(err, (size_t)errlen, "Invalid value for the '");
		for (const char *c = opt->name; *c && n < errlen - 1; c++)
			err[n++] = *c == '-' && !opt->declared_name ? '_' : *c;
		err[n] = '\0';
		/* (luabench's line shows control characters as escapes: one line, whatever was given) */
		char *shown = opt->declared_name && !opt->secret ? lb_escape(value, strlen(value)) : NULL;
		snprintf(err + n, (size_t)(errlen - n), "' option: '%s'", opt->secret ? "***" : shown ? shown : value);
		free(shown);
		return -1;
	}
	char *copy = lb_xstrdup(value); /* value may be opt->value itself */
	free_list(opt);
	free(opt->value);
	*opt = probe;
	opt->value = copy;
	return 0;
}

static bool is_secret_name(const char *name)
{
	return lb_secret_option(name, strlen(name)) || lb_secret_conn_string_option(name, strlen(name));
}

static bool bool_or_word(const struct lb_opt *opt, const char *v)
{
	bool b;
	if (lb_opt_parse_bool(v, &b) == 0)
		return true;
	for (const char *const *w = opt->words; w && *w; w++)
		if (!strcasecmp(v, *w))
			return true;
	return false;
}

static int apply_pending(struct lb_opts *o, struct lb_opt *opt, char *err, int errlen)
{
	for (int i = 0; i < o->npending; i++) {
		struct lb_pending *p = &o->pending[i];
		if (!lb_name_eq(p->name, opt->name))
			continue;
		p->used = true;
		if ((opt->type == LB_OPT_BOOL || opt->words) && p->value && !bool_or_word(opt, p->value)) {
			/* sysbench refuses a boolean's value as it refuses an unknown option, naming
			 * the argument as given. */
			snprintf(err, (size_t)errlen, "invalid option: --%s=%s", p->name,
				 opt->secret ? "***" : p->value);
			return -1;
		}
		/* a bare --name turns a boolean on, words or not */
		if (lb_opt_set(opt, p->value || !opt->words ? p->value : "on", err, errlen) < 0)
			return -1;
		opt->given = true;
	}
	return 0;
}

static struct lb_opt *add_opt(struct lb_opts *o, const char *name, enum lb_opt_type type,
			      const char *def, const char *desc, const char *group,
			      const char *const *words, char *err, int errlen)
{
	struct lb_opt *opt = lb_opts_find(o, name);
	if (!opt) {
		opt = lb_xzalloc(sizeof(*opt));
		opt->name = lb_xstrdup(name);
		opt->desc = lb_xstrdup(desc ? desc : "");
		opt->group = lb_xstrdup(group ? group : "");
		opt->def = def ? lb_xstrdup(def) : NULL;
		opt->type = type;
		opt->secret = is_secret_name(name);
		opt->sysbench_values = o->sysbench_values;
		opt->declared_name = o->declared_names;
		opt->words = words;
		if (o->n == o->cap) {
			o->cap = o->cap ? o->cap * 2 : 64;
			o->v = lb_xrealloc(o->v, (size_t)o->cap * sizeof(*o->v));
		}
		o->v[o->n++] = opt;
		if (def && lb_opt_set(opt, def, err, errlen) < 0)
			return NULL;
		if (!def && type == LB_OPT_LIST)
			opt->nlist = 0;
	}
	if (apply_pending(o, opt, err, errlen) < 0)
		return NULL;
	return opt;
}

struct lb_opt *lb_opts_add(struct lb_opts *o, const char *name, enum lb_opt_type type,
			   const char *def, const char *desc, const char *group, char *err, int errlen)
{
	return add_opt(o, name, type, def, desc, group, NULL, err, errlen);
}

const char *lb_opts_value(const struct lb_opts *o, const char *name, const char *env_fallback)
{
	const struct lb_opt *opt = lb_opts_find(o, name);
	if (!opt || !opt->value || !*opt->value)
		return NULL;
	if (env_fallback && !opt->given && getenv(env_fallback))
		return NULL;
	return opt->value;
}

int lb_opts_add_defs(struct lb_opts *o, const struct lb_opt_def *defs, size_t n, const char *group,
		     char *err, int errlen)
{
	for (size_t i = 0; i < n; i++)
		if (!add_opt(o, defs[i].name, defs[i].type, defs[i].def, defs[i].desc, group, defs[i].words,
			     err, errlen))
			return -1;
	return 0;
}

struct lb_pending *lb_opts_first_unused(struct lb_opts *o)
{
	for (int i = 0; i < o->npending; i++)
		if (!o->pending[i].used)
			return &o->pending[i];
	return NULL;
}

const struct lb_pending *lb_opts_pending(const struct lb_opts *o, const char *name)
{
	for (int i = o->npending - 1; i >= 0; i--)
		if (lb_name_eq(o->pending[i].name, name))
			return &o->pending[i];
	return NULL;
}

static bool is_sep(char c)
{
	return c == '-' || c == '_';
}

/* Whether hay holds needle as whole words ('port' in 'redis-port', 'think' in 'think-time'),
 * '-' and '_' alike. */
static bool holds_words(const char *hay, const char *needle)
{
	size_t lh = strlen(hay), ln = strlen(needle);
	for (size_t i = 0; ln && i + ln <= lh; i++)
		if ((i == 0 || is_sep(hay[i - 1])) && (i + ln == lh || is_sep(hay[i + ln])) &&
		    lb_name_eqn(hay + i, needle, ln))
			return true;
	return false;
}

/* The option whose name holds the given one's words or is held by it, the longest shared part
 * first ('think-time': 'think' over 'time'); NULL when none, or when two tie. */
static const char *word_match(const struct lb_opts *o, const char *name)
{
	const char *found = NULL;
	size_t found_len = 0;
	bool tie = false;
	for (int i = 0; i < o->n; i++) {
		const char *cand = o->v[i]->name;
		size_t shared = strlen(strlen(cand) < strlen(name) ? cand : name);
		if (shared < 3 || !(holds_words(cand, name) || holds_words(name, cand)) || shared < found_len)
			continue;
		tie = shared == found_len;
		found = cand;
		found_len = shared;
	}
	return tie ? NULL : found;
}

const char *lb_opts_suggest(const struct lb_opts *o, const char *name)
{
	const char *best = NULL;
	int best_d = (int)strlen(name) / 3 + 1;
	if (best_d < 2)
		best_d = 2;
	best_d++;
	for (int i = 0; i < o->n; i++) {
		int d = lb_str_distance(name, o->v[i]->name);
		if (d < best_d) {
			best_d = d;
			best = o->v[i]->name;
		}
	}
	return best ? best : word_match(o, name);
}

static const struct lb_opt *must_find(const struct lb_opts *o, const char *name)
{
	const struct lb_opt *opt = lb_opts_find(o, name);
	if (!opt) {
		fprintf(stderr, "FATAL: internal error: option '%s' is not registered\n", name);
		abort();
	}
	return opt;
}

bool lb_opts_bool(const struct lb_opts *o, const char *name)
{
	return must_find(o, name)->b;
}

int64_t lb_opts_int(const struct lb_opts *o, const char *name)
{
	return must_find(o, name)->i;
}

double lb_opts_double(const struct lb_opts *o, const char *name)
{
	const struct lb_opt *opt = must_find(o, name);
	return opt->type == LB_OPT_DOUBLE ? opt->d : (double)opt->i;
}

const char *lb_opts_str(const struct lb_opts *o, const char *name)
{
	const struct lb_opt *opt = must_find(o, name);
	return opt->value ? opt->value : "";
}

static const char *type_hint(enum lb_opt_type t)
{
	switch (t) {
	case LB_OPT_BOOL:
		return "[=on|off]";
	case LB_OPT_INT:
	case LB_OPT_DOUBLE:
		return "=N";
	case LB_OPT_SIZE:
		return "=SIZE";
	case LB_OPT_LIST:
		return "=[LIST,...]";
	case LB_OPT_FILE:
		return "=FILENAME";
	default:
		return "=STRING";
	}
}

static bool listed(const struct lb_opt *opt, const char *group, bool extensions)
{
	return (!group || !strcmp(opt->group, group)) && (extensions || !opt->extension);
}

/* sysbench's layout: the names of a group padded to its longest, then the description and the
 * default in brackets (an empty one too: "[]"; none when the option has no default). */
void lb_opts_print_help(const struct lb_opts *o, const char *group, bool extensions, FILE *out)
{
	int width = 0;
	for (int i = 0; i < o->n; i++)
		if (listed(o->v[i], group, extensions)) {
			int w = (int)(strlen(o->v[i]->name) + strlen(type_hint(o->v[i]->type))) + 2;
			width = w > width ? w : width;
		}
	for (int i = 0; i < o->n; i++) {
		const struct lb_opt *opt = o->v[i];
		if (!listed(opt, group, extensions))
			continue;
		char left[128];
		snprintf(left, sizeof(left), "--%s%s", opt->name, type_hint(opt->type));
		fprintf(out, "  %-*s %s", width, left, opt->desc);
		if (opt->def && !(opt->secret && *opt->def))
			fprintf(out, " [%s]", opt->def);
		fputc('\n', out);
	}
}
