/* A PMIx client of our own for pmix-server's tests: init, job-info gets, put of values of
 * several type classes (the last a data array of VALUEs, which v20 cannot carry), commit, fence (collecting data or not), get of every other rank's
 * values, allocation request, finalize. Prints one line per step; exits 0 only if every
 * check held. Builds against any OpenPMIx release from 4.2 on:
 *   gcc -Wall -Werror -o client client.c $(pkg-config --cflags --libs pmix)
 * Usage: client [collect|nocollect|abort|die]
 *   abort: rank 0 calls PMIx_Abort(3, ...) after init; the others wait in a fence
 *   die:   rank 1 exits with 5 after init, without finalizing; rank 0's fence must then
 *          fail (the server cleans up the lost connection) and rank 0 exits 0 if it did */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            fprintf(stderr, "client %u: FAIL: ", me.rank); \
            fprintf(stderr, __VA_ARGS__);                 \
            fprintf(stderr, "\n");                        \
            failures++;                                   \
        }                                                 \
    } while (0)

static pmix_proc_t me;

static uint32_t get_u32(const pmix_proc_t *p, const char *key, int *ok)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    uint32_t out = 0;
    *ok = 0;
    if (PMIX_SUCCESS != rc || NULL == v) {
        fprintf(stderr, "client %u: get %s -> %s\n", me.rank, key, PMIx_Error_string(rc));
        return 0;
    }
    switch (v->type) {
    case PMIX_UINT32: out = v->data.uint32; *ok = 1; break;
    case PMIX_UINT16: out = v->data.uint16; *ok = 1; break;
    case PMIX_PROC_RANK: out = v->data.rank; *ok = 1; break;
    case PMIX_INT: out = (uint32_t) v->data.integer; *ok = 1; break;
    default: fprintf(stderr, "client %u: %s has type %d\n", me.rank, key, v->type);
    }
    PMIX_VALUE_RELEASE(v);
    return out;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    pmix_proc_t wild, peer;
    pmix_value_t val, *v;
    pmix_info_t info;
    bool collect = !(argc > 1 && 0 == strcmp(argv[1], "nocollect")), yes = true;
    uint32_t size, lsize, r;
    int ok;
    char sval[64];
    /* the launcher forces a component by setting its URI variable alone: v20 is
     * PMIX_SERVER_URI2 without the newer ones */
    bool v20 = NULL != getenv("PMIX_SERVER_URI2") && NULL == getenv("PMIX_SERVER_URI21");

    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "client: PMIx_Init -> %s\n", PMIx_Error_string(rc));
        return 2;
    }
    printf("client %u: init ok in %s (library %s)\n", me.rank, me.nspace, PMIx_Get_version());
    fflush(stdout);
    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (argc > 1 && 0 == strcmp(argv[1], "abort")) {
        if (0 == me.rank) {
            rc = PMIx_Abort(3, "client test abort", NULL, 0);
            printf("client 0: PMIx_Abort returned %s\n", PMIx_Error_string(rc));
            return 3;
        }
        rc = PMIx_Fence(&wild, 1, NULL, 0);
        printf("client %u: fence after abort -> %s\n", me.rank, PMIx_Error_string(rc));
        return 4;
    }
    if (argc > 1 && 0 == strcmp(argv[1], "die")) {
        if (1 == me.rank) {
            _exit(5);
        }
        rc = PMIx_Fence(&wild, 1, NULL, 0);
        printf("client %u: fence with a lost peer -> %s\n", me.rank, PMIx_Error_string(rc));
        fflush(stdout);
        PMIx_Finalize(NULL, 0);
        return PMIX_SUCCESS == rc ? 1 : 0;
    }
    size = get_u32(&wild, PMIX_JOB_SIZE, &ok);
    CHECK(ok && size >= 1, "job size");
    lsize = get_u32(&wild, PMIX_LOCAL_SIZE, &ok);
    CHECK(ok && lsize == size, "local size %u of job size %u", lsize, size);
    r = get_u32(&me, PMIX_LOCAL_RANK, &ok);
    CHECK(ok && r == me.rank, "local rank %u", r);
    rc = PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && PMIX_STRING == v->type, "hostname: %s", PMIx_Error_string(rc));
    if (PMIX_SUCCESS == rc) {
        PMIX_VALUE_RELEASE(v);
    }

    /* put one value of each class: string, integers of two widths, a double, a bool, a
     * byte object, a proc */
    snprintf(sval, sizeof(sval), "hello from %u", me.rank);
    PMIX_VALUE_LOAD(&val, sval, PMIX_STRING);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "t.str", &val), "put str");
    PMIX_VALUE_DESTRUCT(&val);
    uint32_t u32 = 1000 + me.rank;
    PMIX_VALUE_LOAD(&val, &u32, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_LOCAL, "t.u32", &val), "put u32");
    int64_t i64 = -5000000000LL - me.rank;
    PMIX_VALUE_LOAD(&val, &i64, PMIX_INT64);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_REMOTE, "t.i64", &val), "put i64");
    double d = 0.5 + me.rank;
    PMIX_VALUE_LOAD(&val, &d, PMIX_DOUBLE);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "t.dbl", &val), "put double");
    bool b = (me.rank % 2) == 1;
    PMIX_VALUE_LOAD(&val, &b, PMIX_BOOL);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "t.bool", &val), "put bool");
    pmix_byte_object_t bo;
    char blob[5] = {1, 0, 2, (char) me.rank, 3};
    bo.bytes = blob;
    bo.size = sizeof(blob);
    PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "t.bo", &val), "put byte object");
    PMIX_VALUE_DESTRUCT(&val);
    PMIX_VALUE_LOAD(&val, &me, PMIX_PROC);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "t.proc", &val), "put proc");
    PMIX_VALUE_DESTRUCT(&val);
    /* last, a data array of two VALUEs (a string and a uint16): the v20 unpacker of every
     * release refuses an array of VALUE (PMIX_ERR_NOT_SUPPORTED), so in v20 the server
     * keeps the keys before it, answers the commit with that status (which PMIx_Commit
     * does not return), and the other ranks never see t.vals (a plain OpenPMIx server
     * does the same) */
    pmix_value_t *pair;
    uint16_t u16 = 700 + me.rank;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_DATA_ARRAY;
    PMIX_DATA_ARRAY_CREATE(val.data.darray, 2, PMIX_VALUE);
    pair = (pmix_value_t *) val.data.darray->array;
    PMIX_VALUE_LOAD(&pair[0], "a value in an array", PMIX_STRING);
    PMIX_VALUE_LOAD(&pair[1], &u16, PMIX_UINT16);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "t.vals", &val), "put data array of values");
    PMIX_VALUE_DESTRUCT(&val);
    /* in v20 too: the client library does not hand the server's status on */
    rc = PMIx_Commit();
    CHECK(PMIX_SUCCESS == rc, "commit: %s", PMIx_Error_string(rc));

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    CHECK(PMIX_SUCCESS == rc, "fence: %s", PMIx_Error_string(rc));
    printf("client %u: fence (%s) -> %s\n", me.rank, collect ? "collect" : "no collect",
           PMIx_Error_string(rc));

    for (r = 0; r < size; r++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        snprintf(sval, sizeof(sval), "hello from %u", r);
        rc = PMIx_Get(&peer, "t.str", NULL, 0, &v);
        CHECK(PMIX_SUCCESS == rc && PMIX_STRING == v->type && 0 == strcmp(v->data.string, sval),
              "get t.str of %u: %s", r, PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        rc = PMIx_Get(&peer, "t.u32", NULL, 0, &v);
        CHECK(PMIX_SUCCESS == rc && PMIX_UINT32 == v->type && v->data.uint32 == 1000 + r,
              "get t.u32 of %u: %s", r, PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        /* t.i64 was put with PMIX_REMOTE: only its owner and processes on other nodes see
         * it, and every rank here shares one node (a plain OpenPMIx server answers the
         * same) */
        rc = PMIx_Get(&peer, "t.i64", NULL, 0, &v);
        if (r == me.rank) {
            CHECK(PMIX_SUCCESS == rc && PMIX_INT64 == v->type &&
                      v->data.int64 == -5000000000LL - r,
                  "get own t.i64: %s", PMIx_Error_string(rc));
        } else {
            CHECK(PMIX_SUCCESS != rc, "got rank %u's REMOTE-scoped t.i64 on its own node", r);
        }
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        rc = PMIx_Get(&peer, "t.dbl", NULL, 0, &v);
        CHECK(PMIX_SUCCESS == rc && PMIX_DOUBLE == v->type && v->data.dval == 0.5 + r,
              "get t.dbl of %u: %s", r, PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        rc = PMIx_Get(&peer, "t.bool", NULL, 0, &v);
        CHECK(PMIX_SUCCESS == rc && PMIX_BOOL == v->type && v->data.flag == ((r % 2) == 1),
              "get t.bool of %u: %s", r, PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        rc = PMIx_Get(&peer, "t.bo", NULL, 0, &v);
        CHECK(PMIX_SUCCESS == rc && PMIX_BYTE_OBJECT == v->type && 5 == v->data.bo.size &&
                  (char) r == v->data.bo.bytes[3],
              "get t.bo of %u: %s", r, PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        rc = PMIx_Get(&peer, "t.proc", NULL, 0, &v);
        CHECK(PMIX_SUCCESS == rc && PMIX_PROC == v->type && v->data.proc->rank == r &&
                  PMIX_CHECK_NSPACE(v->data.proc->nspace, me.nspace),
              "get t.proc of %u: %s", r, PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        rc = PMIx_Get(&peer, "t.vals", NULL, 0, &v);
        if (v20 && r != me.rank) {
            CHECK(PMIX_SUCCESS != rc, "v20: got rank %u's t.vals, which no v20 server reads", r);
        } else if (!v20) {
            pmix_value_t *got = PMIX_SUCCESS == rc && PMIX_DATA_ARRAY == v->type &&
                                        PMIX_VALUE == v->data.darray->type &&
                                        2 == v->data.darray->size
                                    ? (pmix_value_t *) v->data.darray->array
                                    : NULL;
            CHECK(NULL != got && PMIX_STRING == got[0].type &&
                      0 == strcmp(got[0].data.string, "a value in an array") &&
                      PMIX_UINT16 == got[1].type && 700 + r == got[1].data.uint16,
                  "get t.vals of %u: %s", r, PMIx_Error_string(rc));
        }
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
        /* a key nobody put, asked with PMIX_IMMEDIATE: NOT_FOUND at once (without it an
         * OpenPMIx server waits for the key to appear until its timeout) */
        PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
        rc = PMIx_Get(&peer, "t.absent", &info, 1, &v);
        CHECK(PMIX_ERR_NOT_FOUND == rc, "get t.absent of %u: %s", r, PMIx_Error_string(rc));
    }
    printf("client %u: got the values of %u ranks\n", me.rank, size);

    uint64_t nnodes = 1;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    PMIX_INFO_LOAD(&info, PMIX_ALLOC_NUM_NODES, &nnodes, PMIX_UINT64);
    rc = PMIx_Allocation_request(PMIX_ALLOC_EXTEND, &info, 1, &results, &nresults);
    printf("client %u: allocation request -> %s\n", me.rank, PMIx_Error_string(rc));
    CHECK(PMIX_ERR_NOT_SUPPORTED == rc || PMIX_SUCCESS == rc, "allocation: %s",
          PMIx_Error_string(rc));

    rc = PMIx_Finalize(NULL, 0);
    CHECK(PMIX_SUCCESS == rc, "finalize: %s", PMIx_Error_string(rc));
    printf("client %u: finalize -> %s, %d failures\n", me.rank, PMIx_Error_string(rc), failures);
    return failures ? 1 : 0;
}
