/* live-client: one real libpmix client (or tool) of the live interop matrix
 * (tools/live-matrix.sh). Built per release against that release's libpmix by
 * tools/live/servers.sh (through tools/peers.sh); prints one line per operation:
 *
 *   OP <name> <status> <status_name> <observed...>
 *
 *   live-client client
 *       PMIx_Init (the environment a server gave this rank), job-info gets, a put of one
 *       value per type class, commit, fence collecting data, get of the next rank's value of
 *       each class (compared with what that rank put); the operations the field breaks on
 *       (job-key:*, get-rank-undef, get-rank-wildcard, fence-nodata-get, qualified-values,
 *       get-refresh-cache, get-wait-commit, get-wait-commit-timeout, event-notify: see
 *       run_field_ops), allocation request with PMIX_ALLOC_INHERITANCE, query, abort-seen
 *       (the last rank calls PMIx_Abort for itself and ends there, without finalize; the
 *       others wait for an event naming it), finalize.
 *   live-client client-classic
 *       The same without the field operations and abort-seen (server/tests/real_clients.rs
 *       holds pmix-server to the classic operations with it; the live matrix runs `client`).
 *   live-client tool URI NSPACE
 *       PMIx_tool_init with the given id NSPACE.0 and PMIX_SERVER_URI=URI, query,
 *       allocation request with PMIX_ALLOC_INHERITANCE, finalize.
 *
 * Every blocking call that could wait forever carries PMIX_TIMEOUT; the runner bounds the
 * whole process too. Releases before 7.0 have no type 75 (PMIX_ALLOC_INHERIT): there the
 * inheritance is sent under its key as a UINT8, and the observed text says so.
 *   gcc -Wall -Werror -o live-client live-client.c $(pkg-config --cflags --libs pmix)
 */
#include <pmix_tool.h>
#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INHERIT_KEY "pmix.alloc.inhrt"
#define GET_TIMEOUT 10

static pmix_proc_t me;

static const char *status_name(pmix_status_t rc)
{
    switch (rc) {
    case PMIX_SUCCESS: return "PMIX_SUCCESS";
    case PMIX_ERROR: return "PMIX_ERROR";
    case PMIX_ERR_NOT_SUPPORTED: return "PMIX_ERR_NOT_SUPPORTED";
    case PMIX_ERR_NOT_FOUND: return "PMIX_ERR_NOT_FOUND";
    case PMIX_ERR_UNREACH: return "PMIX_ERR_UNREACH";
    case PMIX_ERR_BAD_PARAM: return "PMIX_ERR_BAD_PARAM";
    case PMIX_ERR_TIMEOUT: return "PMIX_ERR_TIMEOUT";
    case PMIX_ERR_UNKNOWN_DATA_TYPE: return "PMIX_ERR_UNKNOWN_DATA_TYPE";
    case PMIX_ERR_UNPACK_FAILURE: return "PMIX_ERR_UNPACK_FAILURE";
    case PMIX_ERR_PACK_FAILURE: return "PMIX_ERR_PACK_FAILURE";
    case PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER: return "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER";
    case PMIX_ERR_TYPE_MISMATCH: return "PMIX_ERR_TYPE_MISMATCH";
    case PMIX_ERR_NOMEM: return "PMIX_ERR_NOMEM";
    case PMIX_ERR_INIT: return "PMIX_ERR_INIT";
    case PMIX_ERR_LOST_CONNECTION: return "PMIX_ERR_LOST_CONNECTION";
    case PMIX_ERR_NO_PERMISSIONS: return "PMIX_ERR_NO_PERMISSIONS";
    case PMIX_ERR_DATA_VALUE_NOT_FOUND: return "PMIX_ERR_DATA_VALUE_NOT_FOUND";
    case PMIX_OPERATION_SUCCEEDED: return "PMIX_OPERATION_SUCCEEDED";
    default: {
        /* any other code: its name from the library's own string (NOT-FOUND -> PMIX_ERR_NOT_FOUND) */
        static char name[96];
        const char *text = PMIx_Error_string(rc);
        /* 4.2.2 says "INVALID-NAMESPACE", 5.0.7 on "PMIX_ERR_INVALID_NAMESPACE" */
        size_t i, n = 0;
        if (NULL != text && 0 != strncmp(text, "PMIX_", 5)) {
            n = (size_t) snprintf(name, sizeof(name), "PMIX_ERR_");
        }
        for (i = 0; NULL != text && text[i] && n + 1 < sizeof(name); i++) {
            char ch = text[i];
            name[n++] = ('-' == ch || ' ' == ch) ? '_' : (char) toupper((unsigned char) ch);
        }
        name[n] = 0;
        return name;
    }
    }
}

