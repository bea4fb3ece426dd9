/* DuckDB's C API, reached through the library loaded when the duckdb driver is first used
 * (duckdb_api.c), not linked: libduckdb.so is 70 MB with 11 KiB of thread-local storage, which
 * every thread of every run paid for (13 MB and 14 KiB a thread at start-up) whether it used
 * DuckDB or not. The driver's files include this header instead of <duckdb.h>; their calls keep
 * DuckDB's names, which the macros below send through the loaded functions. A function missing
 * from LB_DUCKDB_FUNCTIONS fails the link (nothing else defines it), one missing from the
 * macros fails the build (its member has no other name). */
#ifndef LB_DB_DUCKDB_DUCKDB_API_H
#define LB_DB_DUCKDB_DUCKDB_API_H

#include <stddef.h>

#include <duckdb.h>

#define LB_DUCKDB_FUNCTIONS(X) \
	X(duckdb_append_null) X(duckdb_append_varchar_length) X(duckdb_appender_add_column) \
	X(duckdb_appender_close) X(duckdb_appender_create) X(duckdb_appender_destroy) \
	X(duckdb_appender_end_row) X(duckdb_appender_error_data) X(duckdb_bind_double) \
	X(duckdb_bind_int64) X(duckdb_bind_null) X(duckdb_bind_varchar_length) X(duckdb_close) \
	X(duckdb_column_count) X(duckdb_column_logical_type) X(duckdb_column_type) \
	X(duckdb_connect) X(duckdb_create_blob) X(duckdb_create_config) X(duckdb_create_date) \
	X(duckdb_create_float) X(duckdb_create_instance_cache) X(duckdb_create_interval) \
	X(duckdb_create_time) X(duckdb_create_timestamp) X(duckdb_data_chunk_get_size) \
	X(duckdb_data_chunk_get_vector) X(duckdb_decimal_internal_type) \
	X(duckdb_decimal_scale) X(duckdb_destroy_config) X(duckdb_destroy_data_chunk) \
	X(duckdb_destroy_error_data) X(duckdb_destroy_extracted) \
	X(duckdb_destroy_logical_type) X(duckdb_destroy_pending) X(duckdb_destroy_prepare) \
	X(duckdb_destroy_result) X(duckdb_destroy_value) X(duckdb_disconnect) \
	X(duckdb_error_data_error_type) X(duckdb_error_data_message) X(duckdb_execute_pending) \
	X(duckdb_execute_prepared) X(duckdb_extract_statements) X(duckdb_fetch_chunk) \
	X(duckdb_free) X(duckdb_get_or_create_from_cache) X(duckdb_get_varchar) \
	X(duckdb_interrupt) X(duckdb_library_version) X(duckdb_pending_prepared_streaming) \
	X(duckdb_prepare) X(duckdb_prepare_error) X(duckdb_prepare_extracted_statement) \
	X(duckdb_prepared_statement_type) X(duckdb_query) X(duckdb_result_error) \
	X(duckdb_result_error_type) X(duckdb_result_statement_type) X(duckdb_rows_changed) \
	X(duckdb_set_config) X(duckdb_string_t_data) X(duckdb_string_t_length) \
	X(duckdb_value_varchar) X(duckdb_vector_get_data) X(duckdb_vector_get_validity)

struct lb_duckdb_api {
#define LB_DUCKDB_MEMBER(f) __typeof__(f) *f;
	LB_DUCKDB_FUNCTIONS(LB_DUCKDB_MEMBER)
#undef LB_DUCKDB_MEMBER
};

/* Loads DuckDB's library once per process (LUABENCH_DUCKDB_LIB, else the one the build found):
 * 0, or -1 with the reason in err. Every later call returns the first one's outcome. */
int lb_duckdb_load(char *err, size_t errlen);
/* The loaded functions; valid once lb_duckdb_load returned 0. */
extern const struct lb_duckdb_api *lb_duckdb_api;

