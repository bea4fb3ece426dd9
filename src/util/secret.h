/* Telling secrets on a command line: options named *password* hide their whole value, and a
 * connection string (--odbc-connection-string) hides the value of its PWD= / PASSWORD= keys. */
#ifndef LB_UTIL_SECRET_H
#define LB_UTIL_SECRET_H

#include <stdbool.h>
#include <stddef.h>

/* The option name (without "--", up to its '=' or end) holds its whole value secret. */
bool lb_secret_option(const char *name, size_t len);
/* The option's value is a connection string whose password keys are secret. */
bool lb_secret_conn_string_option(const char *name, size_t len);
/* Overwrites, in place, the value of every PWD=/PASSWORD= key of a connection string with 'x'
 * (the string keeps its length: it may be the process's argv). */
void lb_secret_mask_conn_string(char *s);
/* A copy of the connection string with those values replaced by "***"; free() it. */
char *lb_secret_conn_string_masked(const char *s);

#endif