/* one OP line; the observed text has its newlines flattened */
static void op(const char *name, pmix_status_t rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void op(const char *name, pmix_status_t rc, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    size_t i;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    for (i = 0; text[i]; i++) {
        if ('\n' == text[i] || '\r' == text[i]) text[i] = ' ';
    }
    printf("OP %s %d %s %s\n", name, (int) rc, status_name(rc), text);
    fflush(stdout);
}

/* ---- the values each rank puts: one per type class, derived from the rank ---- */

static const char *classes[] = {"int", "uint", "flex-size", "float", "string", "bytes",
                                "proc", "info-array", "data-array", "value"};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static void load_value(pmix_value_t *v, const char *cls, pmix_rank_t r, const char *nspace)
{
    PMIX_VALUE_CONSTRUCT(v);
    if (0 == strcmp(cls, "int")) {
        v->type = PMIX_INT32;
        v->data.int32 = -100000 - (int32_t) r;
    } else if (0 == strcmp(cls, "uint")) {
        v->type = PMIX_UINT64;
        v->data.uint64 = 0x1234567890ULL + r;
    } else if (0 == strcmp(cls, "flex-size")) {
        v->type = PMIX_SIZE;
        v->data.size = 70000 + r;
    } else if (0 == strcmp(cls, "float")) {
        v->type = PMIX_DOUBLE;
        v->data.dval = 0.25 + r;
    } else if (0 == strcmp(cls, "string")) {
        char s[64];
        snprintf(s, sizeof(s), "live value of rank %u", r);
        v->type = PMIX_STRING;
        v->data.string = strdup(s);
    } else if (0 == strcmp(cls, "bytes")) {
        v->type = PMIX_BYTE_OBJECT;
        v->data.bo.bytes = malloc(6);
        memcpy(v->data.bo.bytes, "\x01\x00\x02\x00\x03", 6);
        v->data.bo.bytes[5] = (char) r;
        v->data.bo.size = 6;
    } else if (0 == strcmp(cls, "proc")) {
        v->type = PMIX_PROC;
        PMIX_PROC_CREATE(v->data.proc, 1);
        PMIX_LOAD_PROCID(v->data.proc, nspace, r);
    } else if (0 == strcmp(cls, "info-array")) {
        pmix_info_t *infos;
        uint32_t u = 7 + r;
        v->type = PMIX_DATA_ARRAY;
        PMIX_DATA_ARRAY_CREATE(v->data.darray, 2, PMIX_INFO);
        infos = (pmix_info_t *) v->data.darray->array;
        PMIX_INFO_LOAD(&infos[0], "live.a", "first", PMIX_STRING);
        PMIX_INFO_LOAD(&infos[1], "live.b", &u, PMIX_UINT32);
    } else if (0 == strcmp(cls, "data-array")) {
        uint32_t *u;
        v->type = PMIX_DATA_ARRAY;
        PMIX_DATA_ARRAY_CREATE(v->data.darray, 3, PMIX_UINT32);
        u = (uint32_t *) v->data.darray->array;
        u[0] = 1; u[1] = 2; u[2] = 300 + r;
    } else { /* value: a data array of two VALUEs */
        pmix_value_t *vals;
        uint16_t h = 40 + r;
        v->type = PMIX_DATA_ARRAY;
        PMIX_DATA_ARRAY_CREATE(v->data.darray, 2, PMIX_VALUE);
        vals = (pmix_value_t *) v->data.darray->array;
        PMIX_VALUE_LOAD(&vals[0], "in a value", PMIX_STRING);
        PMIX_VALUE_LOAD(&vals[1], &h, PMIX_UINT16);
    }
}

/* does the value read back equal what rank r put? (a short description into why) */
static int same_value(const pmix_value_t *got, const char *cls, pmix_rank_t r, const char *nspace,
                      char *why, size_t n)
{
    pmix_value_t want;
    int ok = 0;
    load_value(&want, cls, r, nspace);
    if (got->type != want.type) {
        snprintf(why, n, "type %u, expected %u", (unsigned) got->type, (unsigned) want.type);
        PMIX_VALUE_DESTRUCT(&want);
        return 0;
    }
    switch (want.type) {
    case PMIX_INT32: ok = got->data.int32 == want.data.int32; break;
    case PMIX_UINT64: ok = got->data.uint64 == want.data.uint64; break;
    case PMIX_SIZE: ok = got->data.size == want.data.size; break;
    case PMIX_DOUBLE: ok = got->data.dval == want.data.dval; break;
    case PMIX_STRING: ok = 0 == strcmp(got->data.string, want.data.string); break;
    case PMIX_BYTE_OBJECT:
        ok = got->data.bo.size == want.data.bo.size &&
             0 == memcmp(got->data.bo.bytes, want.data.bo.bytes, want.data.bo.size);
        break;
    case PMIX_PROC:
        ok = got->data.proc->rank == want.data.proc->rank &&
             PMIX_CHECK_NSPACE(got->data.proc->nspace, want.data.proc->nspace);
        break;
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *g = got->data.darray, *w = want.data.darray;
        size_t k;
        ok = NULL != g && g->type == w->type && g->size == w->size;
        if (!ok) break;
        if (PMIX_UINT32 == w->type) {
            ok = 0 == memcmp(g->array, w->array, w->size * sizeof(uint32_t));
        } else if (PMIX_INFO == w->type) {
            const pmix_info_t *gi = g->array, *wi = w->array;
            for (k = 0; ok && k < w->size; k++) {
                ok = PMIX_CHECK_KEY(&gi[k], wi[k].key) && gi[k].value.type == wi[k].value.type;
            }
            ok = ok && 0 == strcmp(gi[0].value.data.string, "first") &&
                 gi[1].value.data.uint32 == wi[1].value.data.uint32;
        } else {
            const pmix_value_t *gv = g->array, *wv = w->array;
            ok = PMIX_STRING == gv[0].type && 0 == strcmp(gv[0].data.string, wv[0].data.string) &&
                 PMIX_UINT16 == gv[1].type && gv[1].data.uint16 == wv[1].data.uint16;
        }
        break;
    }
    }
    snprintf(why, n, ok ? "equal to what rank %u put" : "differs from what rank %u put", r);
    PMIX_VALUE_DESTRUCT(&want);
    return ok;
}

static pmix_status_t do_query(void)
{
    pmix_query_t *q;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(q, 1, &results, &nresults);
    if (PMIX_SUCCESS == rc && 0 < nresults && PMIX_STRING == results[0].value.type) {
        op("query", rc, "namespaces: %s", results[0].value.data.string);
    } else {
        op("query", rc, "PMIX_QUERY_NAMESPACES: %zu results", nresults);
    }
    if (NULL != results) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_FREE(q, 1);
    return rc;
}

