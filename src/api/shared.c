/* Named objects shared by every Lua state of the process (each state is otherwise isolated):
 * the blocks behind the memory test's global scope, the threads/mutex tests' locks, and
 * whatever a script wants to share through luabench.shared(). Created on first use under a
 * lock (a cold path) and kept until the process exits. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/ffi.h"
#include "util/util.h"

struct lb_mutexes {
	uint32_t n;
	uint64_t shared_counter;
	pthread_mutex_t m[];
};

struct shared_obj {
	char *name;
	uint64_t size;
	void *p;
	struct shared_obj *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_obj *registry;

static struct shared_obj *find(const char *name)
{
	for (struct shared_obj *o = registry; o; o = o->next)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static void *get_or_create(const char *name, uint64_t size, void (*init)(void *p, uint64_t n),
			   uint64_t n)
{
	pthread_mutex_lock(&registry_lock);
	struct shared_obj *o = find(name);
	void *p = NULL;
	if (o) {
		p = o->size == size ? o->p : NULL;
	} else {
		o = lb_xzalloc(sizeof(*o));
		o->name = lb_xstrdup(name);
		o->size = size;
		if (posix_memalign(&o->p, LB_CACHELINE, size ? size : 1) == 0) {
			memset(o->p, 0, size);
			if (init)
				init(o->p, n);
			o->next = registry;
			registry = o;
			p = o->p;
		} else {
			free(o->name);
			free(o);
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return p;
}

LB_FFI void *lb_shared_bytes(const char *name, uint64_t size)
{
	return get_or_create(name, size, NULL, 0);
}

static void init_mutexes(void *p, uint64_t n)
{
	struct lb_mutexes *m = p;
	m->n = (uint32_t)n;
	for (uint32_t i = 0; i < m->n; i++)
		pthread_mutex_init(&m->m[i], NULL);
}

LB_FFI struct lb_mutexes *lb_shared_mutexes(const char *name, uint32_t n)
{
	if (!n)
		return NULL;
	uint64_t size = sizeof(struct lb_mutexes) + (uint64_t)n * sizeof(pthread_mutex_t);
	return get_or_create(name, size, init_mutexes, n);
}

LB_FFI uint64_t lb_atomic_add(uint64_t *p, uint64_t v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

LB_FFI uint64_t lb_atomic_load(uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

LB_FFI uint64_t lb_atomic_cas(uint64_t *p, uint64_t expected, uint64_t desired)
{
	__atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return expected;
}

/* Used by kernels.c, which knows the layout. */
pthread_mutex_t *lb_mutexes_at(struct lb_mutexes *m, uint32_t i);
uint64_t *lb_mutexes_counter(struct lb_mutexes *m);

pthread_mutex_t *lb_mutexes_at(struct lb_mutexes *m, uint32_t i)
{
	return &m->m[i % m->n];
}

uint64_t *lb_mutexes_counter(struct lb_mutexes *m)
{
	return &m->shared_counter;
}
