/* DuckDB's error types as SQLSTATEs, PostgreSQL's codes where one class means the same, so that
 * ignore lists, the dialect's checks and a reader of the error take a DuckDB failure as they
 * take a server's: a missing column is 42703 as on PostgreSQL, not HY000. The C API gives a
 * type per error (duckdb.h, duckdb_error_type); a few types cover several PostgreSQL codes and
 * are told apart by the start of DuckDB's message, which names what is wrong. */
#include <string.h>

#include "duckdb_int.h"

struct sqlstate_rule {
	duckdb_error_type type;
	const char *needle; /* in the message; NULL = any message of the type */
	const char *sqlstate;
};

/* First match wins: for each type its particular messages, then its default. */
static const struct sqlstate_rule RULES[] = {
	/* a write-write conflict: a serialization failure, retried by default */
	{ DUCKDB_ERROR_TRANSACTION, NULL, "40001" },
	{ DUCKDB_ERROR_CONSTRAINT, "Duplicate key", "23505" },
	{ DUCKDB_ERROR_CONSTRAINT, "unique", "23505" },
	{ DUCKDB_ERROR_CONSTRAINT, "NOT NULL", "23502" },
	{ DUCKDB_ERROR_CONSTRAINT, "CHECK constraint", "23514" },
	{ DUCKDB_ERROR_CONSTRAINT, "foreign key", "23503" },
	{ DUCKDB_ERROR_CONSTRAINT, NULL, "23000" },
	{ DUCKDB_ERROR_BINDER, "Referenced column", "42703" },
	{ DUCKDB_ERROR_BINDER, "Referenced table", "42P01" },
	{ DUCKDB_ERROR_BINDER, "GROUP BY", "42803" },
	{ DUCKDB_ERROR_BINDER, "function", "42883" },
	{ DUCKDB_ERROR_BINDER, NULL, "42000" },
	{ DUCKDB_ERROR_CATALOG, "already exists", "42P07" },
	{ DUCKDB_ERROR_CATALOG, "Table with name", "42P01" },
	{ DUCKDB_ERROR_CATALOG, "View with name", "42P01" },
	{ DUCKDB_ERROR_CATALOG, "Function with name", "42883" },
	{ DUCKDB_ERROR_CATALOG, "Type with name", "42704" },
	{ DUCKDB_ERROR_CATALOG, "Schema with name", "3F000" },
	{ DUCKDB_ERROR_CATALOG, "Could not drop", "2BP01" },
	{ DUCKDB_ERROR_CATALOG, NULL, "42704" },
	{ DUCKDB_ERROR_PARSER, NULL, "42601" },
	{ DUCKDB_ERROR_SYNTAX, NULL, "42601" },
	{ DUCKDB_ERROR_CONVERSION, "convert string", "22P02" },
	{ DUCKDB_ERROR_CONVERSION, "cast value", "22003" },
	{ DUCKDB_ERROR_CONVERSION, NULL, "22018" },
	{ DUCKDB_ERROR_OUT_OF_RANGE, NULL, "22003" },
	{ DUCKDB_ERROR_DECIMAL, NULL, "22003" },
	{ DUCKDB_ERROR_DIVIDE_BY_ZERO, NULL, "22012" },
	{ DUCKDB_ERROR_INVALID_INPUT, NULL, "22023" },
	{ DUCKDB_ERROR_SEQUENCE, NULL, "2200H" },
	{ DUCKDB_ERROR_MISMATCH_TYPE, NULL, "42804" },
	{ DUCKDB_ERROR_UNKNOWN_TYPE, NULL, "42704" },
	{ DUCKDB_ERROR_PARAMETER_NOT_RESOLVED, NULL, "42P18" },
	{ DUCKDB_ERROR_PERMISSION, NULL, "42501" },
	{ DUCKDB_ERROR_DEPENDENCY, NULL, "2BP01" },
	{ DUCKDB_ERROR_NOT_IMPLEMENTED, NULL, "0A000" },
	{ DUCKDB_ERROR_INTERRUPT, NULL, "57014" },
	{ DUCKDB_ERROR_OUT_OF_MEMORY, NULL, "53200" },
	{ DUCKDB_ERROR_OBJECT_SIZE, NULL, "54000" },
	{ DUCKDB_ERROR_IO, NULL, "58030" },
	{ DUCKDB_ERROR_INTERNAL, NULL, "XX000" },
	{ DUCKDB_ERROR_FATAL, NULL, "XX000" },
};

const char *lb_duckdb_sqlstate(duckdb_error_type type, const char *msg)
{
	for (size_t i = 0; i < sizeof(RULES) / sizeof(RULES[0]); i++) {
		const struct sqlstate_rule *r = &RULES[i];
		if (r->type == type && (!r->needle || (msg && strstr(msg, r->needle))))
			return r->sqlstate;
	}
	return "HY000";
}
