/* DuckDB driver, result sets. A statement's rows are DuckDB's own data chunks, every one pulled
 * before the statement returns (so a statement's time is its whole execution and rs.nrows is
 * known, as on the other drivers), held as DuckDB made them, and read in place: a value
 * becomes text only when fetch_row asks for its row, into one buffer reused row after row,
 * and row_value hands numbers over as numbers. The types read are those DuckDB's C API always
 * gave as text (duckdb_value_varchar) and UUIDs; values of the others (lists, structs, maps,
 * unions, enums, bit strings, times with a time zone, timestamps in s, ms or ns) are NULL, as
 * duckdb_value_varchar always gave them (without its crash on a UUID beside other columns). */
#include <string.h>

#include "duckdb_int.h"
#include "duckdb_text.h"

/* ---- column types -------------------------------------------------------------------------- */

/* The types whose text DuckDB writes for the driver (duckdb_get_varchar), one value at a time:
 * FLOAT's text is not the shortest that reads back, which would be easy to write here. */
static bool via_duckdb_value(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_FLOAT:
	case DUCKDB_TYPE_TIMESTAMP:
	case DUCKDB_TYPE_TIME:
	case DUCKDB_TYPE_INTERVAL:
	case DUCKDB_TYPE_BLOB:
		return true;
	default:
		return false;
	}
}

/* The types read from chunks; a value of another type is NULL. */
static bool type_read(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_BOOLEAN:
	case DUCKDB_TYPE_TINYINT:
	case DUCKDB_TYPE_SMALLINT:
	case DUCKDB_TYPE_INTEGER:
	case DUCKDB_TYPE_BIGINT:
	case DUCKDB_TYPE_UTINYINT:
	case DUCKDB_TYPE_USMALLINT:
	case DUCKDB_TYPE_UINTEGER:
	case DUCKDB_TYPE_UBIGINT:
	case DUCKDB_TYPE_HUGEINT:
	case DUCKDB_TYPE_UHUGEINT:
	case DUCKDB_TYPE_DOUBLE:
	case DUCKDB_TYPE_DECIMAL:
	case DUCKDB_TYPE_VARCHAR:
	case DUCKDB_TYPE_DATE:
	case DUCKDB_TYPE_UUID:
		return true;
	default:
		return via_duckdb_value(t);
	}
}

/* The columns of result r. */
static void describe_columns(struct duckdb_rows *rs, duckdb_result *r, uint32_t ncols)
{
	if (ncols > rs->cols_cap) {
		rs->cols = lb_xrealloc(rs->cols, ncols * sizeof(*rs->cols));
		rs->text_off = lb_xrealloc(rs->text_off, ncols * sizeof(*rs->text_off));
		rs->cols_cap = ncols;
	}
	rs->ncols = ncols;
	for (uint32_t i = 0; i < ncols; i++) {
		struct duckdb_col *col = &rs->cols[i];
		duckdb_type t = duckdb_column_type(r, i);

		memset(col, 0, sizeof(*col));
		col->type = t;
		col->unread = !type_read(t);
		if (t == DUCKDB_TYPE_DECIMAL) {
			duckdb_logical_type lt = duckdb_column_logical_type(r, i);
			col->decimal = true;
			col->type = duckdb_decimal_internal_type(lt);
			col->scale = duckdb_decimal_scale(lt);
			duckdb_destroy_logical_type(&lt);
		}
	}
}

/* ---- taking a statement's result ------------------------------------------------------------ */

static void free_chunks(struct duckdb_rows *rs)
{
	for (uint32_t i = rs->chunk; i < rs->nchunks; i++)
		duckdb_destroy_data_chunk(&rs->chunks[i]);
	rs->nchunks = 0;
	rs->chunk = 0;
}

void lb_duckdb_rows_reset(struct duckdb_rows *rs)
{
	free_chunks(rs);
	rs->nrows = 0;
	rs->next = 0;
	rs->on_row = false;
}