static void do_allocate(void)
{
    pmix_info_t info[3], *results = NULL;
    size_t nresults = 0, k;
    uint64_t nodes = 1;
    char reqid[300], text[400] = "";
    const char *how;
    pmix_status_t rc;
    snprintf(reqid, sizeof(reqid), "live-%s-%u", me.nspace, me.rank);
    PMIX_INFO_LOAD(&info[0], PMIX_ALLOC_NUM_NODES, &nodes, PMIX_UINT64);
    PMIX_INFO_LOAD(&info[1], PMIX_ALLOC_REQ_ID, reqid, PMIX_STRING);
#ifdef PMIX_ALLOC_INHERITANCE
    {
        pmix_alloc_inheritance_t child = PMIX_ALLOC_INHERIT_CHILD;
        PMIX_INFO_LOAD(&info[2], PMIX_ALLOC_INHERITANCE, &child, PMIX_ALLOC_INHERIT);
        how = "inheritance CHILD as ALLOC_INHERIT (type 75)";
    }
#else
    {
        uint8_t child = 2;
        PMIX_INFO_LOAD(&info[2], INHERIT_KEY, &child, PMIX_UINT8);
        how = "inheritance CHILD as UINT8 (this release has no type 75)";
    }
#endif
    rc = PMIx_Allocation_request(PMIX_ALLOC_NEW, info, 3, &results, &nresults);
    for (k = 0; k < nresults && strlen(text) < 300; k++) {
        size_t len = strlen(text);
        if (PMIX_STRING == results[k].value.type) {
            snprintf(text + len, sizeof(text) - len, " %.60s=%.100s", results[k].key,
                     results[k].value.data.string);
        } else {
            snprintf(text + len, sizeof(text) - len, " %.60s(type %u)", results[k].key,
                     (unsigned) results[k].value.type);
        }
    }
    op("allocation-inherit", rc, "%s; %zu results%s", how, nresults, text);
    if (NULL != results) PMIX_INFO_FREE(results, nresults);
}

static void plant_after_init(void);

static int run_tool(const char *uri, const char *nspace)
{
    pmix_info_t info[3];
    pmix_rank_t rank = 0;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_NSPACE, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_URI, uri, PMIX_STRING);
    rc = PMIx_tool_init(&me, info, 3);
    op("init", rc, "tool %s.%u (library %s)", me.nspace, me.rank, PMIx_Get_version());
    if (PMIX_SUCCESS != rc) return 1;
    plant_after_init();
    do_query();
    do_allocate();
    rc = PMIx_tool_finalize();
    op("finalize", rc, "tool finalized");
    return 0;
}

static void get_job_info(void)
{
    pmix_proc_t wild;
    pmix_info_t t;
    pmix_value_t *v = NULL;
    pmix_status_t rc, first = PMIX_SUCCESS;
    const char *keys[] = {PMIX_JOB_SIZE, PMIX_LOCAL_SIZE, PMIX_UNIV_SIZE};
    char text[300] = "";
    size_t k;
    int timeout = GET_TIMEOUT;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &timeout, PMIX_INT);
    for (k = 0; k < 3; k++) {
        size_t len = strlen(text);
        rc = PMIx_Get(&wild, keys[k], &t, 1, &v);
        if (PMIX_SUCCESS == rc && PMIX_UINT32 == v->type) {
            snprintf(text + len, sizeof(text) - len, "%s=%u ", keys[k], v->data.uint32);
        } else if (PMIX_SUCCESS == rc) {
            snprintf(text + len, sizeof(text) - len, "%s:type %u ", keys[k], (unsigned) v->type);
        } else {
            snprintf(text + len, sizeof(text) - len, "%s:%s ", keys[k], status_name(rc));
            if (PMIX_SUCCESS == first) first = rc;
        }
        if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
    }
    rc = PMIx_Get(&me, PMIX_HOSTNAME, &t, 1, &v);
    size_t len = strlen(text);
    if (PMIX_SUCCESS == rc && PMIX_STRING == v->type) {
        snprintf(text + len, sizeof(text) - len, "%s=%s", PMIX_HOSTNAME, v->data.string);
    } else {
        /* say which key failed, as for the sizes above */
        if (PMIX_SUCCESS == rc) {
            snprintf(text + len, sizeof(text) - len, "%s:type %u", PMIX_HOSTNAME, (unsigned) v->type);
        } else {
            snprintf(text + len, sizeof(text) - len, "%s:%s", PMIX_HOSTNAME, status_name(rc));
        }
        if (PMIX_SUCCESS == first) first = PMIX_SUCCESS == rc ? PMIX_ERR_TYPE_MISMATCH : rc;
    }
    if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
    op("get-job-info", first, "%s", text);
}

/* ---- the operations the field breaks on (issue 38 item 3) ----
 *
 * Every one checks values, not only statuses: a get that returns success with another
 * value is reported with PMIX_ERR_TYPE_MISMATCH (this program's verdict, as for the
 * put/commit/fence/get round) and "value mismatch: got X want Y". Every wait is bounded
 * (FIELD_TIMEOUT for gets and fences, EVENT_WAIT for events), so the whole program stays
 * well under the runner's 40 s. What the launcher set (job-key:*) comes from the harness:
 * LIVE_EXPECT_<KEY> variables in the rank's environment (tools/live-matrix.sh).
 */
#define FIELD_TIMEOUT 3     /* seconds, PMIX_TIMEOUT of the new gets and fences */
#define SHORT_DELAY 1       /* seconds the odd rank waits before the commit a get without a
                               timeout waits for: within the libraries' 2 s default */
