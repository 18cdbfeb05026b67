/* puppet: one real PMIx tool process driven line by line by the PRRTE bridge
 * (conformance/src/bin/pmix-prrte-bridge.rs). Built inside the sid root against
 * OpenPMIx 7.0.0rc1:  gcc -O1 -o puppet puppet.c $(pkg-config --cflags --libs pmix)
 *
 *   puppet URI NSPACE CTLDIR [scheduler]  a tool (the scheduler with "scheduler"); the jobs
 *                                       it spawns get CTLDIR (a directory inside the root)
 *   puppet --client CTLDIR              a process of a job the bridge spawned: PMIx_Init as
 *                                       a client; each rank writes its pid to
 *                                       CTLDIR/NSPACE.RANK.pid and serves the same commands
 *                                       on the FIFOs CTLDIR/NSPACE.RANK.in and
 *                                       CTLDIR/NSPACE.RANK.out (made here).
 *
 * Commands on stdin, one per line; exactly one answer line per command on stdout:
 *   alloc DIRECTIVE HEX NODES   PMIx_Allocation_request(DIRECTIVE, infos unpacked from HEX
 *                               + PMIX_ALLOC_NODE_LIST=NODES unless NODES is "-");
 *                               after a successful NEW/EXTEND a tool waits (bounded) for
 *                               the PMIX_DVM_IS_READY / PMIX_ERR_DVM_MOD event; a job's
 *                               process never receives it (PRRTE directs it to tools only),
 *                               so the bridge waits for the grown daemons instead.
 *                               -> "ok STATUS HEX READY" (HEX: the returned infos, packed;
 *                               READY 1 when the event came, else 0: a shared grant brings
 *                               none, and the bridge then waits for the daemons itself)
 *   spawn HEX [PPN]             PMIx_Spawn of this puppet in --client mode, PPN processes (default 1)
 *                               per candidate node (PMIX_MAPBY ppr:PPN:node), job infos from HEX
 *                               -> "ok STATUS NSPACE"
 *   ids | alloc_nodes ID | namespaces | procs NSPACE
 *                               PMIx queries -> "ok STATUS a,b,c"
 *   states NSPACE               PMIX_QUERY_PROC_TABLE -> "ok STATUS host:state,..." (the
 *                               pmix_proc_state_t of each process)
 *   kill NSPACE                 PMIx_Job_control(PMIX_JOB_CTRL_KILL) -> "ok STATUS"
 *   warn ID REMAINING           (scheduler) PMIx_Notify_event(PMIX_ALLOC_TIMEOUT_WARNING,
 *                               range RM) -> "ok STATUS"
 *   events                      -> "ok CODE:HEX CODE:HEX ..." (every event received so far)
 *   quit                        PMIx_tool_finalize, exit
 * Every wait is bounded. HEX is one PMIx_Data_pack of the info array (count + infos).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pmix_tool.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char *events = NULL; /* "CODE:HEX CODE:HEX" */
static int ready_events = 0;
static pmix_proc_t me;
/* Where job puppets make their control FIFOs (inside the root; one directory per bridge). */
static const char *ctldir = NULL;

static char *to_hex(const char *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", (unsigned char) p[i]);
    s[2 * n] = 0;
    return s;
}

static char *pack_infos(const pmix_info_t *info, size_t n)
{
    pmix_data_buffer_t buf;
    PMIx_Data_buffer_construct(&buf);
    if (n > 0 && PMIx_Data_pack(NULL, &buf, (void *) info, (int32_t) n, PMIX_INFO) != PMIX_SUCCESS) {
        PMIx_Data_buffer_destruct(&buf);
        return strdup("");
    }
    char *h = to_hex(buf.base_ptr, buf.bytes_used);
    PMIx_Data_buffer_destruct(&buf);
    return h;
}