void lb_duckdb_rows_free(struct duckdb_rows *rs)
{
	lb_duckdb_rows_reset(rs);
	free(rs->chunks);
	free(rs->cols);
	free(rs->text_off);
	lb_db_buf_free(&rs->text);
	lb_db_buf_free(&rs->value_text);
	memset(rs, 0, sizeof(*rs));
}

static void keep_chunk(struct duckdb_rows *rs, duckdb_data_chunk ch)
{
	if (rs->nchunks == rs->chunks_cap) {
		rs->chunks_cap = rs->chunks_cap ? 2 * rs->chunks_cap : 8;
		rs->chunks = lb_xrealloc(rs->chunks, rs->chunks_cap * sizeof(*rs->chunks));
	}
	rs->chunks[rs->nchunks++] = ch;
}

/* Pulls every chunk of result r: a streaming result runs to its end here (under the statement
 * timeout: the caller calls this between arming and disarming it). A failure while DuckDB
 * produced the rows (an interrupt, a conversion error) stays in r for lb_duckdb_finish, and
 * the rows pulled before it are dropped. */
void lb_duckdb_rows_pull(struct duckdb_rows *rs, duckdb_result *r)
{
	duckdb_data_chunk ch;

	lb_duckdb_rows_reset(rs);
	describe_columns(rs, r, (uint32_t)duckdb_column_count(r));
	while ((ch = duckdb_fetch_chunk(*r)) != NULL) {
		idx_t n = duckdb_data_chunk_get_size(ch);
		if (n == 0) {
			duckdb_destroy_data_chunk(&ch);
			continue;
		}
		keep_chunk(rs, ch);
		rs->nrows += n;
	}
	if (duckdb_result_error(r))
		lb_duckdb_rows_reset(rs);
}

/* ---- moving along --------------------------------------------------------------------------- */

static void enter_chunk(struct duckdb_rows *rs)
{
	duckdb_data_chunk ch = rs->chunks[rs->chunk];

	rs->chunk_rows = duckdb_data_chunk_get_size(ch);
	for (uint32_t i = 0; i < rs->ncols; i++) {
		duckdb_vector v = duckdb_data_chunk_get_vector(ch, i);
		rs->cols[i].data = duckdb_vector_get_data(v);
		rs->cols[i].validity = duckdb_vector_get_validity(v);
	}
}

/* The first row, then each next one; a chunk read to its end is freed. */
static int chunk_next(struct duckdb_rows *rs)
{
	if (!rs->on_row) {
		if (rs->next || rs->nchunks == 0)
			return 0;
		rs->chunk = 0;
		rs->row = 0;
		enter_chunk(rs);
	} else if (++rs->row >= rs->chunk_rows) {
		duckdb_destroy_data_chunk(&rs->chunks[rs->chunk]);
		if (++rs->chunk >= rs->nchunks) {
			rs->on_row = false;
			rs->next = rs->nrows;
			return 0;
		}
		rs->row = 0;
		enter_chunk(rs);
	}
	rs->on_row = true;
	rs->next++;
	return 1;
}

int lb_duckdb_next_row(struct lb_db_conn *c)
{
	return chunk_next(&D(c)->rows);
}

/* ---- values --------------------------------------------------------------------------------- */

static bool cell_valid(const struct duckdb_col *col, uint64_t row)
{
	return !col->unread && (!col->validity || (col->validity[row / 64] >> (row % 64)) & 1);
}

#define AT(col, ctype, row) (((const ctype *)(col)->data)[row])

/* The value of a column of a signed or unsigned integer type up to 128 bits (UHUGEINT aside:
 * it may not fit), also a DECIMAL's stored integer; false for the other types. */
