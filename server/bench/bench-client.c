/* bench-client: the client of pmix-server's benchmark. Times, in microseconds (median of
 * the iterations): PMIx_Init; a PMIx_Get that goes to the server (a key the next rank never
 * put: the client asks the server each time, the server sends that rank's data, the key is
 * not in it; PMIX_IMMEDIATE, so that neither server waits for it to appear); a fence without data; a fence collecting data (after a put and
 * commit each time). Rank 0 prints one line:
 *   BENCH n=N init=US get=US fence=US fence_collect=US
 *   bench-client ITERATIONS
 *   gcc -O2 -o bench-client bench-client.c $(pkg-config --cflags --libs pmix) */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    pmix_proc_t me, wild, next;
    pmix_value_t val, *v;
    pmix_info_t info;
    pmix_status_t rc;
    bool yes = true;
    int iters = argc > 1 ? atoi(argv[1]) : 50, i;
    double t0, init, *t = calloc(iters, sizeof(double)), get, fence, fence_collect;
    uint32_t size;
    uint64_t x;

    t0 = now_us();
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "bench: init %s\n", PMIx_Error_string(rc));
        return 2;
    }
    init = now_us() - t0;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) return 3;
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    x = me.rank;
    PMIX_VALUE_LOAD(&val, &x, PMIX_UINT64);
    PMIx_Put(PMIX_GLOBAL, "b.val", &val);
    PMIx_Commit();
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != PMIx_Fence(&wild, 1, &info, 1)) return 4;

    PMIX_LOAD_PROCID(&next, me.nspace, (me.rank + 1) % size);
    if (PMIX_SUCCESS != PMIx_Get(&next, "b.val", NULL, 0, &v) || v->data.uint64 != next.rank) {
        fprintf(stderr, "bench: get of the next rank's value failed\n");
        return 5;
    }
    PMIX_VALUE_RELEASE(v);
    PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    for (i = 0; i < iters; i++) {
        t0 = now_us();
        rc = PMIx_Get(&next, "b.miss", &info, 1, &v);
        t[i] = now_us() - t0;
        if (PMIX_ERR_NOT_FOUND != rc) {
            fprintf(stderr, "bench: get of a missing key: %s\n", PMIx_Error_string(rc));
            return 5;
        }
    }
    get = median(t, iters);
    for (i = 0; i < iters; i++) {
        t0 = now_us();
        if (PMIX_SUCCESS != PMIx_Fence(&wild, 1, NULL, 0)) return 6;
        t[i] = now_us() - t0;
    }
    fence = median(t, iters);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    for (i = 0; i < iters; i++) {
        x = me.rank + i;
        PMIX_VALUE_LOAD(&val, &x, PMIX_UINT64);
        PMIx_Put(PMIX_GLOBAL, "b.val", &val);
        PMIx_Commit();
        t0 = now_us();
        if (PMIX_SUCCESS != PMIx_Fence(&wild, 1, &info, 1)) return 7;
        t[i] = now_us() - t0;
    }
    fence_collect = median(t, iters);
    if (0 == me.rank) {
        printf("BENCH n=%u init=%.0f get=%.1f fence=%.1f fence_collect=%.1f\n", size, init, get,
               fence, fence_collect);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