/* (duckdb_api.c resolves the functions by their own names) */
#ifndef LB_DUCKDB_API_LOADER
#define duckdb_append_null (lb_duckdb_api->duckdb_append_null)
#define duckdb_append_varchar_length (lb_duckdb_api->duckdb_append_varchar_length)
#define duckdb_appender_add_column (lb_duckdb_api->duckdb_appender_add_column)
#define duckdb_appender_close (lb_duckdb_api->duckdb_appender_close)
#define duckdb_appender_create (lb_duckdb_api->duckdb_appender_create)
#define duckdb_appender_destroy (lb_duckdb_api->duckdb_appender_destroy)
#define duckdb_appender_end_row (lb_duckdb_api->duckdb_appender_end_row)
#define duckdb_appender_error_data (lb_duckdb_api->duckdb_appender_error_data)
#define duckdb_bind_double (lb_duckdb_api->duckdb_bind_double)
#define duckdb_bind_int64 (lb_duckdb_api->duckdb_bind_int64)
#define duckdb_bind_null (lb_duckdb_api->duckdb_bind_null)
#define duckdb_bind_varchar_length (lb_duckdb_api->duckdb_bind_varchar_length)
#define duckdb_close (lb_duckdb_api->duckdb_close)
#define duckdb_column_count (lb_duckdb_api->duckdb_column_count)
#define duckdb_column_logical_type (lb_duckdb_api->duckdb_column_logical_type)
#define duckdb_column_type (lb_duckdb_api->duckdb_column_type)
#define duckdb_connect (lb_duckdb_api->duckdb_connect)
#define duckdb_create_blob (lb_duckdb_api->duckdb_create_blob)
#define duckdb_create_config (lb_duckdb_api->duckdb_create_config)
#define duckdb_create_date (lb_duckdb_api->duckdb_create_date)
#define duckdb_create_float (lb_duckdb_api->duckdb_create_float)
#define duckdb_create_instance_cache (lb_duckdb_api->duckdb_create_instance_cache)
#define duckdb_create_interval (lb_duckdb_api->duckdb_create_interval)
#define duckdb_create_time (lb_duckdb_api->duckdb_create_time)
#define duckdb_create_timestamp (lb_duckdb_api->duckdb_create_timestamp)
#define duckdb_data_chunk_get_size (lb_duckdb_api->duckdb_data_chunk_get_size)
#define duckdb_data_chunk_get_vector (lb_duckdb_api->duckdb_data_chunk_get_vector)
#define duckdb_decimal_internal_type (lb_duckdb_api->duckdb_decimal_internal_type)
#define duckdb_decimal_scale (lb_duckdb_api->duckdb_decimal_scale)
#define duckdb_destroy_config (lb_duckdb_api->duckdb_destroy_config)
#define duckdb_destroy_data_chunk (lb_duckdb_api->duckdb_destroy_data_chunk)
#define duckdb_destroy_error_data (lb_duckdb_api->duckdb_destroy_error_data)
#define duckdb_destroy_extracted (lb_duckdb_api->duckdb_destroy_extracted)
#define duckdb_destroy_logical_type (lb_duckdb_api->duckdb_destroy_logical_type)
#define duckdb_destroy_pending (lb_duckdb_api->duckdb_destroy_pending)
#define duckdb_destroy_prepare (lb_duckdb_api->duckdb_destroy_prepare)
#define duckdb_destroy_result (lb_duckdb_api->duckdb_destroy_result)
#define duckdb_destroy_value (lb_duckdb_api->duckdb_destroy_value)
#define duckdb_disconnect (lb_duckdb_api->duckdb_disconnect)
#define duckdb_error_data_error_type (lb_duckdb_api->duckdb_error_data_error_type)
#define duckdb_error_data_message (lb_duckdb_api->duckdb_error_data_message)
#define duckdb_execute_pending (lb_duckdb_api->duckdb_execute_pending)
#define duckdb_execute_prepared (lb_duckdb_api->duckdb_execute_prepared)
#define duckdb_extract_statements (lb_duckdb_api->duckdb_extract_statements)
#define duckdb_fetch_chunk (lb_duckdb_api->duckdb_fetch_chunk)
#define duckdb_free (lb_duckdb_api->duckdb_free)
#define duckdb_get_or_create_from_cache (lb_duckdb_api->duckdb_get_or_create_from_cache)
#define duckdb_get_varchar (lb_duckdb_api->duckdb_get_varchar)
#define duckdb_interrupt (lb_duckdb_api->duckdb_interrupt)
#define duckdb_library_version (lb_duckdb_api->duckdb_library_version)
#define duckdb_pending_prepared_streaming (lb_duckdb_api->duckdb_pending_prepared_streaming)
#define duckdb_prepare (lb_duckdb_api->duckdb_prepare)
#define duckdb_prepare_error (lb_duckdb_api->duckdb_prepare_error)
#define duckdb_prepare_extracted_statement (lb_duckdb_api->duckdb_prepare_extracted_statement)
#define duckdb_prepared_statement_type (lb_duckdb_api->duckdb_prepared_statement_type)
#define duckdb_query (lb_duckdb_api->duckdb_query)
#define duckdb_result_error (lb_duckdb_api->duckdb_result_error)
#define duckdb_result_error_type (lb_duckdb_api->duckdb_result_error_type)
#define duckdb_result_statement_type (lb_duckdb_api->duckdb_result_statement_type)
#define duckdb_rows_changed (lb_duckdb_api->duckdb_rows_changed)
#define duckdb_set_config (lb_duckdb_api->duckdb_set_config)
#define duckdb_string_t_data (lb_duckdb_api->duckdb_string_t_data)
#define duckdb_string_t_length (lb_duckdb_api->duckdb_string_t_length)
#define duckdb_value_varchar (lb_duckdb_api->duckdb_value_varchar)
#define duckdb_vector_get_data (lb_duckdb_api->duckdb_vector_get_data)
#define duckdb_vector_get_validity (lb_duckdb_api->duckdb_vector_get_validity)
#endif

#endif