/* Unpack HEX ("-" or "" = none) into at most 64 infos plus `extra` free slots. */
static pmix_info_t *unpack_infos(const char *hex, size_t *n, size_t extra)
{
    pmix_info_t *info;
    size_t len = strlen(hex);
    PMIX_INFO_CREATE(info, 64 + extra);
    *n = 0;
    if (len < 2 || strcmp(hex, "-") == 0)
        return info;
    char *bytes = malloc(len / 2);
    for (size_t i = 0; i < len / 2; i++)
        sscanf(hex + 2 * i, "%2hhx", (unsigned char *) &bytes[i]);
    pmix_data_buffer_t buf;
    PMIx_Data_buffer_construct(&buf);
    pmix_byte_object_t bo = {.bytes = bytes, .size = len / 2};
    PMIx_Data_load(&buf, &bo); /* the buffer takes the bytes */
    int32_t cnt = 64;
    if (PMIx_Data_unpack(NULL, &buf, info, &cnt, PMIX_INFO) == PMIX_SUCCESS)
        *n = (size_t) cnt;
    PMIx_Data_buffer_destruct(&buf);
    return info;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) source; (void) results; (void) nresults;
    char *h = pack_infos(info, ninfo);
    pthread_mutex_lock(&lock);
    size_t old = events ? strlen(events) : 0;
    events = realloc(events, old + strlen(h) + 32);
    sprintf(events + old, "%s%d:%s", old ? " " : "", status, h);
    if (status == PMIX_DVM_IS_READY || status == PMIX_ERR_DVM_MOD)
        ready_events++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    free(h);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Wait (at most `secs`) until more than `before` grow/shrink events arrived. */
static int wait_ready(int before, int secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (ready_events <= before)
        if (pthread_cond_timedwait(&cond, &lock, &ts) != 0)
            break;
    int ok = ready_events > before;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Append every string found in a value (strings split at commas), or, with `hosts`, the
 * hostnames of proc infos and PMIX_HOSTNAME infos. */
static void collect(const pmix_value_t *v, const char *key, int hosts, char *out, size_t cap)
{
#define ADD(s)                                                         \
    do {                                                               \
        if (strlen(out) + strlen(s) + 2 < cap) {                       \
            if (out[0]) strcat(out, ",");                              \
            strcat(out, s);                                            \
        }                                                              \
    } while (0)
    if (v->type == PMIX_STRING && v->data.string) {
        if (!hosts || (key && strcmp(key, PMIX_HOSTNAME) == 0))
            ADD(v->data.string);
    } else if (v->type == PMIX_DATA_ARRAY && v->data.darray) {
        pmix_data_array_t *d = v->data.darray;
        for (size_t i = 0; i < d->size; i++) {
            if (d->type == PMIX_INFO) {
                pmix_info_t *in = &((pmix_info_t *) d->array)[i];
                collect(&in->value, in->key, hosts, out, cap);
            } else if (d->type == PMIX_STRING) {
                char *s = ((char **) d->array)[i];
                if (s && !hosts) ADD(s);
            } else if (d->type == PMIX_PROC_INFO) {
                pmix_proc_info_t *p = &((pmix_proc_info_t *) d->array)[i];
                if (p->hostname) ADD(p->hostname);
            }
        }
    } else if (v->type == PMIX_PROC_INFO && v->data.pinfo && v->data.pinfo->hostname) {
        ADD(v->data.pinfo->hostname);
    }
}

/* "host:state" of every proc info in a proc table answer. */
static void collect_states(const pmix_value_t *v, char *out, size_t cap)
{
    char one[600];
    if (v->type == PMIX_DATA_ARRAY && v->data.darray) {
        pmix_data_array_t *d = v->data.darray;
        for (size_t i = 0; i < d->size; i++) {
            if (d->type == PMIX_PROC_INFO) {
                pmix_proc_info_t *p = &((pmix_proc_info_t *) d->array)[i];
                snprintf(one, sizeof one, "%s:%d", p->hostname ? p->hostname : "?", (int) p->state);
                ADD(one);
            } else if (d->type == PMIX_INFO) {
                pmix_info_t *in = &((pmix_info_t *) d->array)[i];
                collect_states(&in->value, out, cap);
            }
        }
    } else if (v->type == PMIX_PROC_INFO && v->data.pinfo) {
        snprintf(one, sizeof one, "%s:%d", v->data.pinfo->hostname ? v->data.pinfo->hostname : "?",
                 (int) v->data.pinfo->state);
        ADD(one);
    }
}

static void query(const char *key, const char *qkey, const char *qval, int hosts)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, key);
    if (qkey) {
        PMIX_INFO_CREATE(q.qualifiers, 1);
        q.nqual = 1;
        PMIX_INFO_LOAD(&q.qualifiers[0], qkey, qval, PMIX_STRING);
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    static char out[65536];
    out[0] = 0;
    for (size_t i = 0; i < nres; i++) {
        if (hosts == 2)
            collect_states(&res[i].value, out, sizeof out);
        else
            collect(&res[i].value, res[i].key, hosts, out, sizeof out);
    }
    printf("ok %d %s\n", rc, out[0] ? out : "-");
    if (res) PMIX_INFO_FREE(res, nres);
}