#define LONG_DELAY 3        /* ... and before the one a get with PMIX_TIMEOUT waits for: beyond it */
#define OWN_WAIT 8          /* seconds this program waits for a get that carries no timeout */
#define EVENT_WAIT 5        /* seconds a rank waits for another rank's event */
#define ABORT_LINGER 6      /* seconds the aborting rank stays up after PMIx_Abort */
#define LIVE_EVENT (PMIX_EXTERNAL_ERR_BASE - 38)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t) s;
    ts.tv_nsec = (long) ((s - (double) ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

/* a value as short text (integers of any width, strings); 0 when of another type */
static int value_text(const pmix_value_t *v, char *buf, size_t n)
{
    switch (v->type) {
    case PMIX_STRING: snprintf(buf, n, "%s", NULL == v->data.string ? "(null)" : v->data.string); return 1;
    case PMIX_UINT8: snprintf(buf, n, "%u", (unsigned) v->data.uint8); return 1;
    case PMIX_UINT16: snprintf(buf, n, "%u", (unsigned) v->data.uint16); return 1;
    case PMIX_UINT32: snprintf(buf, n, "%u", v->data.uint32); return 1;
    case PMIX_UINT64: snprintf(buf, n, "%llu", (unsigned long long) v->data.uint64); return 1;
    case PMIX_INT: snprintf(buf, n, "%d", v->data.integer); return 1;
    case PMIX_INT32: snprintf(buf, n, "%d", (int) v->data.int32); return 1;
    case PMIX_UINT: snprintf(buf, n, "%u", v->data.uint); return 1;
    case PMIX_SIZE: snprintf(buf, n, "%zu", v->data.size); return 1;
    case PMIX_PROC_RANK: snprintf(buf, n, "%u", v->data.rank); return 1;
    default: snprintf(buf, n, "(type %u)", (unsigned) v->type); return 0;
    }
}

static void load_timeout(pmix_info_t *info, int seconds)
{
    PMIX_INFO_LOAD(info, PMIX_TIMEOUT, &seconds, PMIX_INT);
}

/* a fence of the whole namespace WITHOUT data collection (bounded) */
static pmix_status_t fence_nodata(void)
{
    pmix_proc_t wild;
    pmix_info_t t;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    load_timeout(&t, 2 * FIELD_TIMEOUT);
    return PMIx_Fence(&wild, 1, &t, 1);
}

static pmix_status_t put_text(const char *key, const char *fmt, pmix_rank_t r)
{
    char s[96];
    pmix_value_t v;
    pmix_status_t rc;
    snprintf(s, sizeof(s), fmt, r);
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = s;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    return rc;
}

/* get `key` of `from` and compare with the text `fmt` of rank `r`: one OP line `name` */
static void get_checked(const char *name, const pmix_proc_t *from, const char *key,
                        pmix_info_t *info, size_t ninfo, const char *fmt, pmix_rank_t r,
                        const char *how)
{
    char want[96], got[160];
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    double t0 = now_s();
    snprintf(want, sizeof(want), fmt, r);
    rc = PMIx_Get(from, key, info, ninfo, &v);
    if (PMIX_SUCCESS != rc) {
        op(name, rc, "%s: get of %s failed after %.1f s (want \"%s\")", how, key, now_s() - t0, want);
        return;
    }
    value_text(v, got, sizeof(got));
    if (PMIX_STRING == v->type && 0 == strcmp(v->data.string, want)) {
        op(name, rc, "%s: %s = \"%s\" as rank %u put (%.1f s)", how, key, got, r, now_s() - t0);
    } else {
        op(name, PMIX_ERR_TYPE_MISMATCH, "%s: get returned success but value mismatch: got \"%s\" want \"%s\"",
           how, got, want);
    }
    PMIX_VALUE_RELEASE(v);
}

/* rank WILDCARD asks for job-level data (the PMIx standard, PMIx_Get): a key one rank put
 * is not job-level, so the right answer is PMIX_ERR_NOT_FOUND, at once (reported as success,
 * this program's verdict); the other rank's value is accepted too (said so); a timeout,
 * another error or another value fails */
static void get_wildcard(const pmix_proc_t *wild, const char *key, pmix_info_t *t, pmix_rank_t peer)
{
    char want[96], got[160];
    pmix_value_t *v = NULL;
    double t0 = now_s();
    pmix_status_t rc = PMIx_Get(wild, key, t, 1, &v);
    snprintf(want, sizeof(want), "wildcard key of rank %u", peer);
    if (PMIX_ERR_NOT_FOUND == rc) {
        op("get-rank-wildcard", PMIX_SUCCESS,
           "after a fence without data, rank PMIX_RANK_WILDCARD: %s not found (%.1f s), as the standard has it: "
           "WILDCARD asks for job-level data, and rank %u's key is not", key, now_s() - t0, peer);
        return;
    }
    if (PMIX_SUCCESS != rc) {
        op("get-rank-wildcard", rc, "after a fence without data, rank PMIX_RANK_WILDCARD: get of %s failed after %.1f s "
           "(want PMIX_ERR_NOT_FOUND or \"%s\")", key, now_s() - t0, want);
        return;
    }
    value_text(v, got, sizeof(got));
    if (PMIX_STRING == v->type && 0 == strcmp(v->data.string, want)) {
        op("get-rank-wildcard", rc, "after a fence without data, rank PMIX_RANK_WILDCARD: %s = \"%s\", rank %u's "
           "value (the standard would say not found)", key, got, peer);
    } else {
        op("get-rank-wildcard", PMIX_ERR_TYPE_MISMATCH, "rank PMIX_RANK_WILDCARD: get returned success but value "
           "mismatch: got \"%s\" want \"%s\" or PMIX_ERR_NOT_FOUND", got, want);
    }
    PMIX_VALUE_RELEASE(v);
}

/* direct modex: keys put and committed after a fence WITHOUT data, then got from the other
 * rank: first by rank UNDEF and WILDCARD (each its own key, so the cache holds nothing of
 * it yet), then by the rank itself */
static void do_direct_modex(pmix_rank_t peer)
{
    pmix_proc_t undef, wild, other;
    pmix_info_t t;
    pmix_status_t rc;
    char key[64];
    snprintf(key, sizeof(key), "live.undef.%u", me.rank);
    rc = put_text(key, "undef key of rank %u", me.rank);
    snprintf(key, sizeof(key), "live.wild.%u", me.rank);
    if (PMIX_SUCCESS == rc) rc = put_text(key, "wildcard key of rank %u", me.rank);
    if (PMIX_SUCCESS == rc) rc = put_text("live.dmodex", "direct modex of rank %u", me.rank);
    if (PMIX_SUCCESS == rc) rc = PMIx_Commit();
    if (PMIX_SUCCESS == rc) rc = fence_nodata();
    if (PMIX_SUCCESS != rc) {
        op("get-rank-undef", rc, "put, commit or fence without data failed");
        op("get-rank-wildcard", rc, "put, commit or fence without data failed");
        op("fence-nodata-get", rc, "put, commit or fence without data failed");
        return;
    }
    load_timeout(&t, FIELD_TIMEOUT);
    PMIX_LOAD_PROCID(&undef, me.nspace, PMIX_RANK_UNDEF);
    snprintf(key, sizeof(key), "live.undef.%u", peer);
    get_checked("get-rank-undef", &undef, key, &t, 1, "undef key of rank %u", peer,
                "after a fence without data, rank PMIX_RANK_UNDEF");
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    snprintf(key, sizeof(key), "live.wild.%u", peer);
    get_wildcard(&wild, key, &t, peer);
    PMIX_LOAD_PROCID(&other, me.nspace, peer);
    get_checked("fence-nodata-get", &other, "live.dmodex", &t, 1, "direct modex of rank %u", peer,
                "after a fence without data, the other rank's own key");
}

/* job- and node-level keys against what the launcher set (LIVE_EXPECT_<NAME>) */
static void do_job_keys(void)
{
    static const struct {
        const char *op, *key, *env;
        int own; /* 1: asked of this rank, 0: of rank WILDCARD */
    } keys[] = {
        {"job-key:job-size", PMIX_JOB_SIZE, "LIVE_EXPECT_JOB_SIZE", 0},
        {"job-key:local-size", PMIX_LOCAL_SIZE, "LIVE_EXPECT_LOCAL_SIZE", 0},
        {"job-key:local-peers", PMIX_LOCAL_PEERS, "LIVE_EXPECT_LOCAL_PEERS", 0},
        {"job-key:univ-size", PMIX_UNIV_SIZE, "LIVE_EXPECT_UNIV_SIZE", 0},
        {"job-key:appnum", PMIX_APPNUM, "LIVE_EXPECT_APPNUM", 1},
        {"job-key:nodeid", PMIX_NODEID, "LIVE_EXPECT_NODEID", 1},
        {"job-key:local-rank", PMIX_LOCAL_RANK, "LIVE_EXPECT_LOCAL_RANK", 1},
    };
    size_t k;
    pmix_info_t t;
    load_timeout(&t, FIELD_TIMEOUT);
    for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        pmix_proc_t who;
        pmix_value_t *v = NULL;
        pmix_status_t rc;
        char got[160];
        const char *want = getenv(keys[k].env);
        PMIX_LOAD_PROCID(&who, me.nspace, keys[k].own ? me.rank : PMIX_RANK_WILDCARD);
        rc = PMIx_Get(&who, keys[k].key, &t, 1, &v);
        if (PMIX_SUCCESS != rc) {
            op(keys[k].op, rc, "get of %s (rank %s) failed; want %s", keys[k].key,
               keys[k].own ? "own" : "WILDCARD", NULL == want ? "(no expectation given)" : want);
            continue;
        }
        int known = value_text(v, got, sizeof(got));
        if (NULL == want) {
            /* the harness does not know what this launcher sets: say so, do not judge */
            op(keys[k].op, rc, "%s = %s (type %u); no expectation given (%s unset)", keys[k].key, got,
               (unsigned) v->type, keys[k].env);
        } else if (known && 0 == strcmp(got, want)) {
            op(keys[k].op, rc, "%s = %s (type %u) as the launcher set", keys[k].key, got, (unsigned) v->type);
        } else {
            op(keys[k].op, PMIX_ERR_TYPE_MISMATCH, "%s: get returned success but value mismatch: got %s (type %u) want %s",
               keys[k].key, got, (unsigned) v->type, want);
        }
        PMIX_VALUE_RELEASE(v);
    }
}

/* two qualified values of one key (PMIX_QUALIFIED_VALUE), each got back by its qualifier */
static void do_qualified(pmix_rank_t peer)
{
#if defined(PMIX_QUALIFIED_VALUE) && defined(PMIX_INFO_SET_QUALIFIER)
    static const char *which[] = {"a", "b"};
    pmix_status_t rc = PMIX_SUCCESS;
    pmix_proc_t other, wild;
    pmix_info_t f[2];
    bool yes = true;
    char text[400] = "";
    pmix_status_t first = PMIX_SUCCESS;
    size_t w;
    for (w = 0; w < 2 && PMIX_SUCCESS == rc; w++) {
        pmix_value_t v;
        pmix_info_t *qi;
        char val[64];
        snprintf(val, sizeof(val), "qualified %s of rank %u", which[w], me.rank);
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_DATA_ARRAY;
        PMIX_DATA_ARRAY_CREATE(v.data.darray, 2, PMIX_INFO);
        qi = (pmix_info_t *) v.data.darray->array;
        PMIX_INFO_LOAD(&qi[0], "live.qual", val, PMIX_STRING);
        PMIX_INFO_LOAD(&qi[1], "live.qual.which", which[w], PMIX_STRING);
        PMIX_INFO_SET_QUALIFIER(&qi[1]);
        rc = PMIx_Put(PMIX_GLOBAL, PMIX_QUALIFIED_VALUE, &v);
        PMIX_VALUE_DESTRUCT(&v);
    }
    if (PMIX_SUCCESS == rc) rc = PMIx_Commit();
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&f[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    load_timeout(&f[1], 2 * FIELD_TIMEOUT);
    if (PMIX_SUCCESS == rc) rc = PMIx_Fence(&wild, 1, f, 2);
    if (PMIX_SUCCESS != rc) {
        op("qualified-values", rc, "put of PMIX_QUALIFIED_VALUE, commit or fence with data failed");
        return;
    }
    PMIX_LOAD_PROCID(&other, me.nspace, peer);
    for (w = 0; w < 2; w++) {
        pmix_info_t q[2];
        pmix_value_t *v = NULL;
        char want[64], got[160];
        size_t len = strlen(text);
        snprintf(want, sizeof(want), "qualified %s of rank %u", which[w], peer);
        PMIX_INFO_LOAD(&q[0], "live.qual.which", which[w], PMIX_STRING);
        PMIX_INFO_SET_QUALIFIER(&q[0]);
        load_timeout(&q[1], FIELD_TIMEOUT);
        rc = PMIx_Get(&other, "live.qual", q, 2, &v);
        if (PMIX_SUCCESS != rc) {
            snprintf(text + len, sizeof(text) - len, "which=%s: %s; ", which[w], status_name(rc));
            if (PMIX_SUCCESS == first) first = rc;
            continue;
        }
        value_text(v, got, sizeof(got));
        if (PMIX_STRING == v->type && 0 == strcmp(v->data.string, want)) {
            snprintf(text + len, sizeof(text) - len, "which=%s: \"%s\" as put; ", which[w], got);
        } else {
            snprintf(text + len, sizeof(text) - len, "which=%s: value mismatch: got \"%s\" want \"%s\"; ",
                     which[w], got, want);
            if (PMIX_SUCCESS == first) first = PMIX_ERR_TYPE_MISMATCH;
        }
        PMIX_VALUE_RELEASE(v);
    }
    op("qualified-values", first, "rank %u's live.qual by qualifier: %s", peer, text);
#else
    (void) peer;
    op("qualified-values", PMIX_ERR_NOT_SUPPORTED,
       "not run: this release's headers have no PMIX_QUALIFIED_VALUE or PMIX_INFO_SET_QUALIFIER");
#endif
}

/* PMIX_GET_REFRESH_CACHE: the other rank changes a value it had committed (and this rank had
 * read into its cache); a get with the attribute must return the new one */
static void do_refresh(pmix_rank_t peer)
{
#ifdef PMIX_GET_REFRESH_CACHE
    pmix_proc_t other;
    pmix_info_t t[2];
    pmix_value_t *v = NULL;
    bool yes = true;
    char cached[160] = "(nothing)";
    pmix_status_t rc = put_text("live.refresh", "first value of rank %u", me.rank);
    if (PMIX_SUCCESS == rc) rc = PMIx_Commit();
    if (PMIX_SUCCESS == rc) rc = fence_nodata();
    PMIX_LOAD_PROCID(&other, me.nspace, peer);
    load_timeout(&t[0], FIELD_TIMEOUT);
    if (PMIX_SUCCESS == rc && PMIX_SUCCESS == PMIx_Get(&other, "live.refresh", t, 1, &v)) {
        value_text(v, cached, sizeof(cached));
        PMIX_VALUE_RELEASE(v);
    }
    /* both have read the first value before either changes it */
    if (PMIX_SUCCESS == rc) rc = fence_nodata();
    if (PMIX_SUCCESS == rc) rc = put_text("live.refresh", "second value of rank %u", me.rank);
    if (PMIX_SUCCESS == rc) rc = PMIx_Commit();
    if (PMIX_SUCCESS == rc) rc = fence_nodata();
    if (PMIX_SUCCESS != rc) {
        op("get-refresh-cache", rc, "put, commit or fence without data failed");
        return;
    }
    PMIX_INFO_LOAD(&t[1], PMIX_GET_REFRESH_CACHE, &yes, PMIX_BOOL);
    char how[240];
    snprintf(how, sizeof(how), "first read \"%s\"; after the other rank's second commit, with PMIX_GET_REFRESH_CACHE", cached);
    get_checked("get-refresh-cache", &other, "live.refresh", t, 2, "second value of rank %u", peer, how);
#else
    (void) peer;
    op("get-refresh-cache", PMIX_ERR_NOT_SUPPORTED, "not run: this release's headers have no PMIX_GET_REFRESH_CACHE");
#endif
}

/* a get of a key the other rank commits only later: the odd rank waits before its put and
 * commit (SHORT_DELAY for a get without PMIX_TIMEOUT, which must wait the libraries' 2 s
 * default; LONG_DELAY, beyond that default, for one with PMIX_TIMEOUT), so the even rank's
 * get must wait for it */
static volatile int nb_done;
static pmix_status_t nb_status;
static char nb_value[160];
static void nb_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void) cbdata;
    nb_status = status;
    nb_value[0] = 0;
    if (PMIX_SUCCESS == status && NULL != kv) {
        if (PMIX_STRING == kv->type) {
            snprintf(nb_value, sizeof(nb_value), "%s", kv->data.string);
        } else {
            value_text(kv, nb_value, sizeof(nb_value));
        }
    }
    nb_done = 1;
}

