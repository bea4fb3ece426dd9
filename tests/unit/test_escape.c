/* One line per message: control characters as escapes (lb_escape), and a message's own lines
 * (a level's continuation line, a --debug traceback) kept (lb_log_escape). */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "util/log.h"
#include "util/util.h"

static void escaped(const char *in, size_t len, const char *want)
{
	char *e = lb_escape(in, len);
	is_str(e, want, "escape of %zu bytes", len);
	free(e);
}

static void message(const char *in, const char *want)
{
	char *e = lb_log_escape(in, strlen(in));
	is_str(e, want, "message '%s'", want);
	free(e);
}

int main(void)
{
	escaped("closed before \"\r\n\"", 18, "closed before \"\\r\\n\"");
	escaped("a\0b\tc\x1b[31m\x7f\a\b\v\f\x01", 16, "a\\0b\\tc\\x1b[31m\\x7f\\a\\b\\v\\f\\x01");
	escaped("caf\xc3\xa9 \\ 'q'", 11, "caf\xc3\xa9 \\ 'q'");
	escaped("", 0, "");
	char buf[8];
	is_str(lb_escape_to(buf, sizeof(buf), "a\r\nbcdef"), "a\\r\\nbc", "lb_escape_to cuts to its buffer");
	is_str(lb_escape_to(buf, sizeof(buf), NULL), "", "lb_escape_to of nothing");

	message("bad reply \x1b[31m\r\n", "bad reply \\x1b[31m\\r\\n");
	message("Cannot open file\nWARNING: Did you forget?", "Cannot open file\nWARNING: Did you forget?");
	message("a\nb\nFATAL: c\td", "a\\nb\nFATAL: c\\td");
	message("boom\r\nstack traceback:\n\tx.lua:1: in main chunk", "boom\\r\nstack traceback:\n\tx.lua:1: in main chunk");
	return done_testing();
}
