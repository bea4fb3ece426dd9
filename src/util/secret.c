#include "util/secret.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

static bool name_has(const char *name, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (size_t i = 0; i + n <= len; i++)
		if (!strncasecmp(name + i, word, n))
			return true;
	return false;
}

bool lb_secret_option(const char *name, size_t len)
{
	return name_has(name, len, "password");
}

bool lb_secret_conn_string_option(const char *name, size_t len)
{
	return name_has(name, len, "connection-string") || name_has(name, len, "connection_string");
}

/* The next password value of a connection string from `s`: its start, and its end (a braced
 * value ends at its unpaired closing brace, as ODBC reads it). NULL when there is none. */
static const char *next_secret(const char *s, const char **end)
{
	const char *p = s;

	while (*p) {
		while (*p == ';' || isspace((unsigned char)*p))
			p++;
		const char *key = p;
		const char *eq = strchr(p, '=');
		const char *semi = strchr(p, ';');
		if (!eq || (semi && semi < eq)) {
			p = semi ? semi + 1 : p + strlen(p);
			continue;
		}
		size_t klen = (size_t)(eq - key);
		while (klen && isspace((unsigned char)key[klen - 1]))
			klen--;
		bool secret = (klen == 3 && !strncasecmp(key, "PWD", 3)) ||
			      (klen == 8 && !strncasecmp(key, "PASSWORD", 8));
		const char *v = eq + 1, *e = v;
		if (*v == '{') {
			for (e = v + 1; *e; e++) {
				if (*e == '}' && e[1] == '}')
					e++;
				else if (*e == '}')
					break;
			}
			if (*e)
				e++;
		}
		while (*e && *e != ';')
			e++;
		if (secret) {
			*end = e;
			return v;
		}
		p = e;
	}
	return NULL;
}

void lb_secret_mask_conn_string(char *s)
{
	const char *end;
	const char *v;

	while ((v = next_secret(s, &end))) {
		memset(s + (v - s), 'x', (size_t)(end - v));
		s += end - s;
	}
}

char *lb_secret_conn_string_masked(const char *s)
{
	struct lb_buf b = { 0 };
	const char *end;
	const char *v;

	while ((v = next_secret(s, &end))) {
		lb_buf_append(&b, s, (size_t)(v - s));
		lb_buf_append(&b, "***", 3);
		s = end;
	}
	lb_buf_append(&b, s, strlen(s));
	return b.data ? b.data : lb_xstrdup("");
}
