/* `sysbench --help` in the sysbench personality: sysbench 1.0.20's usage text, line for line.
 * It is interface, like the option names: harnesses and people compare it. luabench's own
 * options are accepted in this personality too; `luabench --help` lists them. */
#include "output/personality.h"

#include <string.h>

static const char usage_text[] =
	"Usage:\n"
	"  sysbench [options]... [testname] [command]\n"
	"\n"
	"Commands implemented by most tests: prepare run cleanup help\n"
	"\n"
	"General options:\n"
	"  --threads=N                     number of threads to use [1]\n"
	"  --events=N                      limit for total number of events [0]\n"
	"  --time=N                        limit for total execution time in seconds [10]\n"
	"  --forced-shutdown=STRING        number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable [off]\n"
	"  --thread-stack-size=SIZE        size of stack per thread [64K]\n"
	"  --rate=N                        average transactions rate. 0 for unlimited rate [0]\n"
	"  --report-interval=N             periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports [0]\n"
	"  --report-checkpoints=[LIST,...] dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default. []\n"
	"  --debug[=on|off]                print more debugging info [off]\n"
	"  --validate[=on|off]             perform validation checks where possible [off]\n"
	"  --help[=on|off]                 print help and exit [off]\n"
	"  --version[=on|off]              print version and exit [off]\n"
	"  --config-file=FILENAME          File containing command line options\n"
	"  --tx-rate=N                     deprecated alias for --rate [0]\n"
	"  --max-requests=N                deprecated alias for --events [0]\n"
	"  --max-time=N                    deprecated alias for --time [0]\n"
	"  --num-threads=N                 deprecated alias for --threads [1]\n"
	"\n"
	"Pseudo-Random Numbers Generator options:\n"
	"  --rand-type=STRING random numbers distribution {uniform,gaussian,special,pareto} [special]\n"
	"  --rand-spec-iter=N number of iterations used for numbers generation [12]\n"
	"  --rand-spec-pct=N  percentage of values to be treated as 'special' (for special distribution) [1]\n"
	"  --rand-spec-res=N  percentage of 'special' values to use (for special distribution) [75]\n"
	"  --rand-seed=N      seed for random number generator. When 0, the current time is used as a RNG seed. [0]\n"
	"  --rand-pareto-h=N  parameter h for pareto distribution [0.2]\n"
	"\n"
	"Log options:\n"
	"  --verbosity=N verbosity level {5 - debug, 0 - only critical messages} [3]\n"
	"\n"
	"  --percentile=N       percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations [95]\n"
	"  --histogram[=on|off] print latency histogram in report [off]\n"
	"\n"
	"General database options:\n"
	"\n"
	"  --db-driver=STRING  specifies database driver to use ('help' to get list of available drivers) [mysql]\n"
	"  --db-ps-mode=STRING prepared statements usage mode {auto, disable} [auto]\n"
	"  --db-debug[=on|off] print database-specific debug information [off]\n"
	"\n"
	"\n"
	"Compiled-in database drivers:\n"
	"  mysql - MySQL driver\n"
	"  pgsql - PostgreSQL driver\n"
	"\n"
	"mysql options:\n"
	"  --mysql-host=[LIST,...]          MySQL server host [localhost]\n"
	"  --mysql-port=[LIST,...]          MySQL server port [3306]\n"
	"  --mysql-socket=[LIST,...]        MySQL socket\n"
	"  --mysql-user=STRING              MySQL user [sbtest]\n"
	"  --mysql-password=STRING          MySQL password []\n"
	"  --mysql-db=STRING                MySQL database name [sbtest]\n"
	"  --mysql-ssl[=on|off]             use SSL connections, if available in the client library [off]\n"
	"  --mysql-ssl-cipher=STRING        use specific cipher for SSL connections []\n"
	"  --mysql-compression[=on|off]     use compression, if available in the client library [off]\n"
	"  --mysql-debug[=on|off]           trace all client library calls [off]\n"
	"  --mysql-ignore-errors=[LIST,...] list of errors to ignore, or \"all\" [1213,1020,1205]\n"
	"  --mysql-dry-run[=on|off]         Dry run, pretend that all MySQL client API calls are successful without executing them [off]\n"
	"\n"
	"pgsql options:\n"
	"  --pgsql-host=STRING     PostgreSQL server host [localhost]\n"
	"  --pgsql-port=N          PostgreSQL server port [5432]\n"
	"  --pgsql-user=STRING     PostgreSQL user [sbtest]\n"
	"  --pgsql-password=STRING PostgreSQL password []\n"
	"  --pgsql-db=STRING       PostgreSQL database name [sbtest]\n"
	"\n"
	"Compiled-in tests:\n"
	"  fileio - File I/O test\n"
	"  cpu - CPU performance test\n"
	"  memory - Memory functions speed test\n"
	"  threads - Threads subsystem performance test\n"
	"  mutex - Mutex performance test\n"
	"\n"
	"See 'sysbench <testname> help' for a list of options for each test.\n"
	"\n";

