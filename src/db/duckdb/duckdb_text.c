/* DuckDB driver: the text of a value read from a data chunk, byte for byte what DuckDB's own
 * cast to VARCHAR writes (duckdb_value_varchar, the CLI), without DuckDB's per-value objects
 * and allocations: integers of every width, decimals, doubles in DuckDB's shortest round-trip
 * form and dates. (DuckDB's text of a FLOAT is not the shortest one that reads back: the
 * driver asks DuckDB for it.) tests/db/test_duckdb.c holds each against DuckDB's text
 * on the same values. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duckdb_text.h"

/* Digits of v, most significant first, into buf; returns their count. */
static size_t digits_u128(char *buf, unsigned __int128 v)
{
	char tmp[40];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

size_t lb_duckdb_text_u128(char *buf, unsigned __int128 v)
{
	size_t n = digits_u128(buf, v);
	buf[n] = '\0';
	return n;
}

size_t lb_duckdb_text_i128(char *buf, __int128 v)
{
	/* the magnitude of the smallest value does not fit a signed 128-bit integer */
	unsigned __int128 m = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	size_t n = 0;

	if (v < 0)
		buf[n++] = '-';
	n += digits_u128(buf + n, m);
	buf[n] = '\0';
	return n;
}

size_t lb_duckdb_text_decimal(char *buf, __int128 v, uint8_t scale)
{
	unsigned __int128 m = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	char d[40];
	size_t nd = digits_u128(d, m), n = 0;

	if (scale == 0)
		return lb_duckdb_text_i128(buf, v);
	if (v < 0)
		buf[n++] = '-';
	/* "0.05": at least one integer digit, then exactly `scale` fractional ones */
	if (nd <= scale) {
		buf[n++] = '0';
		buf[n++] = '.';
		memset(buf + n, '0', scale - nd);
		n += scale - nd;
		memcpy(buf + n, d, nd);
		n += nd;
	} else {
		memcpy(buf + n, d, nd - scale);
		n += nd - scale;
		buf[n++] = '.';
		memcpy(buf + n, d + nd - scale, scale);
		n += scale;
	}
	buf[n] = '\0';
	return n;
}

/* The shortest digits that read back as v (as DuckDB's formatter finds them, a tie between two
 * doubles read back as the even one): v rounded to the fewest significant digits that strtod
 * reads back as v. Any decimal of at most DBL_DIG digits survives the round trip to a normal
 * double, so when the shortest one is that short the first try (15 digits) rounds to it
 * exactly; a subnormal double has fewer digits of precision: it is tried from one digit up.
 * Writes the digits (no dot, no trailing zeros) and returns their count; *exp10 is the
 * exponent of the first digit. */
static size_t shortest_digits(double v, char *digits, int *exp10)
{
	char sci[40];
	int p = v < DBL_MIN ? 1 : 15;

	for (;; p++) {
		snprintf(sci, sizeof(sci), "%.*e", p - 1, v);
		if (p == 17 || strtod(sci, NULL) == v)
			break;
	}
	/* sci is "d.ddde[+-]XX" (or "de[+-]XX" when p is 1) */
	size_t n = 0;
	const char *s = sci;
	for (; *s != 'e'; s++)
		if (*s != '.')
			digits[n++] = *s;
	*exp10 = atoi(s + 1);
	while (n > 1 && digits[n - 1] == '0')
		n--;
	return n;
}

/* DuckDB writes a double as the shortest text that reads back as the same value, plainly for
 * exponents -4 to 15 (with ".0" on whole numbers: "100.0", "0.0001") and in scientific
 * notation otherwise ("1e+16", "1e-05", "1.2345678901234568e+17"); "inf", "-inf", "nan", and
 * "-nan" for a NaN with its sign bit set. */
size_t lb_duckdb_text_double(char *buf, double v)
{
	char d[24];
	int e;
	size_t n = 0, nd;

	if (isnan(v))
		return (size_t)snprintf(buf, LB_DUCKDB_TEXT_BYTES, signbit(v) ? "-nan" : "nan");
	if (isinf(v))
		return (size_t)snprintf(buf, LB_DUCKDB_TEXT_BYTES, v < 0 ? "-inf" : "inf");
	if (v == 0)
		return (size_t)snprintf(buf, LB_DUCKDB_TEXT_BYTES, signbit(v) ? "-0.0" : "0.0");
	if (v < 0) {
		buf[n++] = '-';
		v = -v;
	}
	nd = shortest_digits(v, d, &e);
	if (e < -4 || e >= 16) {
		buf[n++] = d[0];
		if (nd > 1) {
			buf[n++] = '.';
			memcpy(buf + n, d + 1, nd - 1);
			n += nd - 1;
		}
		n += (size_t)snprintf(buf + n, LB_DUCKDB_TEXT_BYTES - n, "e%c%02d", e < 0 ? '-' : '+', abs(e));
		return n;
	}
	if (e < 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		memset(buf + n, '0', (size_t)(-e - 1));
		n += (size_t)(-e - 1);
		memcpy(buf + n, d, nd);
		n += nd;
	} else if ((size_t)e + 1 >= nd) {
		memcpy(buf + n, d, nd);
		n += nd;
		memset(buf + n, '0', (size_t)e + 1 - nd);
		n += (size_t)e + 1 - nd;
		buf[n++] = '.';
		buf[n++] = '0';
	} else {
		memcpy(buf + n, d, (size_t)e + 1);
		n += (size_t)e + 1;
		buf[n++] = '.';
		memcpy(buf + n, d + e + 1, nd - (size_t)e - 1);
		n += nd - (size_t)e - 1;
	}
	buf[n] = '\0';
	return n;
}

/* Days since 1970-01-01 to a civil date (the proleptic Gregorian calendar DuckDB uses). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

size_t lb_duckdb_text_date(char *buf, int32_t days)
{
	int64_t y;
	unsigned m, d;

	civil_from_days(days, &y, &m, &d);
	/* years before 1 ("(BC)"), past 9999 and the infinities are left to DuckDB */
	if (y < 1 || y > 9999)
		return 0;
	return (size_t)snprintf(buf, LB_DUCKDB_TEXT_BYTES, "%04d-%02u-%02u", (int)y, m, d);
}

size_t lb_duckdb_text_uuid(char *buf, int64_t upper, uint64_t lower)
{
	uint64_t hi = (uint64_t)upper ^ ((uint64_t)1 << 63);

	return (size_t)snprintf(buf, LB_DUCKDB_TEXT_BYTES, "%08llx-%04llx-%04llx-%04llx-%012llx",
				(unsigned long long)(hi >> 32), (unsigned long long)((hi >> 16) & 0xffff),
				(unsigned long long)(hi & 0xffff), (unsigned long long)(lower >> 48),
				(unsigned long long)(lower & 0xffffffffffffULL));
}