static char self_path[4096];

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: puppet URI NSPACE CTLDIR [scheduler] | puppet --client CTLDIR\n");
        return 2;
    }
    snprintf(self_path, sizeof self_path, "%s", argv[0]);
    FILE *in = stdin;
    /* declared before the client branch's `goto loop` jumps past the tool's set-up, so that
     * the loop never reads one uninitialised (a client's KILL was once sent as whatever
     * its stack held: false now and then); -Wjump-misses-init in puppet.sh keeps it so */
    pmix_status_t rc;
    bool yes = true;
    int client = strcmp(argv[1], "--client") == 0;
    if (client) {
        ctldir = argv[2];
        pmix_status_t crc = PMIx_Init(&me, NULL, 0);
        if (crc != PMIX_SUCCESS)
            return 1;
        PMIx_Register_event_handler(NULL, 0, NULL, 0, on_event, NULL, NULL);
        char pin[4200], pout[4200], ppid[4200];
        snprintf(pin, sizeof pin, "%s/%s.%u.in", argv[2], me.nspace, me.rank);
        snprintf(pout, sizeof pout, "%s/%s.%u.out", argv[2], me.nspace, me.rank);
        snprintf(ppid, sizeof ppid, "%s/%s.%u.pid", argv[2], me.nspace, me.rank);
        FILE *pf = fopen(ppid, "w"); /* the bridge checks that the process still lives */
        if (!pf)
            return 1;
        fprintf(pf, "%d\n", (int) getpid());
        fclose(pf);
        char tmp[4300];
        snprintf(tmp, sizeof tmp, "%s.tmp", pout);
        mkfifo(pin, 0600);
        mkfifo(tmp, 0600);
        int fi = open(pin, O_RDWR), fo = open(tmp, O_RDWR);
        if (fi < 0 || fo < 0)
            return 1;
        rename(tmp, pout); /* .out appears last: both ends exist when the bridge sees it */
        in = fdopen(fi, "r");
        if (!freopen("/dev/null", "w", stdout))
            return 1;
        dup2(fo, 1);
        setvbuf(stdout, NULL, _IOLBF, 0);
        goto loop;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4) {
        printf("err usage: puppet URI NSPACE CTLDIR [scheduler]\n");
        return 2;
    }
    ctldir = argv[3];
    { /* the tool's set-up, scoped: the client branch's goto jumps past it */
        int sched = argc > 4 && strcmp(argv[4], "scheduler") == 0;
        pmix_info_t init[4];
        pmix_rank_t zero = 0;
        PMIX_INFO_LOAD(&init[0], PMIX_SERVER_URI, argv[1], PMIX_STRING);
        PMIX_INFO_LOAD(&init[1], PMIX_TOOL_NSPACE, argv[2], PMIX_STRING);
        PMIX_INFO_LOAD(&init[2], PMIX_TOOL_RANK, &zero, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&init[3], PMIX_SERVER_SCHEDULER, &yes, PMIX_BOOL);
        rc = PMIx_tool_init(&me, init, sched ? 4 : 3);
        if (rc != PMIX_SUCCESS) {
            printf("err init %d\n", rc);
            return 1;
        }
    }
    PMIx_Register_event_handler(NULL, 0, NULL, 0, on_event, NULL, NULL);
    printf("ok 0 %s\n", me.nspace);