static void do_wait_commit(const char *name, const char *key, pmix_rank_t peer, int with_timeout)
{
    pmix_proc_t other;
    pmix_info_t t;
    char want[96];
    pmix_status_t rc;
    double t0;
    int delay = with_timeout ? LONG_DELAY : SHORT_DELAY;
    char how[128];
    if (me.rank % 2) sleep_s(delay);
    rc = put_text(key, "late value of rank %u", me.rank);
    if (PMIX_SUCCESS == rc) rc = PMIx_Commit();
    if (PMIX_SUCCESS != rc) {
        op(name, rc, "put or commit failed");
        return;
    }
    PMIX_LOAD_PROCID(&other, me.nspace, peer);
    snprintf(want, sizeof(want), "late value of rank %u", peer);
    if (peer % 2) {
        snprintf(how, sizeof(how), "the other rank commits %d s later", delay);
    } else {
        snprintf(how, sizeof(how), "the other rank committed at once");
    }
    if (with_timeout) {
        size_t len = strlen(how);
        snprintf(how + len, sizeof(how) - len, "; PMIX_TIMEOUT %d", LONG_DELAY + 7);
        load_timeout(&t, LONG_DELAY + 7);
        get_checked(name, &other, key, &t, 1, "late value of rank %u", peer, how);
        return;
    }
    /* no PMIX_TIMEOUT: the library's own default; bounded here by OWN_WAIT */
    nb_done = 0;
    t0 = now_s();
    rc = PMIx_Get_nb(&other, key, NULL, 0, nb_cb, NULL);
    if (PMIX_SUCCESS != rc) {
        op(name, rc, "PMIx_Get_nb of %s refused", key);
        return;
    }
    while (!nb_done && now_s() - t0 < OWN_WAIT) sleep_s(0.01);
    if (!nb_done) {
        op(name, PMIX_ERR_TIMEOUT, "%s; no PMIX_TIMEOUT: no answer within %d s (this program's bound), want \"%s\"", how, OWN_WAIT, want);
    } else if (PMIX_SUCCESS != nb_status) {
        op(name, nb_status, "%s; no PMIX_TIMEOUT (the library's default): get of %s failed after %.1f s", how, key, now_s() - t0);
    } else if (0 != strcmp(nb_value, want)) {
        op(name, PMIX_ERR_TYPE_MISMATCH, "get returned success but value mismatch: got \"%s\" want \"%s\"", nb_value, want);
    } else {
        op(name, PMIX_SUCCESS, "%s; no PMIX_TIMEOUT (the library's default): %s = \"%s\" after %.1f s", how, key, nb_value, now_s() - t0);
    }
}

