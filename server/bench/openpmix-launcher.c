/* openpmix-launcher: the C baseline for pmix-server's benchmark. A plain OpenPMIx server
 * (PMIx_server_init, gds hash) that registers one job of N local ranks, forks the clients
 * with the environment PMIx_server_setup_fork gives, completes each fence at once (one
 * node: the library has already collected the local data and hands it back), and exits
 * with the worst client's status once all have ended. At exit it prints its peak resident
 * memory ("openpmix-launcher: VmHWM N kB").
 *
 *   openpmix-launcher N PROGRAM [ARGS...]
 * With OPENPMIX_LAUNCHER_URI=PMIX_SERVER_URI<v> set, the clients get that URI variable
 * alone (of the ones PMIx_server_setup_fork sets), which forces their bfrops component.
 * The server uses gds hash unless PMIX_MCA_gds is set (e.g. "shmem3,hash").
 *   gcc -o openpmix-launcher openpmix-launcher.c $(pkg-config --cflags --libs pmix)
 */
#include <pmix.h>
#include <pmix_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ; /* not declared by every release's headers */

static void release_copy(void *cbdata) { free(cbdata); }

static pmix_status_t fence_fn(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;
    (void) procs; (void) nprocs; (void) info; (void) ninfo;
    if (0 < ndata) {
        copy = malloc(ndata);
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t finalized_fn(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void) p; (void) obj; (void) cbfunc; (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t abort_fn(const pmix_proc_t *p, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void) p; (void) obj; (void) procs; (void) nprocs; (void) cbfunc; (void) cbdata;
    fprintf(stderr, "openpmix-launcher: abort %d %s\n", status, msg ? msg : "");
    return PMIX_OPERATION_SUCCEEDED;
}

/* a NULL-terminated, malloc'ed copy of the environment (setup_fork appends to it) */
static char **copy_environ(void)
{
    size_t k = 0, i;
    char **out;
    while (environ[k]) k++;
    out = calloc(k + 1, sizeof(char *));
    for (i = 0; i < k; i++) out[i] = strdup(environ[i]);
    return out;
}

static void peak_memory(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f)) {
        if (0 == strncmp(line, "VmHWM:", 6)) {
            fprintf(stderr, "openpmix-launcher: VmHWM %ld kB\n", strtol(line + 6, NULL, 10));
        }
    }
    if (f) fclose(f);
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t *info, *pdata;
    pmix_data_array_t *darray;
    pmix_proc_t proc;
    pmix_nspace_t nspace;
    pmix_status_t rc;
    uint32_t n, r;
    char **env, peers[8192] = "", host[256] = "localhost";
    pid_t *pids;
    int worst = 0, status;
    const char *only;

    if (argc < 3) {
        fprintf(stderr, "usage: openpmix-launcher N PROGRAM [ARGS...]\n");
        return 2;
    }
    n = (uint32_t) strtoul(argv[1], NULL, 10);
    only = getenv("OPENPMIX_LAUNCHER_URI");
    if (NULL != only && '\0' == only[0]) only = NULL;
    gethostname(host, sizeof(host) - 1);
    setenv("PMIX_MCA_gds", "hash", 0); /* unless the caller chose the gds modules */
    memset(&module, 0, sizeof(module));
    module.fence_nb = fence_fn;
    module.client_finalized = finalized_fn;
    module.abort = abort_fn;
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, NULL, 0))) {
        fprintf(stderr, "PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    for (r = 0; r < n; r++) {
        char tmp[16];
        snprintf(tmp, sizeof(tmp), r ? ",%u" : "%u", r);
        strncat(peers, tmp, sizeof(peers) - strlen(peers) - 1);
    }
    PMIX_INFO_CREATE(info, 4 + n);
    PMIX_INFO_LOAD(&info[0], PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    for (r = 0; r < n; r++) {
        uint16_t lr = (uint16_t) r;
        PMIX_DATA_ARRAY_CREATE(darray, 4, PMIX_INFO);
        pdata = (pmix_info_t *) darray->array;
        PMIX_INFO_LOAD(&pdata[0], PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pdata[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pdata[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pdata[3], PMIX_HOSTNAME, host, PMIX_STRING);
        PMIX_INFO_LOAD(&info[4 + r], PMIX_PROC_DATA, darray, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_FREE(darray);
    }
    PMIX_LOAD_NSPACE(nspace, "cjob");
    rc = PMIx_server_register_nspace(nspace, (int) n, info, 4 + n, NULL, NULL);
    if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) {
        fprintf(stderr, "register_nspace: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pids = calloc(n, sizeof(pid_t));
    for (r = 0; r < n; r++) {
        PMIX_LOAD_PROCID(&proc, "cjob", r);
        rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
        if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) {
            fprintf(stderr, "register_client: %s\n", PMIx_Error_string(rc));
            return 1;
        }
        env = copy_environ();
        if (PMIX_SUCCESS != (rc = PMIx_server_setup_fork(&proc, &env))) {
            fprintf(stderr, "setup_fork: %s\n", PMIx_Error_string(rc));
            return 1;
        }
        if (NULL != only) {
            /* keep one PMIX_SERVER_URI<digits> variable: the client speaks its component */
            size_t k = 0, w = 0, len = strlen(only);
            for (; env[k]; k++) {
                int uri = 0 == strncmp(env[k], "PMIX_SERVER_URI", 15) && '0' <= env[k][15] &&
                          env[k][15] <= '9';
                if (uri && !(0 == strncmp(env[k], only, len) && '=' == env[k][len])) {
                    free(env[k]);
                } else {
                    env[w++] = env[k];
                }
            }
            env[w] = NULL;
        }
        pids[r] = fork();
        if (0 == pids[r]) {
            execve(argv[2], &argv[2], env);
            _exit(127);
        }
        for (char **e = env; *e; e++) free(*e);
        free(env);
    }
    for (r = 0; r < n; r++) {
        if (0 < waitpid(pids[r], &status, 0)) {
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            if (code > worst) worst = code;
        }
    }
    peak_memory();
    PMIx_server_finalize();
    return worst;
}
