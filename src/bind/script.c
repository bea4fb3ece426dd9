/* Finding the workload to run: a built-in name, a file, or a module on the Lua path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind/embedded.h"
#include "bind/vm.h"
#include "util/util.h"

const struct lb_embedded *lb_embedded_find(const char *name)
{
	for (const struct lb_embedded *m = lb_embedded_modules; m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

static bool is_workload(const char *name)
{
	size_t n = strlen(name);
	return strncmp(name, "luabench.", 9) && !strchr(name, '.') &&
	       !(n > 7 && !strcmp(name + n - 7, "_common"));
}

const char *const *lb_script_builtins(void)
{
	static const char *names[128];
	if (!names[0]) {
		int n = 0;
		for (const struct lb_embedded *m = lb_embedded_modules; m->name && n < 127; m++)
			if (is_workload(m->name))
				names[n++] = m->name;
	}
	return names;
}

static char *read_stream(FILE *f, size_t *len)
{
	struct lb_buf b = { 0 };
	char chunk[65536];
	size_t n;
	lb_buf_append(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		lb_buf_append(&b, chunk, n);
	*len = b.len;
	return b.data;
}

static struct lb_script *new_script(const char *name)
{
	struct lb_script *s = lb_xzalloc(sizeof(*s));
	s->name = lb_xstrdup(name);
	const char *base = strrchr(s->name, '/');
	s->test_name = base ? base + 1 : s->name;
	return s;
}

static int load_file(struct lb_script *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read script '%s': %s", path, strerror(errno));
		return -1;
	}
	s->code = read_stream(f, &s->len);
	fclose(f);
	s->path = lb_xstrdup(path);
	/* Error positions name the file as given or found on the Lua path, as in sysbench. */
	s->chunkname = lb_xasprintf("@%s", path);
	/* A "#!/usr/bin/env luabench" line: comment it out, keeping line numbers. */
	if (s->len >= 2 && s->code[0] == '#' && s->code[1] == '!')
		s->code[0] = s->code[1] = '-';
	return 0;
}

static bool readable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* Looks for name as a module along the Lua path, as sysbench does: LUA_PATH (";;" = the
 * defaults) and then ./?.lua, ./?/init.lua and the system Lua directories. */
static char *find_module(const char *name)
{
	static const char defaults[] = "./?.lua;./?/init.lua;/usr/local/share/lua/5.1/?.lua;"
				       "/usr/local/share/lua/5.1/?/init.lua;/usr/share/lua/5.1/?.lua;"
				       "/usr/share/lua/5.1/?/init.lua";
	const char *env = getenv("LUA_PATH");
	char *path = env ? lb_xasprintf("%s;%s", env, defaults) : lb_xstrdup(defaults);
	char *mod = lb_xstrdup(name), *found = NULL, *save = NULL;
	for (char *p = mod; *p; p++)
		if (*p == '.')
			*p = '/';
	for (char *tpl = strtok_r(path, ";", &save); tpl && !found; tpl = strtok_r(NULL, ";", &save)) {
		struct lb_buf b = { 0 };
		for (const char *q = tpl; *q; q++)
			if (*q == '?')
				lb_buf_append(&b, mod, strlen(mod));
			else
				lb_buf_append(&b, q, 1);
		if (b.data && readable_file(b.data))
			found = lb_xstrdup(b.data);
		lb_buf_free(&b);
	}
	free(mod);
	free(path);
	return found;
}

static void not_found(const char *name, char *err, size_t errlen)
{
	const char *best = NULL;
	int best_d = 4;
	for (const char *const *b = lb_script_builtins(); *b; b++) {
		int d = lb_str_distance(name, *b);
		if (d < best_d) {
			best_d = d;
			best = *b;
		}
	}
	if (best)
		snprintf(err, errlen,
			 "Cannot find benchmark '%s': no such built-in test, file or module\nDid you mean '%s'?",
			 name, best);
	else
		snprintf(err, errlen,
			 "Cannot find benchmark '%s': no such built-in test, file or module\n(see --help for the list)",
			 name);
}

void lb_script_explain(const char *name, char *err, size_t errlen)
{
	struct stat st;
	if (!name)
		return;
	if (stat(name, &st) != 0) {
		/* Not there: "Cannot find benchmark" says it. There but out of reach: say why. */
		if (errno != ENOENT && errno != ENOTDIR)
			snprintf(err, errlen, "cannot read script '%s': %s", name, strerror(errno));
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		char *init = lb_xasprintf("%s%sinit.lua", name, name[strlen(name) - 1] == '/' ? "" : "/");
		bool has_init = readable_file(init);
		snprintf(err, errlen, "cannot run '%s': it is a directory, not a script file%s%s%s", name,
			 has_init ? " (did you mean '" : "", has_init ? init : "", has_init ? "'?)" : "");
		free(init);
	} else if (access(name, R_OK) != 0) {
		snprintf(err, errlen, "cannot read script '%s': %s", name, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot run '%s': not a regular file", name);
	}
}

int lb_script_load(const char *name, struct lb_script **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!name || !strcmp(name, "-")) {
		struct lb_script *s = new_script("-");
		s->code = read_stream(stdin, &s->len);
		s->chunkname = lb_xstrdup("=stdin");
		s->from_stdin = true;
		*out = s;
		return 0;
	}
	const struct lb_embedded *m = lb_embedded_find(name);
	if (m && is_workload(name)) {
		struct lb_script *s = new_script(name);
		s->code = lb_xstrndup((const char *)m->code, m->len);
		s->len = m->len;
		s->chunkname = lb_xstrdup(m->chunkname);
		s->builtin = true;
		*out = s;
		return 0;
	}
	char *path = readable_file(name) ? lb_xstrdup(name) : find_module(name);
	if (!path) {
		not_found(name, err, errlen);
		return -1;
	}
	struct lb_script *s = new_script(name);
	int rc = load_file(s, path, err, errlen);
	free(path);
	if (rc < 0) {
		lb_script_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void lb_script_free(struct lb_script *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->path);
	free(s->chunkname);
	free(s->code);
	free(s);
}
