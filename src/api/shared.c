/* Named objects shared by every Lua state of one run (each state is otherwise isolated): the
 * threads/mutex tests' locks, tickets, and whatever a script shares through luabench.shared().
 * Created on first use under a lock (a cold path); freed with the run's engine. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/ffi.h"
#include "engine/engine.h"
#include "engine/worker.h"
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
	void (*fini)(void *p);
	struct shared_obj *next;
};

struct shared_registry {
	pthread_mutex_t lock;
	struct shared_obj *objs;
};

static void *registry_create(struct lb_engine *e)
{
	struct shared_registry *r = lb_xzalloc(sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	return r;
}

static void registry_destroy(void *state)
{
	struct shared_registry *r = state;
	for (struct shared_obj *o = r->objs, *next; o; o = next) {
		next = o->next;
		if (o->fini)
			o->fini(o->p);
		free(o->p);
		free(o->name);
		free(o);
	}
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static const struct lb_ext_kind registry_kind = { "shared objects", registry_create, registry_destroy };

static struct shared_obj *find(struct shared_registry *r, const char *name)
{
	for (struct shared_obj *o = r->objs; o; o = o->next)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static void *get_or_create(struct lb_worker *w, const char *name, uint64_t size,
			   void (*init)(void *p, uint64_t n), void (*fini)(void *p), uint64_t n)
{
	struct shared_registry *r = lb_engine_ext(w->eng, &registry_kind);
	pthread_mutex_lock(&r->lock);
	struct shared_obj *o = find(r, name);
	void *p = NULL;
	if (o) {
		p = o->size == size ? o->p : NULL;
	} else {
		o = lb_xzalloc(sizeof(*o));
		o->name = lb_xstrdup(name);
		o->size = size;
		o->fini = fini;
		if (posix_memalign(&o->p, LB_CACHELINE, size ? size : 1) == 0) {
			memset(o->p, 0, size);
			if (init)
				init(o->p, n);
			o->next = r->objs;
			r->objs = o;
			p = o->p;
		} else {
			free(o->name);
			free(o);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return p;
}

LB_FFI void *lb_shared_bytes(struct lb_worker *w, const char *name, uint64_t size)
{
	return get_or_create(w, name, size, NULL, NULL, 0);
}

static void init_mutexes(void *p, uint64_t n)
{
	struct lb_mutexes *m = p;
	m->n = (uint32_t)n;
	for (uint32_t i = 0; i < m->n; i++)
		pthread_mutex_init(&m->m[i], NULL);
}

static void fini_mutexes(void *p)
{
	struct lb_mutexes *m = p;
	for (uint32_t i = 0; i < m->n; i++)
		pthread_mutex_destroy(&m->m[i]);
}

LB_FFI struct lb_mutexes *lb_shared_mutexes(struct lb_worker *w, const char *name, uint32_t n)
{
	if (!n)
		return NULL;
	uint64_t size = sizeof(struct lb_mutexes) + (uint64_t)n * sizeof(pthread_mutex_t);
	return get_or_create(w, name, size, init_mutexes, fini_mutexes, n);
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
