/* What a run's result says about where it ran: the process's placement (its CPU set, its control
 * group's limits) and the machine's fingerprint with the storage under the run's data. Read
 * once, at the start of a run (sys/placement.h, sys/machine.h); the clock measured during the
 * run comes with the system metrics. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine.h"
#include "sys/machine.h"
#include "util/opt.h"
#include "util/util.h"

/* The fingerprint costs some hundred small reads: only for a run whose result is written. */
static bool result_wanted(const struct lb_config *c)
{
	return c->output_path || c->format != LB_FORMAT_TEXT;
}

/* The directory whose storage the run measures: fileio's --file-dir, or the directory of an
 * embedded database's file. */
static bool data_dir(const struct lb_engine *e, char *out, size_t len)
{
	const struct lb_opts *o = e->session.opts;
	if (!o)
		return false;
	const char *dir = lb_opts_value(o, "file-dir", NULL);
	if (dir) {
		snprintf(out, len, "%s", dir);
		return true;
	}
	const char *drv = lb_opts_value(o, "db-driver", NULL);
	const char *file = !drv ? NULL : !strcmp(drv, "sqlite") ? lb_opts_value(o, "sqlite-db", NULL)
				 : !strcmp(drv, "duckdb") ? lb_opts_value(o, "duckdb-db", NULL) : NULL;
	if (!file || !strcmp(file, ":memory:"))
		return false;
	char copy[1024];
	snprintf(copy, sizeof(copy), "%s", file);
	snprintf(out, len, "%s", dirname(copy));
	return true;
}

void lb_engine_read_fingerprint(struct lb_engine *e)
{
	lb_place_read_process(&e->proc_place, "/proc");
	if (!result_wanted(&e->session.cfg) || e->machine)
		return;
	e->machine = lb_xzalloc(sizeof(*e->machine));
	lb_machine_read(e->machine, "/proc", "/sys", e->proc_place.first_cpu > 0 ? e->proc_place.first_cpu : 0);
	char dir[1024];
	if (data_dir(e, dir, sizeof(dir)))
		lb_machine_read_storage(e->machine, dir, "/proc", "/sys");
}

/* A local server's data directory, from the settings its monitor read: PostgreSQL's
 * data_directory, MariaDB's and MySQL's datadir. Only a directory this machine has. */
void lb_engine_read_server_storage(struct lb_engine *e)
{
	if (!e->machine || e->machine->have_storage || !e->srvmon)
		return;
	for (int i = 0; i < lb_srvmon_nsettings(e->srvmon); i++) {
		const char *name, *value;
		lb_srvmon_setting(e->srvmon, i, &name, &value);
		struct stat st;
		if ((!strcmp(name, "data_directory") || !strcmp(name, "datadir")) && value && value[0] == '/' &&
		    stat(value, &st) == 0 && S_ISDIR(st.st_mode)) {
			lb_machine_read_storage(e->machine, value, "/proc", "/sys");
			return;
		}
	}
}
