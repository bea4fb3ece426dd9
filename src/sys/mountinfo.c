#include "sys/mountinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mountinfo escapes blanks and backslashes in paths as octal ("\040"). */
static void unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
		    r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Whether mount point mp holds path: equal, "/" or a prefix ending at a '/'. */
static bool holds(const char *mp, const char *path)
{
	size_t n = strlen(mp);
	if (!strcmp(mp, "/"))
		return path[0] == '/';
	return !strncmp(mp, path, n) && (path[n] == '\0' || path[n] == '/');
}

/* Appends the comma-separated options of `add` not in out yet. */
static void add_options(char *out, size_t len, const char *add)
{
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", add);
	char *save = NULL;
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(o), at = strlen(out);
		bool seen = false;
		for (const char *p = out; *p && !seen; p += strcspn(p, ","), p += *p == ',') {
			seen = strcspn(p, ",") == n && !strncmp(p, o, n);
		}
		if (!seen && at + n + 2 < len)
			snprintf(out + at, len - at, "%s%s", at ? "," : "", o);
	}
}

/* One line: "36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw,errors=continue". */
static bool parse_line(char *line, unsigned *ma, unsigned *mi, struct lb_mount *m)
{
	char *f[6], *save = NULL, *tok;
	int n = 0;
	while (n < 6 && (tok = strtok_r(n ? NULL : line, " ", &save)))
		f[n++] = tok;
	if (n < 6 || sscanf(f[2], "%u:%u", ma, mi) != 2)
		return false;
	char *t;
	while ((t = strtok_r(NULL, " ", &save)) && strcmp(t, "-"))
		; /* optional fields */
	char *type = strtok_r(NULL, " ", &save), *source = strtok_r(NULL, " ", &save);
	char *super = strtok_r(NULL, " ", &save);
	if (!t || !type)
		return false;
	memset(m, 0, sizeof(*m));
	unescape(f[4]);
	snprintf(m->point, sizeof(m->point), "%s", f[4]);
	snprintf(m->fs_type, sizeof(m->fs_type), "%s", type);
	if (source) {
		unescape(source);
		snprintf(m->source, sizeof(m->source), "%s", source);
	}
	add_options(m->options, sizeof(m->options), f[5]);
	if (super)
		add_options(m->options, sizeof(m->options), super);
	return true;
}

bool lb_mountinfo_find(const char *text, unsigned major, unsigned minor, const char *path,
		       struct lb_mount *out)
{
	bool found = false;
	size_t best = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char line[2048];
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		struct lb_mount m;
		unsigned ma, mi;
		if (!parse_line(line, &ma, &mi, &m) || ma != major || mi != minor || !holds(m.point, path))
			continue;
		/* The longest holding mount point; a later mount over the same point hides the earlier. */
		size_t n = strlen(m.point);
		if (!found || n >= best) {
			*out = m;
			best = n;
			found = true;
		}
	}
	return found;
}

static bool has_option(const char *options, const char *o)
{
	size_t n = strlen(o);
	for (const char *p = options; *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, o, n))
			return true;
	return false;
}

bool lb_mountinfo_find_type(const char *text, const char *fs_type, const char *option, struct lb_mount *out)
{
	size_t tn = strlen(fs_type);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		/* The type follows " - ": most lines are skipped without being parsed. */
		size_t len = strcspn(l, "\n");
		const char *dash = strstr(l, " - ");
		if (!dash || dash >= l + len || strncmp(dash + 3, fs_type, tn) || dash[3 + tn] != ' ')
			continue;
		char line[2048];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		unsigned ma, mi;
		if (parse_line(line, &ma, &mi, out) && !strcmp(out->fs_type, fs_type) &&
		    (!option || has_option(out->options, option)))
			return true;
	}
	return false;
}
