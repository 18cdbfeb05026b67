/* mpi-check: one small MPI program for the live matrix's MPI rows (tools/live/mpi.sh).
 *
 *   mpi-check N [spawn]
 *
 * N is the number of ranks the launcher was asked for (an argument, not the environment,
 * so that no launcher's environment forwarding rules matter).
 * Each check prints one line on stdout, flushed at once:
 *   MPI <check> ok|fail rank=R <detail>
 * checks, in order:
 *   library    MPI_Get_library_version (always ok once MPI_Init returned; names the build)
 *   init       MPI_Init returned MPI_SUCCESS
 *   size       MPI_Comm_size equals N (the launched count) and the rank is in
 *              range: a rank that came up as a singleton (size 1 of a 2-rank launch) fails
 *   allreduce  MPI_Allreduce of rank+1 (MPI_SUM) and of rank (MPI_MAX) over MPI_COMM_WORLD
 *              equal N(N+1)/2 and N-1
 *   barrier    MPI_Barrier returned MPI_SUCCESS
 *   spawn      only with the argument spawn: MPI_Comm_spawn of one child (this binary, in
 *              child mode) with MPI_ERRORS_RETURN; rank 0 sends the child a token over the
 *              intercommunicator and expects it back plus one; then MPI_Comm_disconnect
 *   child      (printed by the spawned child) MPI_Comm_get_parent is not MPI_COMM_NULL, the
 *              parent group's size is N, its own world size is 1, the token
 *              arrived
 *   finalize   MPI_Finalize returned MPI_SUCCESS
 * Exits 0 when every check it ran is ok, 1 otherwise (2: N missing or invalid).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
static int me = -1;

static void report(const char *check, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(const char *check, int ok, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (!ok) ++failures;
    printf("MPI %s %s rank=%d %s\n", check, ok ? "ok" : "fail", me, detail);
    fflush(stdout);
}

static const char *err_string(int rc)
{
    static char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_SUCCESS != MPI_Error_string(rc, s, &len)) snprintf(s, sizeof(s), "error %d", rc);
    return s;
}

static int child_main(MPI_Comm parent, int np)
{
    int wsize = -1, psize = -1, token = -1, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_remote_size(parent, &psize);
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    rc = MPI_Recv(&token, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
    if (MPI_SUCCESS == rc) {
        int back = token + 1;
        rc = MPI_Send(&back, 1, MPI_INT, 0, 8, parent);
    }
    report("child", MPI_SUCCESS == rc && psize == np && wsize == 1 && token == 4242,
           "parent_size=%d expected=%d world_size=%d token=%d rc=%s", psize, np, wsize, token,
           MPI_SUCCESS == rc ? "0" : err_string(rc));
    rc = MPI_Comm_disconnect(&parent);
    if (MPI_SUCCESS != rc) report("child-disconnect", 0, "%s", err_string(rc));
    rc = MPI_Finalize();
    report("finalize", MPI_SUCCESS == rc, "child=1");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    int np = argc > 1 ? atoi(argv[1]) : 0;
    int spawn = argc > 2 && 0 == strcmp(argv[2], "spawn");
    int size = -1, rc, len = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm parent = MPI_COMM_NULL;

    if (np <= 0) {
        fprintf(stderr, "usage: mpi-check N [spawn]   (N: the launched number of ranks)\n");
        return 2;
    }
    rc = MPI_Init(&argc, &argv);
    if (MPI_SUCCESS != rc) {
        report("init", 0, "MPI_Init returned %d", rc);
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_get_parent(&parent);
    if (MPI_COMM_NULL != parent) return child_main(parent, np);

    MPI_Get_library_version(lib, &len);
    {
        char *nl = strchr(lib, '\n'), *comma = strchr(lib, ',');
        if (nl) *nl = 0;
        if (comma) *comma = 0;
    }
    report("library", 1, "\"%s\"", lib);
    report("init", 1, "pid=%d", (int) getpid());
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    report("size", size == np && me >= 0 && me < size, "size=%d expected=%d%s", size, np,
           (size == 1 && np > 1) ? " singleton" : "");

    {
        int mine[2] = {me + 1, me}, sum = -1, max = -1;
        int want_sum = size * (size + 1) / 2, want_max = size - 1;
        rc = MPI_Allreduce(&mine[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (MPI_SUCCESS == rc) rc = MPI_Allreduce(&mine[1], &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        /* judged against the launched count: a singleton's sum of 1 is not 3 */
        want_sum = np * (np + 1) / 2;
        want_max = np - 1;
        report("allreduce", MPI_SUCCESS == rc && sum == want_sum && max == want_max,
               "sum=%d expected=%d max=%d expected=%d%s%s", sum, want_sum, max, want_max,
               MPI_SUCCESS == rc ? "" : " rc=", MPI_SUCCESS == rc ? "" : err_string(rc));
    }

    rc = MPI_Barrier(MPI_COMM_WORLD);
    report("barrier", MPI_SUCCESS == rc, "%s", MPI_SUCCESS == rc ? "rc=0" : err_string(rc));

    if (spawn) {
        MPI_Comm inter = MPI_COMM_NULL;
        int errcode = 0, token = 4242, back = -1;
        char *cargv[] = {argv[1], NULL}; /* the child learns N from its argument too */
        rc = MPI_Comm_spawn(argv[0], cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, &errcode);
        if (MPI_SUCCESS != rc || MPI_COMM_NULL == inter) {
            report("spawn", 0, "MPI_Comm_spawn: %s (errcode %d)", err_string(rc), errcode);
        } else {
            int rsize = -1;
            MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
            MPI_Comm_remote_size(inter, &rsize);
            if (0 == me) {
                rc = MPI_Send(&token, 1, MPI_INT, 0, 7, inter);
                if (MPI_SUCCESS == rc) rc = MPI_Recv(&back, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
            } else {
                back = token + 1; /* only rank 0 talks to the child */
            }
            report("spawn", MPI_SUCCESS == rc && rsize == 1 && back == token + 1,
                   "children=%d expected=1 reply=%d expected=%d%s%s", rsize, back, token + 1,
                   MPI_SUCCESS == rc ? "" : " rc=", MPI_SUCCESS == rc ? "" : err_string(rc));
            rc = MPI_Comm_disconnect(&inter);
            if (MPI_SUCCESS != rc) report("spawn-disconnect", 0, "%s", err_string(rc));
        }
    }

    rc = MPI_Finalize();
    report("finalize", MPI_SUCCESS == rc, "%s", MPI_SUCCESS == rc ? "rc=0" : "MPI_Finalize failed");
    return failures ? 1 : 0;
}