/* events: what a handler saw (written by the library's thread, read by polling) */
static volatile int ev_count;
static volatile pmix_status_t ev_status;
static pmix_proc_t ev_source;
static char ev_payload[128];
static volatile int ab_count;
static volatile pmix_status_t ab_status;
static pmix_proc_t ab_source, ab_affected;
static volatile int ab_has_affected;

static void on_live_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t k;
    (void) id; (void) results; (void) nresults;
    if (NULL != source && source->rank != me.rank) {
        ev_payload[0] = 0;
        for (k = 0; k < ninfo; k++) {
            if (PMIX_CHECK_KEY(&info[k], "live.event.payload") && PMIX_STRING == info[k].value.type) {
                snprintf(ev_payload, sizeof(ev_payload), "%s", info[k].value.data.string);
            }
        }
        ev_status = status;
        ev_source = *source;
        ev_count++;
    }
    if (NULL != cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_any_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t k;
    (void) id; (void) results; (void) nresults;
    if (LIVE_EVENT != status) {
        ab_has_affected = 0;
        for (k = 0; k < ninfo; k++) {
            if (PMIX_CHECK_KEY(&info[k], PMIX_EVENT_AFFECTED_PROC) && PMIX_PROC == info[k].value.type &&
                NULL != info[k].value.data.proc) {
                ab_affected = *info[k].value.data.proc;
                ab_has_affected = 1;
            }
        }
        if (NULL != source) ab_source = *source;
        ab_status = status;
        ab_count++;
    }
    if (NULL != cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* event notification: each rank registers a handler, raises LIVE_EVENT with a payload, and
 * waits (bounded) for the other rank's */
static void do_event(pmix_rank_t peer)
{
    pmix_status_t code = LIVE_EVENT, rc;
    pmix_info_t payload;
    char text[96], want[96];
    double t0;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_live_event, NULL, NULL);
    if (rc < 0) {
        op("event-notify", rc, "PMIx_Register_event_handler refused");
        return;
    }
    rc = fence_nodata(); /* both handlers are registered before either raises */
    if (PMIX_SUCCESS != rc) {
        op("event-notify", rc, "fence without data (after registering) failed");
        return;
    }
    snprintf(text, sizeof(text), "event of rank %u", me.rank);
    snprintf(want, sizeof(want), "event of rank %u", peer);
    PMIX_INFO_LOAD(&payload, "live.event.payload", text, PMIX_STRING);
    t0 = now_s();
    rc = PMIx_Notify_event(LIVE_EVENT, &me, PMIX_RANGE_NAMESPACE, &payload, 1, NULL, NULL);
    if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) {
        op("event-notify", rc, "PMIx_Notify_event refused");
        return;
    }
    while (0 == ev_count && now_s() - t0 < EVENT_WAIT) sleep_s(0.01);
    if (0 == ev_count) {
        op("event-notify", PMIX_ERR_TIMEOUT, "no event %d from rank %u within %d s", LIVE_EVENT, peer, EVENT_WAIT);
    } else if (LIVE_EVENT != ev_status || ev_source.rank != peer || 0 != strcmp(ev_payload, want)) {
        op("event-notify", PMIX_ERR_TYPE_MISMATCH, "value mismatch: got event %d from %s:%u payload \"%s\" want %d from rank %u payload \"%s\"",
           (int) ev_status, ev_source.nspace, ev_source.rank, ev_payload, LIVE_EVENT, peer, want);
    } else {
        op("event-notify", PMIX_SUCCESS, "event %d from rank %u with payload \"%s\" after %.2f s", LIVE_EVENT, peer, ev_payload, now_s() - t0);
    }
}

