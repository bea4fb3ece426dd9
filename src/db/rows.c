/* A result set read whole into one buffer, for drivers whose client library hands rows over one
 * at a time (odbc, sqlite): reading them all when the statement completes gives the row count
 * up front and frees the library's cursor, as the server drivers' stored results do. */
#include "db_int.h"

void lb_db_rows_reset(struct lb_db_rows *r)
{
	r->data.len = 0;
	r->next_row = 0;
}

int64_t *lb_db_rows_cell(struct lb_db_rows *r, uint64_t idx)
{
	if (2 * idx + 2 > r->cells_cap) {
		r->cells_cap = r->cells_cap ? 2 * r->cells_cap : 64;
		while (r->cells_cap < 2 * idx + 2)
			r->cells_cap *= 2;
		r->cells = lb_xrealloc(r->cells, r->cells_cap * sizeof(*r->cells));
	}
	return &r->cells[2 * idx];
}

void lb_db_rows_append(struct lb_db_rows *r, const char *v, size_t len, int64_t *cell)
{
	struct lb_db_buf *b = &r->data;

	if (!v) {
		cell[0] = -1;
		cell[1] = 0;
		return;
	}
	lb_db_buf_reserve(b, len + 1);
	cell[0] = (int64_t)b->len;
	cell[1] = (int64_t)len;
	memcpy(b->data + b->len, v, len);
	b->len += len;
	b->data[b->len++] = '\0';
}

int lb_db_rows_fetch(struct lb_db_rows *r, uint64_t nrows, uint32_t nfields, const char **values,
		     uint64_t *lengths)
{
	if (r->next_row >= nrows)
		return 0;
	const int64_t *cell = &r->cells[2 * r->next_row * nfields];
	for (uint32_t i = 0; i < nfields; i++, cell += 2) {
		values[i] = cell[0] < 0 ? NULL : r->data.data + cell[0];
		lengths[i] = cell[0] < 0 ? 0 : (uint64_t)cell[1];
	}
	r->next_row++;
	return 1;
}

void lb_db_rows_free(struct lb_db_rows *r)
{
	lb_db_buf_free(&r->data);
	free(r->cells);
	memset(r, 0, sizeof(*r));
}
