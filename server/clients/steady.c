/* A steady PMIx client for pmix-server's hostile-peer tests: it stays connected while
 * hostile peers attack the server and times the server's answers. Each round trip is a
 * fence over this process alone (PMIX_FENCENB to the server and its answer).
 * Builds against any OpenPMIx release from 4.2 on:
 *   gcc -Wall -Werror -o steady steady.c $(pkg-config --cflags --libs pmix)
 * Usage: steady stdin    one fence per line read ("fence"), printing "fence STATUS MS";
 *                        "quit" (or the end of input) finalizes
 *        steady loop N   N fences 100 ms apart, then "steady: N fences, max MS ms, failed F"
 * Prints "steady ready RANK" after PMIx_Init; exits 0 only if every fence succeeded. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static pmix_proc_t me;

static pmix_status_t fence_self(double *ms)
{
    double t0 = now_ms();
    pmix_status_t rc = PMIx_Fence(&me, 1, NULL, 0);
    *ms = now_ms() - t0;
    return rc;
}

int main(int argc, char **argv)
{
    int failed = 0;
    double ms;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("steady: PMIx_Init -> %s\n", PMIx_Error_string(rc));
        return 2;
    }
    printf("steady ready %u\n", me.rank);
    fflush(stdout);
    if (argc > 2 && 0 == strcmp(argv[1], "loop")) {
        int n = atoi(argv[2]);
        double max = 0;
        for (int i = 0; i < n; i++) {
            if (PMIX_SUCCESS != fence_self(&ms)) {
                failed++;
            }
            if (ms > max) {
                max = ms;
            }
            usleep(100000);
        }
        printf("steady: %d fences, max %.1f ms, failed %d\n", n, max, failed);
        fflush(stdout);
    } else {
        char line[64];
        while (NULL != fgets(line, sizeof line, stdin) && 0 != strncmp(line, "quit", 4)) {
            rc = fence_self(&ms);
            failed += PMIX_SUCCESS != rc;
            printf("fence %d %.1f\n", rc, ms);
            fflush(stdout);
        }
    }
    rc = PMIx_Finalize(NULL, 0);
    return failed || PMIX_SUCCESS != rc;
}
