/* Database options on the command line (sysbench's --db-*, --mysql-*, --pgsql-*) and their
 * translation into the driver layer's connection options. */
#ifndef LB_ENGINE_DBOPTS_H
#define LB_ENGINE_DBOPTS_H

#include "db/driver.h"
#include <stdio.h>

#include "util/opt.h"

int lb_dbopts_register(struct lb_opts *opts, char *err, int errlen);
struct lb_config;
/* Validates the database options and copies what the hot path needs into cfg. */
int lb_dbopts_configure(const struct lb_opts *opts, struct lb_config *cfg, char *err, int errlen);
/* Name of the driver to use when a script asks for the default one (--db-driver). */
const char *lb_dbopts_default_driver(const struct lb_opts *opts);
/* Fills *out for `driver` ("pgsql", "mysql", "null"); pointers borrow from opts. An option the
 * user did not give is left NULL when the client library has its own source for it (libpq's
 * PG* environment variables), so explicit option > environment > sysbench's default. */
void lb_dbopts_build(const struct lb_opts *opts, const char *driver, struct lb_db_options *out);

/* sysbench reads --pgsql-port as an integer when a script's command (not help) is about to run,
 * whichever driver is used, and stops on one that is not: -1 and sysbench's line. A list of
 * integers (luabench's several servers) passes. */
int lb_dbopts_check_script_values(const struct lb_opts *opts, char *err, int errlen);

/* --db-driver=help: the compiled-in drivers. */
void lb_dbopts_print_drivers(FILE *out);
/* A --db-driver given that no driver answers to: -1 and one line naming the drivers there are.
 * (sysbench finds out only when a thread connects.) */
int lb_dbopts_check_driver(const struct lb_opts *opts, char *err, int errlen);

#endif