static bool integer_at(const struct duckdb_col *col, uint64_t row, __int128 *v)
{
	switch (col->type) {
	case DUCKDB_TYPE_TINYINT:
		*v = AT(col, int8_t, row);
		return true;
	case DUCKDB_TYPE_SMALLINT:
		*v = AT(col, int16_t, row);
		return true;
	case DUCKDB_TYPE_INTEGER:
		*v = AT(col, int32_t, row);
		return true;
	case DUCKDB_TYPE_BIGINT:
		*v = AT(col, int64_t, row);
		return true;
	case DUCKDB_TYPE_UTINYINT:
		*v = AT(col, uint8_t, row);
		return true;
	case DUCKDB_TYPE_USMALLINT:
		*v = AT(col, uint16_t, row);
		return true;
	case DUCKDB_TYPE_UINTEGER:
		*v = AT(col, uint32_t, row);
		return true;
	case DUCKDB_TYPE_UBIGINT:
		*v = AT(col, uint64_t, row);
		return true;
	case DUCKDB_TYPE_HUGEINT: {
		duckdb_hugeint h = AT(col, duckdb_hugeint, row);
		*v = (__int128)(((unsigned __int128)(uint64_t)h.upper << 64) | h.lower);
		return true;
	}
	default:
		return false;
	}
}

static unsigned __int128 uhugeint_at(const struct duckdb_col *col, uint64_t row)
{
	duckdb_uhugeint h = AT(col, duckdb_uhugeint, row);
	return ((unsigned __int128)h.upper << 64) | h.lower;
}

static const char *string_at(const struct duckdb_col *col, uint64_t row, uint32_t *len)
{
	duckdb_string_t *s = &((duckdb_string_t *)col->data)[row];

	*len = duckdb_string_t_length(*s);
	return duckdb_string_t_data(s);
}

/* A value DuckDB makes text of, for the types whose text is written here by no one else. */
static duckdb_value duckdb_value_at(const struct duckdb_col *col, uint64_t row)
{
	uint32_t len;
	const char *s;

	switch (col->type) {
	case DUCKDB_TYPE_FLOAT:
		return duckdb_create_float(AT(col, float, row));
	case DUCKDB_TYPE_DATE:
		return duckdb_create_date(AT(col, duckdb_date, row));
	case DUCKDB_TYPE_TIMESTAMP:
		return duckdb_create_timestamp(AT(col, duckdb_timestamp, row));
	case DUCKDB_TYPE_TIME:
		return duckdb_create_time(AT(col, duckdb_time, row));
	case DUCKDB_TYPE_INTERVAL:
		return duckdb_create_interval(AT(col, duckdb_interval, row));
	default: /* BLOB */
		s = string_at(col, row, &len);
		return duckdb_create_blob((const uint8_t *)s, len);
	}
}

/* Appends the text of column col's value at row to b; returns its length. */
static size_t append_text(struct lb_db_buf *b, const struct duckdb_col *col, uint64_t row)
{
	char *at;
	size_t n = 0;
	__int128 iv;

	if (col->type == DUCKDB_TYPE_VARCHAR) {
		uint32_t len;
		const char *s = string_at(col, row, &len);
		lb_db_buf_reserve(b, (size_t)len + 1);
		memcpy(b->data + b->len, s, len);
		b->data[b->len + len] = '\0';
		b->len += (size_t)len + 1;
		return len;
	}
	lb_db_buf_reserve(b, LB_DUCKDB_TEXT_BYTES);
	at = b->data + b->len;
	if (integer_at(col, row, &iv)) {
		n = col->decimal ? lb_duckdb_text_decimal(at, iv, col->scale) : lb_duckdb_text_i128(at, iv);
	} else {
		switch (col->type) {
		case DUCKDB_TYPE_BOOLEAN:
			n = AT(col, bool, row) ? 4 : 5;
			memcpy(at, AT(col, bool, row) ? "true" : "false", n + 1);
			break;
		case DUCKDB_TYPE_UHUGEINT:
			n = lb_duckdb_text_u128(at, uhugeint_at(col, row));
			break;
		case DUCKDB_TYPE_DOUBLE:
			n = lb_duckdb_text_double(at, AT(col, double, row));
			break;
		case DUCKDB_TYPE_DATE:
			n = lb_duckdb_text_date(at, AT(col, duckdb_date, row).days);
			break;
		case DUCKDB_TYPE_UUID:
			n = lb_duckdb_text_uuid(at, AT(col, duckdb_hugeint, row).upper, AT(col, duckdb_hugeint, row).lower);
			break;
		default:
			break;
		}
	}
	if (n == 0) {
		/* a type (or a date) whose text DuckDB writes itself; FLOAT: not the shortest text
		 * that reads back, which would be easy to write here */
		duckdb_value v = duckdb_value_at(col, row);
		char *s = duckdb_get_varchar(v);
		n = s ? strlen(s) : 0;
		lb_db_buf_reserve(b, n + 1);
		memcpy(b->data + b->len, s ? s : "", n + 1);
		duckdb_free(s);
		duckdb_destroy_value(&v);
	}
	b->len += n + 1;
	return n;
}

