/*
 * pmix-bench-c: times the installed OpenPMIx's pack and unpack on the benchmark
 * workloads of pmix-wire (codec/benches/support/workloads.rs builds the same values).
 *
 *   pmix-bench-c WORKLOAD COMPONENT KIND REPS DUMPFILE
 *
 * WORKLOAD is info, proc, bytes or jobmap; COMPONENT a bfrops component name (v3, v41,
 * ...); KIND nd (non-described) or fd (fully described). The program builds the
 * workload's C values, packs them REPS times into a fresh buffer and unpacks the bytes
 * REPS times into a fresh destination array, timing only the pack or unpack call of
 * the component's module (pmix_bfrops_base_assign_module), and prints one line:
 *
 *   ok bytes=N pack_ns=BEST unpack_ns=BEST repack=same
 *
 * BEST is the fastest repetition in nanoseconds. The packed bytes are written to
 * DUMPFILE so the caller can check they equal its own; "repack=same" says the values
 * unpacked by the library pack again to the same bytes (so unpack did the whole job).
 * On failure it prints "err ..." and exits non-zero.
 *
 * Written for this project; it only links against libpmix.
 */

#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "src/include/pmix_config.h"
#include "src/class/pmix_object.h"
#include "src/mca/bfrops/bfrops.h"

/* must match codec/benches/support/workloads.rs */
#define INFO_N 10000
#define PROC_N 100000
#define BYTES_N 4096
#define BYTES_LEN 176
#define JOBMAP_NODES 256
#define JOBMAP_PPN 16
#define NSPACE "prterun-host-12345@1"