/* PMIx_Abort of one rank (the last) seen by the others: they register a handler for every
 * event, fence, and wait (bounded) for an event naming that rank; the aborting rank reports
 * what PMIx_Abort returned and stays up ABORT_LINGER s (no launcher here kills it, and a
 * lost connection is not an abort notice), then ends without finalize. Returns 1 in the
 * aborting rank (which must not go on). */
static int do_abort_seen(uint32_t size)
{
    pmix_rank_t last = size ? size - 1 : 0;
    pmix_status_t rc;
    double t0;
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, on_any_event, NULL, NULL);
    if (rc < 0) {
        op("abort-seen", rc, "PMIx_Register_event_handler (every event) refused");
        return 0;
    }
    rc = fence_nodata();
    if (PMIX_SUCCESS != rc) {
        op("abort-seen", rc, "fence without data (after registering) failed");
        return 0;
    }
    if (me.rank == last && 0 != last) {
        pmix_proc_t self = me;
        rc = PMIx_Abort(38, "live-client: abort-seen", &self, 1);
        op("abort-seen", rc, "this rank (%u) called PMIx_Abort(38) for itself: returned; it stays %d s, then ends without finalize",
           me.rank, ABORT_LINGER);
        sleep_s(ABORT_LINGER);
        return 1;
    }
    t0 = now_s();
    while (now_s() - t0 < EVENT_WAIT) {
        if (ab_count > 0 && (ab_source.rank == last || (ab_has_affected && ab_affected.rank == last))) break;
        sleep_s(0.01);
    }
    if (ab_count > 0 && (ab_source.rank == last || (ab_has_affected && ab_affected.rank == last))) {
        op("abort-seen", PMIX_SUCCESS, "event %d (%s) from %s:%u%s after rank %u's PMIx_Abort, within %.2f s",
           (int) ab_status, PMIx_Error_string(ab_status), ab_source.nspace, ab_source.rank,
           ab_has_affected ? " naming the affected rank" : "", last, now_s() - t0);
    } else if (ab_count > 0) {
        op("abort-seen", PMIX_ERR_TIMEOUT, "no event naming rank %u within %d s after its PMIx_Abort (last event seen: %d from %s:%u)",
           last, EVENT_WAIT, (int) ab_status, ab_source.nspace, ab_source.rank);
    } else {
        op("abort-seen", PMIX_ERR_TIMEOUT, "no event within %d s after rank %u's PMIx_Abort", EVENT_WAIT, last);
    }
    return 0;
}