/* The current row as text: NUL-terminated values in one buffer, NULL for SQL NULL. */
static void row_text(struct duckdb_rows *rs, const char **values, uint64_t *lengths)
{
	rs->text.len = 0;
	for (uint32_t i = 0; i < rs->ncols; i++) {
		const struct duckdb_col *col = &rs->cols[i];
		if (!cell_valid(col, rs->row)) {
			rs->text_off[i] = SIZE_MAX;
			lengths[i] = 0;
			continue;
		}
		rs->text_off[i] = rs->text.len;
		lengths[i] = append_text(&rs->text, col, rs->row);
	}
	/* the buffer may have moved while it grew */
	for (uint32_t i = 0; i < rs->ncols; i++)
		values[i] = rs->text_off[i] == SIZE_MAX ? NULL : rs->text.data + rs->text_off[i];
}

int lb_duckdb_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct duckdb_rows *rs = &D(c)->rows;

	if (chunk_next(rs) <= 0)
		return 0;
	row_text(rs, values, lengths);
	return 1;
}

static void value_double(struct lb_db_value *out, double v)
{
	out->type = LB_DB_VALUE_DOUBLE;
	out->f64 = v;
}

/* An integer as INT when it fits 64 bits, else as DOUBLE. */
static void value_integer(struct lb_db_value *out, __int128 v)
{
	if (v >= INT64_MIN && v <= INT64_MAX) {
		out->type = LB_DB_VALUE_INT;
		out->i64 = (int64_t)v;
	} else {
		value_double(out, (double)v);
	}
}

static double pow10_of(uint8_t scale)
{
	double p = 1;
	while (scale--)
		p *= 10;
	return p;
}

static void chunk_value(struct duckdb_rows *rs, const struct duckdb_col *col, struct lb_db_value *out)
{
	uint64_t row = rs->row;
	uint32_t len;
	__int128 iv;

	if (integer_at(col, row, &iv)) {
		if (col->decimal && col->scale)
			value_double(out, (double)iv / pow10_of(col->scale));
		else
			value_integer(out, iv);
		return;
	}
	switch (col->type) {
	case DUCKDB_TYPE_BOOLEAN:
		out->type = LB_DB_VALUE_BOOL;
		out->i64 = AT(col, bool, row);
		return;
	case DUCKDB_TYPE_UHUGEINT: {
		unsigned __int128 u = uhugeint_at(col, row);
		if (u <= INT64_MAX)
			return value_integer(out, (__int128)u);
		return value_double(out, (double)u);
	}
	case DUCKDB_TYPE_FLOAT:
		return value_double(out, AT(col, float, row));
	case DUCKDB_TYPE_DOUBLE:
		return value_double(out, AT(col, double, row));
	case DUCKDB_TYPE_VARCHAR:
	case DUCKDB_TYPE_BLOB:
		out->type = LB_DB_VALUE_TEXT;
		out->str = string_at(col, row, &len);
		out->len = len;
		return;
	default:
		/* dates, times, intervals, UUIDs: their text, as fetch_row gives it (a buffer of its
		 * own: the row fetch_row made text of stays as it is) */
		rs->value_text.len = 0;
		out->len = append_text(&rs->value_text, col, row);
		out->type = LB_DB_VALUE_TEXT;
		out->str = rs->value_text.data;
	}
}

void lb_duckdb_row_value(struct lb_db_conn *c, uint32_t col, struct lb_db_value *out)
{
	struct duckdb_rows *rs = &D(c)->rows;

	if (cell_valid(&rs->cols[col], rs->row))
		chunk_value(rs, &rs->cols[col], out);
}
