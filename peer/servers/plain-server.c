/* plain-server: a small OpenPMIx server (no resource manager) for the native peer's tests
 * and the live interop matrix (tools/live-matrix.sh).
 *
 *   plain-server URI_FILE SECONDS [NSPACE NPROCS ENV_DIR]
 *
 * PMIx_server_init with tool support and PMIX_TCP_REPORT_URI=URI_FILE; answers allocation
 * requests itself (grants PMIX_ALLOC_ID "plain.N", echoes PMIX_ALLOC_REQ_ID) and prints
 * what each request carried (key, type, value) on stderr, so a test can see what the
 * library delivered to its host; every other host upcall is absent (the library answers
 * PMIX_ERR_NOT_SUPPORTED). Exits after SECONDS or on SIGTERM. Built inside the sid root:
 *   gcc -o plain-server plain-server.c $(pkg-config --cflags --libs pmix)
 *
 * With NSPACE NPROCS ENV_DIR it also hosts one job of NPROCS ranks on this node: it
 * registers the namespace (job size, local size and peers, per-rank local/node rank, node
 * id and host name) and each client, writes the environment PMIx_server_setup_fork gives rank R
 * to ENV_DIR/env.R (KEY=VALUE lines; the clients are started by someone else, from any
 * release and any root), answers each fence at once with the collected data (every rank
 * is local), and exits once every rank has finalized. Its session directory is
 * ENV_DIR/tmp, so clients that see ENV_DIR at the same path can attach shared-memory gds.
 *
 * PMIX_PLAIN_PLANT=refuse-clients (tools/live-matrix.sh --plant init-fails) plants a fault
 * on purpose: each rank is registered under another uid and gid than its own (this
 * server's plus one), so the library's credential check refuses every client's
 * connection and every PMIx_Init fails: a server the live matrix must score as failing.
 */
#include <pmix.h>
#include <pmix_server.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop = 0;
static int grants = 0;
static volatile int finalized = 0;

static void on_term(int sig) { (void) sig; stop = 1; }

static void release(void *cbdata)
{
    pmix_info_t *info = (pmix_info_t *) cbdata;
    PMIX_INFO_FREE(info, 2);
}

static pmix_status_t alloc_fn(const pmix_proc_t *client, pmix_alloc_directive_t directive,
                              const pmix_info_t data[], size_t ndata,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    const char *reqid = NULL;
    char id[64];
    pmix_info_t *info;
    size_t n, nout = 1;

    fprintf(stderr, "plain-server: alloc from %s:%u directive %u ninfo %zu\n",
            client->nspace, client->rank, (unsigned) directive, ndata);
    for (n = 0; n < ndata; n++) {
        fprintf(stderr, "plain-server:   %s type %u", data[n].key, (unsigned) data[n].value.type);
        if (PMIX_STRING == data[n].value.type) {
            fprintf(stderr, " \"%s\"", data[n].value.data.string);
        } else {
            fprintf(stderr, " byte %u", (unsigned) data[n].value.data.uint8);
        }
        fprintf(stderr, "\n");
        if (PMIX_CHECK_KEY(&data[n], PMIX_ALLOC_REQ_ID) && PMIX_STRING == data[n].value.type) {
            reqid = data[n].value.data.string;
        }
    }
    ++grants;
    snprintf(id, sizeof(id), "plain.%d", grants);
    PMIX_INFO_CREATE(info, 2);
    PMIX_INFO_LOAD(&info[0], PMIX_ALLOC_ID, id, PMIX_STRING);
    if (NULL != reqid) {
        PMIX_INFO_LOAD(&info[1], PMIX_ALLOC_REQ_ID, reqid, PMIX_STRING);
        nout = 2;
    }
    cbfunc(PMIX_SUCCESS, info, nout, cbdata, release, info);
    return PMIX_SUCCESS;
}


/* ---- job mode: one node, every rank local ---- */

static void release_data(void *cbdata) { free(cbdata); }

static pmix_status_t fence_fn(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    /* the library has gathered every local rank's contribution: hand it back as is */
    char *mine = NULL;
    (void) procs; (void) nprocs; (void) info; (void) ninfo;
    if (0 < ndata && NULL != (mine = malloc(ndata))) memcpy(mine, data, ndata);
    cbfunc(PMIX_SUCCESS, mine, NULL == mine ? 0 : ndata, cbdata, release_data, mine);
    return PMIX_SUCCESS;
}

static pmix_status_t finalized_fn(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void) obj; (void) cbfunc; (void) cbdata;
    fprintf(stderr, "plain-server: %s:%u finalized\n", p->nspace, p->rank);
    ++finalized;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t abort_fn(const pmix_proc_t *p, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void) obj; (void) procs; (void) nprocs; (void) cbfunc; (void) cbdata;
    fprintf(stderr, "plain-server: %s:%u aborted with %d: %s\n", p->nspace, p->rank, status,
            NULL == msg ? "" : msg);
    return PMIX_OPERATION_SUCCEEDED;
}

static volatile int registered = 0;
static void registered_cb(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    if (PMIX_SUCCESS != status) {
        fprintf(stderr, "plain-server: registration: %s\n", PMIx_Error_string(status));
    }
    ++registered;
}

static int await_registered(int count)
{
    int waited = 0;
    while (registered < count && waited++ < 100) usleep(100000);
    return registered >= count;
}

