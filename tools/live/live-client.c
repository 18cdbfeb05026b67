/* live-client: one real libpmix client (or tool) of the live interop matrix
 * (tools/live-matrix.sh). Built per release against that release's libpmix by
 * tools/live/servers.sh (through tools/peers.sh); prints one line per operation:
 *
 *   OP <name> <status> <status_name> <observed...>
 *
 *   live-client client
 *       PMIx_Init (the environment a server gave this rank), job-info gets, a put of one
 *       value per type class, commit, fence collecting data, get of the next rank's value of
 *       each class (compared with what that rank put), allocation request with
 *       PMIX_ALLOC_INHERITANCE, query, finalize.
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
    do_allocate();
    do_query();
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
    if (argc == 4 && 0 == strcmp(argv[1], "tool")) return run_tool(argv[2], argv[3]);
    fprintf(stderr, "usage: live-client client | live-client tool URI NSPACE\n");
    return 2;
}
