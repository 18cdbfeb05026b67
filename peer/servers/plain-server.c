/* plain-server: a small OpenPMIx server (no resource manager) for the native peer's tests.
 *
 *   plain-server URI_FILE SECONDS
 *
 * PMIx_server_init with tool support and PMIX_TCP_REPORT_URI=URI_FILE; answers allocation
 * requests itself (grants PMIX_ALLOC_ID "plain.N", echoes PMIX_ALLOC_REQ_ID) and prints
 * what each request carried (key, type, value) on stderr, so a test can see what the
 * library delivered to its host; every other host upcall is absent (the library answers
 * PMIX_ERR_NOT_SUPPORTED). Exits after SECONDS or on SIGTERM. Built inside the sid root:
 *   gcc -o plain-server plain-server.c $(pkg-config --cflags --libs pmix)
 */
#include <pmix.h>
#include <pmix_server.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop = 0;
static int grants = 0;

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

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t info[5];
    pmix_status_t rc;
    bool yes = true;
    pmix_rank_t rank = 0;
    char tmpdir[128];
    int seconds, waited = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: plain-server URI_FILE SECONDS\n");
        return 2;
    }
    seconds = atoi(argv[2]);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/plain-server.%d", (int) getpid());
    memset(&module, 0, sizeof(module));
    module.allocate = alloc_fn;
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
    while (!stop && waited < seconds * 10) {
        usleep(100000);
        ++waited;
    }
    PMIx_server_finalize();
    return 0;
}