/* register NSPACE with NPROCS local ranks, and write each rank's environment */
static int host_job(const char *nspace, uint32_t nprocs, const char *env_dir)
{
    pmix_info_t *info;
    pmix_data_array_t *darray;
    pmix_info_t *pinfo;
    char host[256], peers[1024] = "", path[4096];
    uint32_t r;
    size_t k, n = 0, ninfo = 5 + nprocs;
    pmix_proc_t proc;

    if (0 != gethostname(host, sizeof(host))) strcpy(host, "localhost");
    for (r = 0; r < nprocs && strlen(peers) < sizeof(peers) - 16; r++) {
        size_t len = strlen(peers);
        snprintf(peers + len, sizeof(peers) - len, "%s%u", r ? "," : "", r);
    }
    PMIX_INFO_CREATE(info, ninfo);
    PMIX_INFO_LOAD(&info[n], PMIX_JOB_SIZE, &nprocs, PMIX_UINT32); n++;
    PMIX_INFO_LOAD(&info[n], PMIX_UNIV_SIZE, &nprocs, PMIX_UINT32); n++;
    PMIX_INFO_LOAD(&info[n], PMIX_LOCAL_SIZE, &nprocs, PMIX_UINT32); n++;
    PMIX_INFO_LOAD(&info[n], PMIX_LOCAL_PEERS, peers, PMIX_STRING); n++;
    PMIX_INFO_LOAD(&info[n], PMIX_HOSTNAME, host, PMIX_STRING); n++;
    for (r = 0; r < nprocs; r++) {
        uint16_t lr = (uint16_t) r;
        uint32_t nodeid = 0;
        PMIX_DATA_ARRAY_CREATE(darray, 5, PMIX_INFO);
        pinfo = (pmix_info_t *) darray->array;
        PMIX_INFO_LOAD(&pinfo[0], PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pinfo[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pinfo[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pinfo[3], PMIX_HOSTNAME, host, PMIX_STRING);
        /* the node every rank is on (a launcher sets it; the library does not) */
        PMIX_INFO_LOAD(&pinfo[4], PMIX_NODEID, &nodeid, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[n], PMIX_PROC_DATA, darray, PMIX_DATA_ARRAY); n++;
        PMIX_DATA_ARRAY_FREE(darray);
    }
    registered = 0;
    if (PMIX_SUCCESS != PMIx_server_register_nspace(nspace, (int) nprocs, info, n, registered_cb, NULL)
        || !await_registered(1)) {
        fprintf(stderr, "plain-server: cannot register %s\n", nspace);
        return 1;
    }
    PMIX_INFO_FREE(info, ninfo);
    for (r = 0; r < nprocs; r++) {
        char **env = NULL;
        FILE *f;
        PMIX_LOAD_PROCID(&proc, nspace, r);
        registered = 0;
        /* the init-fails plant: a uid and gid no client has, so every connection is refused */
        const char *plant = getenv("PMIX_PLAIN_PLANT");
        unsigned off = (NULL != plant && 0 == strcmp(plant, "refuse-clients")) ? 1 : 0;
        if (PMIX_SUCCESS != PMIx_server_register_client(&proc, geteuid() + off, getegid() + off, NULL,
                                                        registered_cb, NULL)
            || !await_registered(1)) {
            fprintf(stderr, "plain-server: cannot register %s:%u\n", nspace, r);
            return 1;
        }
        if (PMIX_SUCCESS != PMIx_server_setup_fork(&proc, &env)) {
            fprintf(stderr, "plain-server: setup_fork %s:%u failed\n", nspace, r);
            return 1;
        }
        snprintf(path, sizeof(path), "%s/env.%u.tmp", env_dir, r);
        if (NULL == (f = fopen(path, "w"))) {
            perror(path);
            return 1;
        }
        for (k = 0; NULL != env && NULL != env[k]; k++) {
            fprintf(f, "%s\n", env[k]);
            free(env[k]);
        }
        free(env);
        fclose(f);
        {
            char final[4096];
            snprintf(final, sizeof(final), "%s/env.%u", env_dir, r);
            rename(path, final);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t info[5];
    pmix_status_t rc;
    bool yes = true;
    pmix_rank_t rank = 0;
    char tmpdir[4096];
    int seconds, waited = 0;

    const char *nspace = NULL, *env_dir = NULL;
    uint32_t nprocs = 0;
    if (argc != 3 && argc != 6) {
        fprintf(stderr, "usage: plain-server URI_FILE SECONDS [NSPACE NPROCS ENV_DIR]\n");
        return 2;
    }
    if (argc == 6) {
        nspace = argv[3];
        nprocs = (uint32_t) atoi(argv[4]);
        env_dir = argv[5];
        if (0 == nprocs || nprocs > 64 || strlen(nspace) >= PMIX_MAX_NSLEN) {
            fprintf(stderr, "plain-server: NPROCS 1..64 and NSPACE shorter than %d\n", PMIX_MAX_NSLEN);
            return 2;
        }
    }
    seconds = atoi(argv[2]);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    if (NULL != env_dir) {
        snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", env_dir);
        mkdir(tmpdir, 0700);
    } else {
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/plain-server.%d", (int) getpid());
    }
    memset(&module, 0, sizeof(module));
    module.allocate = alloc_fn;
    if (NULL != env_dir) {
        module.fence_nb = fence_fn;
        module.client_finalized = finalized_fn;
        module.abort = abort_fn;
    }
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TCP_REPORT_URI, argv[1], PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_NSPACE, "plain-server", PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[4], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    rc = PMIx_server_init(&module, info, 5);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "plain-server: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    fprintf(stderr, "plain-server: up (%s)\n", PMIx_Get_version());
    if (NULL != env_dir && 0 != host_job(nspace, nprocs, env_dir)) {
        PMIx_server_finalize();
        return 1;
    }
    while (!stop && waited < seconds * 10 && (NULL == env_dir || finalized < (int) nprocs)) {
        usleep(100000);
        ++waited;
    }
    PMIx_server_finalize();
    return 0;
}
