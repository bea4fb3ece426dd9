/* DuckDB driver: values as DuckDB writes them as text (duckdb_text.c). Each function writes a
 * NUL-terminated text of at most LB_DUCKDB_TEXT_BYTES - 1 bytes into buf and returns its
 * length. */
#ifndef LB_DB_DUCKDB_DUCKDB_TEXT_H
#define LB_DB_DUCKDB_DUCKDB_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* the longest: a 38-digit decimal with its sign, point and leading "0." */
#define LB_DUCKDB_TEXT_BYTES 48

size_t lb_duckdb_text_i128(char *buf, __int128 v);
size_t lb_duckdb_text_u128(char *buf, unsigned __int128 v);
/* DECIMAL(width, scale) stored as the integer v: "12.50", "-0.05", "0.000" */
size_t lb_duckdb_text_decimal(char *buf, __int128 v, uint8_t scale);
size_t lb_duckdb_text_double(char *buf, double v);
/* DATE as days since 1970-01-01: "YYYY-MM-DD" for the years 1 to 9999; 0 (nothing written)
 * for the others and the infinities, whose text DuckDB's own cast gives. */
size_t lb_duckdb_text_date(char *buf, int32_t days);
/* UUID as DuckDB stores it (a 128-bit integer whose top bit is flipped, so that UUIDs sort as
 * their bytes): "8-4-4-4-12" lowercase hexadecimal digits. */
size_t lb_duckdb_text_uuid(char *buf, int64_t upper, uint64_t lower);

#endif