/* the field operations between the put/commit/fence/get round and the allocation */
static void run_field_ops(uint32_t size)
{
    pmix_rank_t peer = (me.rank + 1) % (size ? size : 1);
    do_job_keys();
    do_direct_modex(peer);
    do_qualified(peer);
    do_refresh(peer);
    do_wait_commit("get-wait-commit", "live.late", peer, 0);
    do_wait_commit("get-wait-commit-timeout", "live.late.timeout", peer, 1);
    do_event(peer);
}

/* 0 for `client-classic`: the operations before the field ones (issue 38 item 3) only */
static int field_ops = 1;

static int run_client(void)
{
    pmix_status_t rc;
    pmix_proc_t wild, peer;
    pmix_value_t val, *v = NULL;
    pmix_info_t info;
    bool yes = true;
    uint32_t size = 1;
    int timeout = GET_TIMEOUT;
    size_t c;
    char key[64], why[128];

    rc = PMIx_Init(&me, NULL, 0);
    op("init", rc, "client %s.%u (library %s)", me.nspace, me.rank, PMIx_Get_version());
    if (PMIX_SUCCESS != rc) return 1;
    plant_after_init();
    get_job_info();
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (PMIX_SUCCESS == rc) {
        if (PMIX_UINT32 == v->type) size = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }

    /* put one value of each class, commit, fence with data */
    pmix_status_t put_rc[NCLASSES];
    for (c = 0; c < NCLASSES; c++) {
        snprintf(key, sizeof(key), "live.%s", classes[c]);
        load_value(&val, classes[c], me.rank, me.nspace);
        put_rc[c] = PMIx_Put(PMIX_GLOBAL, key, &val);
        PMIX_VALUE_DESTRUCT(&val);
    }
    pmix_status_t commit_rc = PMIx_Commit();
    pmix_info_t finfo[2];
    PMIX_INFO_LOAD(&finfo[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&finfo[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_status_t fence_rc = PMIx_Fence(&wild, 1, finfo, 2);

    /* get the next rank's value of each class */
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % (size ? size : 1));
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    for (c = 0; c < NCLASSES; c++) {
        char name[96];
        snprintf(name, sizeof(name), "put-commit-fence-get:%s", classes[c]);
        snprintf(key, sizeof(key), "live.%s", classes[c]);
        if (PMIX_SUCCESS != put_rc[c]) {
            op(name, put_rc[c], "put failed");
            continue;
        }
        if (PMIX_SUCCESS != commit_rc) {
            op(name, commit_rc, "commit failed");
            continue;
        }
        if (PMIX_SUCCESS != fence_rc) {
            op(name, fence_rc, "fence failed");
            continue;
        }
        v = NULL;
        rc = PMIx_Get(&peer, key, &info, 1, &v);
        if (PMIX_SUCCESS != rc) {
            op(name, rc, "get of rank %u's %s failed", peer.rank, key);
            continue;
        }
        if (same_value(v, classes[c], peer.rank, me.nspace, why, sizeof(why))) {
            op(name, rc, "%s", why);
        } else {
            /* a value read back wrong: the status was success, the data was not */
            op(name, PMIX_ERR_TYPE_MISMATCH, "get returned success but %s", why);
        }
        PMIX_VALUE_RELEASE(v);
    }
    (void) yes;
    if (field_ops) run_field_ops(size);
    do_allocate();
    do_query();
    if (field_ops && do_abort_seen(size)) return 0;
    rc = PMIx_Finalize(NULL, 0);
    op("finalize", rc, "client finalized");
    return 0;
}

/* PMIX_LIVE_PLANT=segv-after-init (tools/live-matrix.sh --plant crash): a fault planted on
 * purpose, so that the live matrix can show it scores a crash as a failure: the process
 * raises SIGSEGV right after init has been reported. */
static void plant_after_init(void)
{
    const char *plant = getenv("PMIX_LIVE_PLANT");
    if (NULL != plant && 0 == strcmp(plant, "segv-after-init")) {
        fflush(stdout);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && 0 == strcmp(argv[1], "client")) return run_client();
    if (argc == 2 && 0 == strcmp(argv[1], "client-classic")) {
        field_ops = 0;
        return run_client();
    }
    if (argc == 4 && 0 == strcmp(argv[1], "tool")) return run_tool(argv[2], argv[3]);
    fprintf(stderr, "usage: live-client client | live-client client-classic | live-client tool URI NSPACE\n");
    return 2;
}