loop:;
    static char line[1 << 20];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = 0;
        char *save = NULL, *cmd = strtok_r(line, " ", &save);
        if (!cmd) continue;
        char *a1 = strtok_r(NULL, " ", &save), *a2 = strtok_r(NULL, " ", &save),
             *a3 = strtok_r(NULL, " ", &save);
        if (strcmp(cmd, "quit") == 0) {
            break;
        } else if (strcmp(cmd, "alloc") == 0 && a1 && a2 && a3) {
            size_t n;
            pmix_info_t *info = unpack_infos(a2, &n, 1);
            if (strcmp(a3, "-") != 0)
                PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_NODE_LIST, a3, PMIX_STRING);
            pmix_alloc_directive_t d = (pmix_alloc_directive_t) atoi(a1);
            pthread_mutex_lock(&lock);
            int before = ready_events;
            pthread_mutex_unlock(&lock);
            pmix_info_t *res = NULL;
            size_t nres = 0;
            rc = PMIx_Allocation_request(d, info, n, &res, &nres);
            /* A spawn sent before the grow completes hangs: wait for the phase-two event. */
            int ready = 0;
            if (!client && rc == PMIX_SUCCESS && (d == PMIX_ALLOC_NEW || d == PMIX_ALLOC_EXTEND))
                ready = wait_ready(before, 5);
            char *h = pack_infos(res, nres);
            printf("ok %d %s %d\n", rc, h[0] ? h : "-", ready);
            free(h);
        } else if (strcmp(cmd, "spawn") == 0 && a1) {
            size_t n;
            pmix_info_t *info = unpack_infos(a1, &n, 1);
            char mapby[64];
            int ppn = a2 ? atoi(a2) : 1;
            snprintf(mapby, sizeof mapby, "ppr:%d:node", ppn > 0 ? ppn : 1);
            PMIX_INFO_LOAD(&info[n++], PMIX_MAPBY, mapby, PMIX_STRING);
            pmix_app_t app;
            PMIX_APP_CONSTRUCT(&app);
            /* The job's processes are puppets too, so the job can make requests itself. */
            app.cmd = strdup(self_path);
            PMIx_Argv_append_nosize(&app.argv, self_path);
            PMIx_Argv_append_nosize(&app.argv, "--client");
            PMIx_Argv_append_nosize(&app.argv, ctldir);
            app.maxprocs = 0;
            pmix_nspace_t ns;
            memset(ns, 0, sizeof ns);
            rc = PMIx_Spawn(info, n, &app, 1, ns);
            printf("ok %d %s\n", rc, ns[0] ? ns : "-");
        } else if (strcmp(cmd, "ids") == 0) {
            query(PMIX_QUERY_ALLOC_IDS, NULL, NULL, 0);
        } else if (strcmp(cmd, "alloc_nodes") == 0 && a1) {
            query(PMIX_QUERY_ALLOCATION, PMIX_ALLOC_ID, a1, 1);
        } else if (strcmp(cmd, "namespaces") == 0) {
            query(PMIX_QUERY_NAMESPACES, NULL, NULL, 0);
        } else if (strcmp(cmd, "procs") == 0 && a1) {
            query(PMIX_QUERY_PROC_TABLE, PMIX_NSPACE, a1, 1);
        } else if (strcmp(cmd, "states") == 0 && a1) {
            query(PMIX_QUERY_PROC_TABLE, PMIX_NSPACE, a1, 2);
        } else if (strcmp(cmd, "kill") == 0 && a1) {
            pmix_proc_t target;
            PMIX_LOAD_PROCID(&target, a1, PMIX_RANK_WILDCARD);
            pmix_info_t jc;
            PMIX_INFO_LOAD(&jc, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
            rc = PMIx_Job_control(&target, 1, &jc, 1, NULL, NULL);
            printf("ok %d\n", rc);
        } else if (strcmp(cmd, "warn") == 0 && a1 && a2) {
            pmix_info_t w[2];
            uint32_t rem = (uint32_t) strtoul(a2, NULL, 10);
            PMIX_INFO_LOAD(&w[0], PMIX_ALLOC_ID, a1, PMIX_STRING);
            PMIX_INFO_LOAD(&w[1], PMIX_TIME_REMAINING, &rem, PMIX_UINT32);
            rc = PMIx_Notify_event(PMIX_ALLOC_TIMEOUT_WARNING, &me, PMIX_RANGE_RM, w, 2, NULL, NULL);
            printf("ok %d\n", rc);
        } else if (strcmp(cmd, "events") == 0) {
            pthread_mutex_lock(&lock);
            printf("ok %s\n", events && events[0] ? events : "-");
            pthread_mutex_unlock(&lock);
        } else {
            printf("err unknown command %s\n", cmd);
        }
    }
    if (client)
        PMIx_Finalize(NULL, 0);
    else
        PMIx_tool_finalize();
    return 0;
}