void lb_personality_sysbench_usage(FILE *out)
{
	fputs(usage_text, out);
}

/* `sysbench TEST help` of the tests sysbench 1.0.20 compiles in: their options in declaration
 * order with sysbench's wording (luabench's workloads list their own, and more). */
static const struct {
	const char *test, *text;
} test_help[] = {
	{ "fileio",
	"fileio options:\n"
	"  --file-num=N                  number of files to create [128]\n"
	"  --file-block-size=N           block size to use in all IO operations [16384]\n"
	"  --file-total-size=SIZE        total size of files to create [2G]\n"
	"  --file-test-mode=STRING       test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}\n"
	"  --file-io-mode=STRING         file operations mode {sync,async,mmap} [sync]\n"
	"  --file-async-backlog=N        number of asynchronous operatons to queue per thread [128]\n"
	"  --file-extra-flags=[LIST,...] list of additional flags to use to open files {sync,dsync,direct} []\n"
	"  --file-fsync-freq=N           do fsync() after this number of requests (0 - don't use fsync()) [100]\n"
	"  --file-fsync-all[=on|off]     do fsync() after each write operation [off]\n"
	"  --file-fsync-end[=on|off]     do fsync() at the end of test [on]\n"
	"  --file-fsync-mode=STRING      which method to use for synchronization {fsync, fdatasync} [fsync]\n"
	"  --file-merged-requests=N      merge at most this number of IO requests if possible (0 - don't merge) [0]\n"
	"  --file-rw-ratio=N             reads/writes ratio for combined test [1.5]\n"
	"\n" },
	{ "cpu",
	"cpu options:\n"
	"  --cpu-max-prime=N upper limit for primes generator [10000]\n"
	"\n" },
	{ "memory",
	"memory options:\n"
	"  --memory-block-size=SIZE    size of memory block for test [1K]\n"
	"  --memory-total-size=SIZE    total size of data to transfer [100G]\n"
	"  --memory-scope=STRING       memory access scope {global,local} [global]\n"
	"  --memory-hugetlb[=on|off]   allocate memory from HugeTLB pool [off]\n"
	"  --memory-oper=STRING        type of memory operations {read, write, none} [write]\n"
	"  --memory-access-mode=STRING memory access mode {seq,rnd} [seq]\n"
	"\n" },
	{ "threads",
	"threads options:\n"
	"  --thread-yields=N number of yields to do per request [1000]\n"
	"  --thread-locks=N  number of locks per thread [8]\n"
	"\n" },
	{ "mutex",
	"mutex options:\n"
	"  --mutex-num=N   total size of mutex array [4096]\n"
	"  --mutex-locks=N number of mutex locks to do per thread [50000]\n"
	"  --mutex-loops=N number of empty loops to do outside mutex lock [10000]\n"
	"\n" },
};

const char *lb_personality_sysbench_test_help_text(const char *test)
{
	for (size_t i = 0; i < sizeof(test_help) / sizeof(test_help[0]); i++)
		if (!strcmp(test_help[i].test, test))
			return test_help[i].text;
	return NULL;
}

bool lb_personality_sysbench_test_help(const char *test, FILE *out)
{
	const char *text = lb_personality_sysbench_test_help_text(test);
	if (text)
		fputs(text, out);
	return text != NULL;
}
