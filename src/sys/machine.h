/* Facts about the machine a run measured, recorded in the result file so that a report or a
 * comparison can say what each result ran on: CPU model and count, memory, kernel, OS. Read once
 * per result from /proc, uname() and /etc/os-release. */
#ifndef LB_SYS_MACHINE_H
#define LB_SYS_MACHINE_H

struct lb_machine {
	char cpu_model[128];  /* "" when /proc/cpuinfo names none */
	int cpus;             /* online CPUs */
	double mem_total_mib; /* 0 when unknown */
	char kernel[128];     /* uname -sr: "Linux 6.1.0-18-amd64" */
	char arch[32];        /* uname -m */
	char os[128];         /* PRETTY_NAME of os-release, "" when absent */
};

/* Fills m; what cannot be read stays empty. proc_root is "/proc" unless a test says otherwise. */
void lb_machine_read(struct lb_machine *m, const char *proc_root);

/* The command line of this process (proc_root/self/cmdline) as one shell-quoted line, with the
 * value of every option whose name contains "password" replaced by "***". NULL when unreadable;
 * the caller frees. */
char *lb_machine_cmdline(const char *proc_root);

#endif
