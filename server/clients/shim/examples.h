/* Our own stand-in for the "examples.h" that OpenPMIx's example programs include and that
 * Debian's libpmix-dev does not ship (/usr/share/doc/libpmix-dev/examples/). It provides
 * only what those programs use: a lock that one thread waits on until another wakes it,
 * carrying a status, and a release object holding such a lock. Written for pmix-server's
 * test of an independently written client; no OpenPMIx code. */
#ifndef PMIX_SERVER_EXAMPLES_SHIM_H
#define PMIX_SERVER_EXAMPLES_SHIM_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <pmix.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    volatile bool active;
    pmix_status_t status;
    size_t evhandler_ref;
    int count;
} mylock_t;

typedef struct {
    mylock_t lock;
    char *nspace;
    int exit_code;
    bool exit_code_given;
} myrel_t;

#define DEBUG_CONSTRUCT_LOCK(l)                      \
    do {                                             \
        pthread_mutex_init(&(l)->mutex, NULL);       \
        pthread_cond_init(&(l)->cond, NULL);         \
        (l)->active = true;                          \
        (l)->status = PMIX_SUCCESS;                  \
        (l)->evhandler_ref = 0;                      \
        (l)->count = 0;                              \
    } while (0)

#define DEBUG_DESTRUCT_LOCK(l)                       \
    do {                                             \
        pthread_mutex_destroy(&(l)->mutex);          \
        pthread_cond_destroy(&(l)->cond);            \
    } while (0)

#define DEBUG_WAIT_THREAD(l)                                  \
    do {                                                      \
        pthread_mutex_lock(&(l)->mutex);                      \
        while ((l)->active) {                                 \
            pthread_cond_wait(&(l)->cond, &(l)->mutex);       \
        }                                                     \
        pthread_mutex_unlock(&(l)->mutex);                    \
    } while (0)

#define DEBUG_WAKEUP_THREAD(l)                       \
    do {                                             \
        pthread_mutex_lock(&(l)->mutex);             \
        (l)->active = false;                         \
        pthread_cond_broadcast(&(l)->cond);          \
        pthread_mutex_unlock(&(l)->mutex);           \
    } while (0)

#define DEBUG_CONSTRUCT_MYREL(r)                     \
    do {                                             \
        DEBUG_CONSTRUCT_LOCK(&(r)->lock);            \
        (r)->nspace = NULL;                          \
        (r)->exit_code = 0;                          \
        (r)->exit_code_given = false;                \
    } while (0)

#define DEBUG_DESTRUCT_MYREL(r) DEBUG_DESTRUCT_LOCK(&(r)->lock)

#define EXAMPLES_HIDE_UNUSED_PARAMS(...)             \
    do {                                             \
        (void) examples_hide_unused_params(0, __VA_ARGS__); \
    } while (0)

static inline int examples_hide_unused_params(int x, ...) { return x; }

#endif