static void die(const char *fmt, const char *a, int b)
{
    printf("err ");
    printf(fmt, a, b);
    printf("\n");
    fflush(stdout);
    exit(1);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* Workloads.                                                                 */

static void info_string(size_t i, char out[33])
{
    for (size_t j = 0; j < 32; j++) {
        out[j] = (char) ('a' + (i + 7 * j) % 26);
    }
    out[32] = '\0';
}

static void load_proc(pmix_proc_t *p, uint32_t rank)
{
    memset(p, 0, sizeof(*p));
    PMIX_LOAD_NSPACE(p->nspace, NSPACE);
    p->rank = rank;
}

static pmix_info_t *make_info(void)
{
    pmix_info_t *a;
    PMIX_INFO_CREATE(a, INFO_N);
    for (size_t i = 0; i < INFO_N; i++) {
        char key[32];
        snprintf(key, sizeof(key), "pmix.job.key.%05zu", i);
        switch (i % 5) {
        case 0: {
            uint32_t v = (uint32_t) i * 7919u;
            PMIX_INFO_LOAD(&a[i], key, &v, PMIX_UINT32);
            break;
        }
        case 1: {
            char s[33];
            info_string(i, s);
            PMIX_INFO_LOAD(&a[i], key, s, PMIX_STRING);
            break;
        }
        case 2: {
            pmix_proc_t p;
            load_proc(&p, (uint32_t) i);
            PMIX_INFO_LOAD(&a[i], key, &p, PMIX_PROC);
            break;
        }
        case 3: {
            bool b = (i / 5) % 2 == 0;
            PMIX_INFO_LOAD(&a[i], key, &b, PMIX_BOOL);
            break;
        }
        default: {
            uint64_t v = (uint64_t) i * 1000003u;
            PMIX_INFO_LOAD(&a[i], key, &v, PMIX_UINT64);
            break;
        }
        }
    }
    return a;
}

static pmix_proc_t *make_proc(void)
{
    pmix_proc_t *a = calloc(PROC_N, sizeof(pmix_proc_t));
    for (size_t i = 0; i < PROC_N; i++) {
        load_proc(&a[i], (uint32_t) i);
    }
    return a;
}

static pmix_byte_object_t *make_bytes(void)
{
    pmix_byte_object_t *a = calloc(BYTES_N, sizeof(pmix_byte_object_t));
    for (size_t i = 0; i < BYTES_N; i++) {
        a[i].bytes = malloc(BYTES_LEN);
        a[i].size = BYTES_LEN;
        for (size_t j = 0; j < BYTES_LEN; j++) {
            a[i].bytes[j] = (char) ((i * 31 + j * 7) & 0xff);
        }
    }
    return a;
}

static pmix_info_t *make_jobmap(void)
{
    pmix_info_t *nodes;
    PMIX_INFO_CREATE(nodes, JOBMAP_NODES);
    for (size_t n = 0; n < JOBMAP_NODES; n++) {
        size_t first = n * JOBMAP_PPN;
        char host[32], peers[256];
        size_t off = 0;
        uint32_t nodeid = (uint32_t) n, lsize = JOBMAP_PPN;
        pmix_data_array_t *fields, *procs;
        pmix_info_t *f;
        pmix_proc_t *p;

        snprintf(host, sizeof(host), "node%05zu", n);
        for (size_t r = first; r < first + JOBMAP_PPN; r++) {
            off += (size_t) snprintf(peers + off, sizeof(peers) - off, "%s%zu", r == first ? "" : ",", r);
        }
        PMIX_DATA_ARRAY_CREATE(procs, JOBMAP_PPN, PMIX_PROC);
        p = procs->array;
        for (size_t r = 0; r < JOBMAP_PPN; r++) {
            load_proc(&p[r], (uint32_t) (first + r));
        }
        PMIX_DATA_ARRAY_CREATE(fields, 5, PMIX_INFO);
        f = fields->array;
        PMIX_INFO_LOAD(&f[0], "pmix.hname", host, PMIX_STRING);
        PMIX_INFO_LOAD(&f[1], "pmix.nodeid", &nodeid, PMIX_UINT32);
        PMIX_INFO_LOAD(&f[2], "pmix.lpeers", peers, PMIX_STRING);
        PMIX_INFO_LOAD(&f[3], "pmix.local.size", &lsize, PMIX_UINT32);
        PMIX_LOAD_KEY(f[4].key, "pmix.node.procs");
        f[4].flags = 0; /* PMIX_INFO_CREATE marked the last one PMIX_INFO_ARRAY_END */
        f[4].value.type = PMIX_DATA_ARRAY;
        f[4].value.data.darray = procs;
        PMIX_LOAD_KEY(nodes[n].key, "pmix.node.info");
        nodes[n].flags = 0;
        nodes[n].value.type = PMIX_DATA_ARRAY;
        nodes[n].value.data.darray = fields;
    }
    return nodes;
}

/* ------------------------------------------------------------------------ */

typedef struct {
    pmix_data_type_t type;
    int32_t count;
    size_t elem;
    void *src;
} workload_t;

static workload_t make_workload(const char *name)
{
    workload_t w;
    if (0 == strcmp(name, "info")) {
        w = (workload_t){PMIX_INFO, INFO_N, sizeof(pmix_info_t), make_info()};
    } else if (0 == strcmp(name, "proc")) {
        w = (workload_t){PMIX_PROC, PROC_N, sizeof(pmix_proc_t), make_proc()};
    } else if (0 == strcmp(name, "bytes")) {
        w = (workload_t){PMIX_BYTE_OBJECT, BYTES_N, sizeof(pmix_byte_object_t), make_bytes()};
    } else if (0 == strcmp(name, "jobmap")) {
        w = (workload_t){PMIX_INFO, JOBMAP_NODES, sizeof(pmix_info_t), make_jobmap()};
    } else {
        die("unknown workload %s%.0d", name, 0);
    }
    return w;
}

/* free what the library allocated inside unpacked values */
static void release_values(const workload_t *w, void *dest, int32_t n)
{
    if (PMIX_INFO == w->type) {
        pmix_info_t *a = dest;
        for (int32_t i = 0; i < n; i++) {
            PMIX_INFO_DESTRUCT(&a[i]);
        }
    } else if (PMIX_BYTE_OBJECT == w->type) {
        pmix_byte_object_t *a = dest;
        for (int32_t i = 0; i < n; i++) {
            free(a[i].bytes);
        }
    }
}

static pmix_buffer_t *new_buffer(pmix_bfrop_buffer_type_t kind)
{
    pmix_buffer_t *b = PMIX_NEW(pmix_buffer_t);
    if (NULL == b) {
        die("%s cannot create a buffer%.0d", "", 0);
    }
    b->type = kind;
    return b;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t tinfo;
    bool yes = true;
    pmix_status_t rc;
    pmix_bfrops_module_t *mod;
    pmix_bfrop_buffer_type_t kind;
    workload_t w;
    long reps;
    uint64_t best_pack = UINT64_MAX, best_unpack = UINT64_MAX;
    char *bytes = NULL;
    size_t nbytes = 0;
    pmix_buffer_t *in;
    void *dest;
    bool repack_same = false;
    FILE *f;

    if (6 != argc) {
        fprintf(stderr, "usage: pmix-bench-c WORKLOAD COMPONENT KIND REPS DUMPFILE\n");
        return 2;
    }
    reps = strtol(argv[4], NULL, 10);
    if (reps < 1 || reps > 100000) {
        die("bad repetition count %s%.0d", argv[4], 0);
    }
    if (0 == strcmp(argv[3], "nd")) {
        kind = PMIX_BFROP_BUFFER_NON_DESC;
    } else if (0 == strcmp(argv[3], "fd")) {
        kind = PMIX_BFROP_BUFFER_FULLY_DESC;
    } else {
        die("bad buffer kind %s%.0d", argv[3], 0);
    }

    PMIX_INFO_LOAD(&tinfo, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    rc = PMIx_tool_init(&me, &tinfo, 1);
    if (PMIX_SUCCESS != rc) {
        die("PMIx_tool_init failed: %s (%d)", PMIx_Error_string(rc), (int) rc);
    }
    mod = pmix_bfrops_base_assign_module(argv[2]);
    if (NULL == mod) {
        die("unknown component %s%.0d", argv[2], 0);
    }
    w = make_workload(argv[1]);

    /* pack: a fresh buffer each time, only the pack call is timed */
    for (long r = 0; r < reps; r++) {
        pmix_buffer_t *b = new_buffer(kind);
        uint64_t t0 = now_ns(), dt;
        rc = mod->pack(b, w.src, w.count, w.type);
        dt = now_ns() - t0;
        if (PMIX_SUCCESS != rc) {
            die("pack failed: %s (%d)", PMIx_Error_string(rc), (int) rc);
        }
        if (dt < best_pack) {
            best_pack = dt;
        }
        if (0 == r) {
            nbytes = b->bytes_used;
            bytes = malloc(nbytes);
            memcpy(bytes, b->base_ptr, nbytes);
        } else if (b->bytes_used != nbytes || 0 != memcmp(bytes, b->base_ptr, nbytes)) {
            die("pack is not deterministic%s%.0d", "", 0);
        }
        PMIX_RELEASE(b);
    }

    f = fopen(argv[5], "wb");
    if (NULL == f || 1 != fwrite(bytes, nbytes, 1, f) || 0 != fclose(f)) {
        die("cannot write %s%.0d", argv[5], 0);
    }

    /* unpack: the same input buffer rewound, a zeroed destination each time, only the
     * unpack call is timed */
    in = new_buffer(kind);
    in->base_ptr = malloc(nbytes);
    memcpy(in->base_ptr, bytes, nbytes);
    in->bytes_allocated = nbytes;
    in->bytes_used = nbytes;
    in->pack_ptr = in->base_ptr + nbytes;
    dest = calloc((size_t) w.count, w.elem);
    for (long r = 0; r < reps; r++) {
        int32_t n = w.count;
        uint64_t t0, dt;
        memset(dest, 0, (size_t) w.count * w.elem);
        in->unpack_ptr = in->base_ptr;
        t0 = now_ns();
        rc = mod->unpack(in, dest, &n, w.type);
        dt = now_ns() - t0;
        if (PMIX_SUCCESS != rc || n != w.count) {
            die("unpack failed: %s (%d)", PMIx_Error_string(rc), (int) rc);
        }
        if (dt < best_unpack) {
            best_unpack = dt;
        }
        if (0 == r) {
            /* what the library read must pack to the same bytes */
            pmix_buffer_t *b = new_buffer(kind);
            rc = mod->pack(b, dest, n, w.type);
            repack_same = PMIX_SUCCESS == rc && b->bytes_used == nbytes &&
                          0 == memcmp(b->base_ptr, bytes, nbytes);
            PMIX_RELEASE(b);
        }
        release_values(&w, dest, n);
    }
    PMIX_RELEASE(in);

    printf("ok bytes=%zu pack_ns=%llu unpack_ns=%llu repack=%s\n", nbytes,
           (unsigned long long) best_pack, (unsigned long long) best_unpack,
           repack_same ? "same" : "different");
    fflush(stdout);
    /* skip PMIx_tool_finalize: nothing to clean up for an unconnected tool */
    _exit(0);
}
