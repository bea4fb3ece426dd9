/* Engine registry: an explicit static table, each entry checked once (fio's check_engine_ops
 * idea, but without constructors), plus error texts shared by the whole layer. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io_internal.h"

/* Every engine name we know, also those compiled out, so that "libaio" on a build without
 * libaio says "not built" instead of "unknown engine" (and falls back). ops is NULL when
 * compiled out. */
struct registry_entry {
	const char *name;
	const struct lb_io_ops *ops;
	const char *missing_why; /* when ops == NULL */
	const char *fallback;    /* see lb_io_engine_fallback() */
};

static const struct registry_entry registry[] = {
	{ "psync", &lb_io_psync_ops, NULL, NULL },
#if LB_HAVE_LIBAIO
	{ "libaio", &lb_io_libaio_ops, NULL, "psync" },
#else
	{ "libaio", NULL, "built without libaio (install libaio-dev and reconfigure)", "psync" },
#endif
#if LB_HAVE_IO_URING
	{ "io_uring", &lb_io_uring_ops, NULL, "libaio" },
#else
	{ "io_uring", NULL, "built without liburing (install liburing-dev and reconfigure)", "libaio" },
#endif
	{ "mmap", &lb_io_mmap_ops, NULL, NULL },
	{ "null", &lb_io_null_ops, NULL, NULL },
};

#define REGISTRY_LEN (sizeof(registry) / sizeof(registry[0]))

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static int check_result[REGISTRY_LEN]; /* 0 or LB_IO_E_BADOPS; written once */
static char check_msg[REGISTRY_LEN][160];

int lb_io_msg(char *buf, uint32_t len, int code, const char *fmt, ...)
{
	va_list ap;

	if (buf && len) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	return code;
}

int lb_io_ops_check(const struct lb_io_ops *ops, char *errbuf, uint32_t errbuf_len)
{
	const char *name = ops && ops->name ? ops->name : "(unnamed)";
	uint32_t kind;

	if (!ops || !ops->name || !ops->name[0])
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_BADOPS, "I/O engine without a name");
	if (ops->version != LB_IO_OPS_VERSION)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_BADOPS,
				 "I/O engine %s: ops version %u, this build expects %u", name,
				 ops->version, LB_IO_OPS_VERSION);
	if (!ops->queue)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_BADOPS, "I/O engine %s: no queue op",
				 name);
	kind = ops->flags & (LB_IO_F_SYNC | LB_IO_F_ASYNC);
	if (kind != LB_IO_F_SYNC && kind != LB_IO_F_ASYNC)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_BADOPS,
				 "I/O engine %s: must be flagged either SYNC or ASYNC", name);
	if (kind == LB_IO_F_ASYNC && (!ops->commit || !ops->getevents || !ops->event))
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_BADOPS,
				 "I/O engine %s: async engines need commit, getevents and event", name);
	return 0;
}

static void check_all(void)
{
	for (size_t i = 0; i < REGISTRY_LEN; i++)
		if (registry[i].ops)
			check_result[i] = lb_io_ops_check(registry[i].ops, check_msg[i],
							  sizeof(check_msg[i]));
}

const struct lb_io_ops *lb_io_engine_find(const char *name, int *code, char *errbuf,
					  uint32_t errbuf_len)
{
	pthread_once(&check_once, check_all);
	for (size_t i = 0; name && i < REGISTRY_LEN; i++) {
		if (strcmp(registry[i].name, name) != 0)
			continue;
		if (!registry[i].ops) {
			*code = lb_io_msg(errbuf, errbuf_len, LB_IO_E_UNSUPPORTED,
					  "I/O engine %s: %s", name, registry[i].missing_why);
			return NULL;
		}
		if (check_result[i]) {
			*code = lb_io_msg(errbuf, errbuf_len, check_result[i], "%s", check_msg[i]);
			return NULL;
		}
		*code = 0;
		return registry[i].ops;
	}
	*code = lb_io_msg(errbuf, errbuf_len, LB_IO_E_UNKNOWN,
			  "unknown I/O engine '%s' (known: psync, libaio, io_uring, mmap, null)",
			  name ? name : "(null)");
	return NULL;
}

uint32_t lb_io_engine_count(void)
{
	return REGISTRY_LEN;
}

const char *lb_io_engine_name(uint32_t i)
{
	return i < REGISTRY_LEN ? registry[i].name : NULL;
}

int64_t lb_io_engine_flags(const char *name)
{
	int code;
	const struct lb_io_ops *ops = lb_io_engine_find(name, &code, NULL, 0);

	return ops ? (int64_t)ops->flags : code;
}

uint32_t lb_io_engine_max_depth(const char *name, char *why, uint32_t why_len)
{
	int code;
	const struct lb_io_ops *ops = lb_io_engine_find(name, &code, NULL, 0);
	uint32_t n = LB_IO_MAX_DEPTH;

	if (why && why_len)
		snprintf(why, why_len, "luabench's limit");
	if (!ops)
		return 0;
	if (ops->max_depth) {
		char own[160] = "";
		uint32_t m = ops->max_depth(own, sizeof(own));

		if (m && m <= n) {
			n = m;
			if (why && why_len)
				snprintf(why, why_len, "%s", own);
		}
	}
	return n;
}

const char *lb_io_engine_fallback(const char *name)
{
	for (size_t i = 0; name && i < REGISTRY_LEN; i++)
		if (!strcmp(registry[i].name, name))
			return registry[i].fallback;
	return NULL;
}

const char *lb_io_strerror(int code)
{
	switch (code) {
	case 0: return "success";
	case LB_IO_E_ALIGN: return "misaligned O_DIRECT I/O";
	case LB_IO_E_UNKNOWN: return "unknown I/O engine";
	case LB_IO_E_UNSUPPORTED: return "I/O engine not available here";
	case LB_IO_E_BADOPS: return "I/O engine failed its registration check";
	case LB_IO_E_FULL: return "queue depth reached, reap first";
	case LB_IO_E_STATE: return "call not valid in the current state";
	case LB_IO_E_ARG: return "invalid argument";
	case LB_IO_E_TORN: return "torn or corrupted block (checksum mismatch)";
	case LB_IO_E_MISPLACED: return "block belongs to another offset";
	case LB_IO_E_SHORT: return "short transfer";
	}
	/* strerror() is not thread-safe in theory; strerrordesc_np returns static text. */
	if (code < 0 && code > -4096) {
		const char *s = strerrordesc_np(-code);
		return s ? s : "unknown error";
	}
	return "unknown error";
}
