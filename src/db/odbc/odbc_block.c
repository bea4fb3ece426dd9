/* Block fetches for prepared statements: each column bound once (SQLBindCol) to an array of
 * ODBC_BLOCK_ROWS text values, so one SQLFetch brings that many rows. Reading value by value
 * with SQLGetData costs a trip through the driver manager and the driver per value: on
 * oltp_read_write's 100-row ranges through psqlODBC, most of the client's time. A column whose
 * display size is unknown or large (TEXT, BLOB) keeps the statement on SQLGetData. */
#include <stdio.h>

#include "odbc_int.h"

#define ODBC_BLOCK_ROWS 64
#define ODBC_BLOCK_MAX_DISPLAY 1024

void lb_odbc_block_free(struct odbc_block *b)
{
	for (SQLSMALLINT i = 0; i < b->ncols; i++) {
		free(b->buf[i]);
		free(b->ind[i]);
	}
	free(b->buf);
	free(b->ind);
	free(b->width);
	memset(b, 0, sizeof(*b));
}

/* Up to 4 bytes a character (UTF-8), and room for what a display size leaves out (a sign, an
 * exponent). */
static SQLULEN width_of(SQLLEN display)
{
	return (SQLULEN)display * 4 + 32;
}

/* First execution that returned rows: bind every column, or decide on SQLGetData. */
static void setup(struct odbc_block *b, SQLHSTMT h, SQLSMALLINT ncols)
{
	SQLLEN display[256];

	b->state = ODBC_BLOCK_GETDATA;
	if (ncols > 256)
		return;
	for (SQLSMALLINT i = 0; i < ncols; i++) {
		display[i] = 0;
		if (!SQL_SUCCEEDED(SQLColAttribute(h, (SQLUSMALLINT)(i + 1), SQL_DESC_DISPLAY_SIZE,
						   NULL, 0, NULL, &display[i])) ||
		    display[i] <= 0 || display[i] > ODBC_BLOCK_MAX_DISPLAY)
			return;
	}
	b->ncols = ncols;
	b->width = lb_xzalloc((size_t)ncols * sizeof(*b->width));
	b->buf = lb_xzalloc((size_t)ncols * sizeof(*b->buf));
	b->ind = lb_xzalloc((size_t)ncols * sizeof(*b->ind));
	for (SQLSMALLINT i = 0; i < ncols; i++) {
		b->width[i] = width_of(display[i]);
		b->buf[i] = lb_xzalloc(b->width[i] * ODBC_BLOCK_ROWS);
		b->ind[i] = lb_xzalloc(ODBC_BLOCK_ROWS * sizeof(SQLLEN));
		if (!SQL_SUCCEEDED(SQLBindCol(h, (SQLUSMALLINT)(i + 1), SQL_C_CHAR, b->buf[i],
					      (SQLLEN)b->width[i], b->ind[i]))) {
			lb_odbc_block_unbind(b, h);
			return;
		}
	}
	if (!SQL_SUCCEEDED(SQLSetStmtAttr(h, SQL_ATTR_ROW_ARRAY_SIZE,
					  (SQLPOINTER)(uintptr_t)ODBC_BLOCK_ROWS, 0)) ||
	    !SQL_SUCCEEDED(SQLSetStmtAttr(h, SQL_ATTR_ROWS_FETCHED_PTR, &b->fetched, 0))) {
		lb_odbc_block_unbind(b, h);
		return;
	}
	b->state = ODBC_BLOCK_BOUND;
}

/* Back to one row and no bound columns (the statement then reads with SQLGetData). */
void lb_odbc_block_unbind(struct odbc_block *b, SQLHSTMT h)
{
	if (h) {
		SQLFreeStmt(h, SQL_UNBIND);
		SQLSetStmtAttr(h, SQL_ATTR_ROW_ARRAY_SIZE, (SQLPOINTER)1, 0);
		SQLSetStmtAttr(h, SQL_ATTR_ROWS_FETCHED_PTR, NULL, 0);
	}
	lb_odbc_block_free(b);
	b->state = ODBC_BLOCK_GETDATA;
}

/* Copies the fetched rows of the block into the connection's result set. */
static int copy_block(struct lb_db_conn *c, struct odbc_block *b, uint64_t *n)
{
	for (SQLULEN r = 0; r < b->fetched; r++, (*n)++) {
		for (SQLSMALLINT i = 0; i < b->ncols; i++) {
			SQLLEN ind = b->ind[i][r];
			int64_t *cell = lb_db_rows_cell(&O(c)->rows, *n * (uint64_t)b->ncols + (uint64_t)i);
			if (ind == SQL_NULL_DATA) {
				cell[0] = -1;
				cell[1] = 0;
				continue;
			}
			if (ind == SQL_NO_TOTAL || ind < 0 || (SQLULEN)ind >= b->width[i]) {
				lb_db_set_error(c, 0, "01004", false, "odbc: a value of column %d is "
						"longer than its display size allows", i + 1);
				return LB_DB_ESQL;
			}
			lb_db_rows_append(&O(c)->rows, b->buf[i] + r * b->width[i], (size_t)ind,
					     cell);
		}
	}
	return LB_DB_OK;
}

/* Stores the result set of a prepared statement: 0 when done, a negative code on failure, or
 * 1 when this statement reads value by value with SQLGetData instead (the caller then does). */
int lb_odbc_block_store(struct lb_db_conn *c, struct odbc_block *b, SQLHSTMT h,
			SQLSMALLINT ncols, uint64_t *nrows)
{
	SQLRETURN ret;
	uint64_t n = 0;

	if (b->state == ODBC_BLOCK_NEW)
		setup(b, h, ncols);
	if (b->state == ODBC_BLOCK_BOUND && b->ncols != ncols)
		lb_odbc_block_unbind(b, h);
	if (b->state != ODBC_BLOCK_BOUND)
		return 1;
	while (SQL_SUCCEEDED(ret = SQLFetch(h))) {
		int rc = copy_block(c, b, &n);
		if (rc < 0)
			return rc;
	}
	if (ret != SQL_NO_DATA)
		return lb_odbc_error(c, SQL_HANDLE_STMT, h, ret);
	*nrows = n;
	return 0;
}
