/*
 * pmix-oracle: a byte oracle over the installed OpenPMIx bfrops components.
 *
 * One file on purpose: tools/peers.sh copies this file with build.sh into each
 * release's root and stamps every release's oracle build with its hash, build.sh
 * compiles it as one unit, and the vectors' provenance names it; its sections
 * (heap, type ids, request memory, output, tokens, C layouts, builders, printers,
 * requests) are layers of one program, each using the ones above it.
 *
 * Reads one request per line on stdin and answers one line per request on
 * stdout; the line protocol is specified in tools/oracle/PROTOCOL.md (the
 * contract with the Rust side). Requests are turned into the C structures a
 * PMIx program would hand to the library, packed or unpacked through the
 * chosen component's module (pmix_bfrops_base_assign_module), and the
 * results are printed as hex or in the token syntax.
 *
 * Written for this project; it only links against libpmix.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "src/include/pmix_config.h"
#include "src/class/pmix_list.h"
#include "src/class/pmix_object.h"
#include "src/mca/bfrops/bfrops.h"

#ifdef ORACLE_HWLOC
#include <hwloc.h>
#endif

/* Which types the library's headers define: the STATS types (61-64) left after 6.0, the
 * newer structs arrived in 6.0 (70-72), 6.1 (73) and 7.0 (74, 75). A type the headers do
 * not define has no C layout here; its tokens are skipped and the library's refusal is
 * what gets observed. */
#ifdef PMIX_PROC_STATS
#define ORACLE_HAS_STATS 1
#endif
#ifdef PMIX_DEVICE
#define ORACLE_HAS_DEVICE 1
#endif
#ifdef PMIX_RESOURCE_UNIT
#define ORACLE_HAS_RESOURCE_UNIT 1
#endif
#ifdef PMIX_NODE_PID
#define ORACLE_HAS_NODE_PID 1
#endif
#ifdef PMIX_REGEX2
#define ORACLE_HAS_REGEX2 1
#endif
#ifdef PMIX_ALLOC_INHERIT
#define ORACLE_HAS_ALLOC_INHERIT 1
#endif
#ifdef PMIX_RESBLOCK_DIRECTIVE
#define ORACLE_HAS_RESBLOCK 1
#endif

/* ------------------------------------------------------------------------ */
/* Deterministic heap.                                                        */

/* Every heap block (ours and libpmix's) is zero-filled and followed by ZPAD
 * zero bytes: the 4.2.2 unpackers leave strings unterminated and fields
 * uninitialised on some inputs, and reading those must give the same answer
 * every time instead of heap garbage. Not under AddressSanitizer, which needs
 * its own allocator. */
/* Allocation sizes are noted (below) only while a request holds a REGEX: otherwise
 * malloc stays a plain tail call, so the stack garbage that some releases read (quirk
 * U14) is what it always was. */
static bool g_ring_on;

#if !defined(__SANITIZE_ADDRESS__) && !defined(ORACLE_NO_MALLOC_WRAP)
#define ZPAD 16
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* The sizes asked for by the most recent allocations, newest last: a REGEX the
 * library unpacked is one block whose bytes may hold NULs (the compress module's
 * `blob:` framing), and only the size the library asked for says where it ends. */
#define ORACLE_RING 4096
static struct {
    void *p;
    size_t n;
} g_ring[ORACLE_RING];
static unsigned long g_ring_next;

static __attribute__((noinline)) void *noted(void *p, size_t n)
{
    if (NULL != p) {
        unsigned long i = __atomic_fetch_add(&g_ring_next, 1, __ATOMIC_RELAXED) % ORACLE_RING;
        g_ring[i].p = p;
        g_ring[i].n = n;
    }
    return p;
}

/* The size asked for when `p` was allocated, if it is among the recent blocks. */
static bool asked_size(const void *p, size_t *n)
{
    unsigned long end = __atomic_load_n(&g_ring_next, __ATOMIC_RELAXED);
    for (unsigned long k = 0; k < ORACLE_RING && k < end; k++) {
        unsigned long i = (end - 1 - k) % ORACLE_RING;
        if (g_ring[i].p == p) {
            *n = g_ring[i].n;
            return true;
        }
    }
    return false;
}

void *malloc(size_t n)
{
    if (n > SIZE_MAX - ZPAD) {
        errno = ENOMEM;
        return NULL;
    }
    if (!g_ring_on) {
        return __libc_calloc(1, n + ZPAD);
    }
    return noted(__libc_calloc(1, n + ZPAD), n);
}

void *calloc(size_t a, size_t b)
{
    if (0 != a && b > (SIZE_MAX - ZPAD) / a) {
        errno = ENOMEM;
        return NULL;
    }
    if (!g_ring_on) {
        return __libc_calloc(1, a * b + ZPAD);
    }
    return noted(__libc_calloc(1, a * b + ZPAD), a * b);
}

void *realloc(void *p, size_t n)
{
    size_t old = (NULL != p) ? malloc_usable_size(p) : 0;
    char *q;
    if (n > SIZE_MAX - ZPAD) {
        errno = ENOMEM;
        return NULL;
    }
    q = __libc_realloc(p, n + ZPAD);
    if (NULL != q) {
        size_t now = malloc_usable_size(q);
        if (now > old) {
            memset(q + old, 0, now - old);
        }
        /* the bytes after n may hold old data when shrinking */
        memset(q + n, 0, ZPAD);
    }
    return g_ring_on ? noted(q, n) : q;
}
#else
static bool asked_size(const void *p, size_t *n)
{
    (void) p;
    (void) n;
    return false;
}
#endif

/* ------------------------------------------------------------------------ */
/* Type ids (numeric, so the deprecated and post-4.2 ids need no headers).   */

enum {
    T_UNDEF = 0, T_BOOL = 1, T_BYTE = 2, T_STRING = 3, T_SIZE = 4, T_PID = 5, T_INT = 6,
    T_INT8 = 7, T_INT16 = 8, T_INT32 = 9, T_INT64 = 10, T_UINT = 11, T_UINT8 = 12,
    T_UINT16 = 13, T_UINT32 = 14, T_UINT64 = 15, T_FLOAT = 16, T_DOUBLE = 17, T_TIMEVAL = 18,
    T_TIME = 19, T_STATUS = 20, T_VALUE = 21, T_PROC = 22, T_APP = 23, T_INFO = 24,
    T_PDATA = 25, T_BUFFER = 26, T_BYTE_OBJECT = 27, T_KVAL = 28, T_MODEX = 29,
    T_PERSIST = 30, T_POINTER = 31, T_SCOPE = 32, T_DATA_RANGE = 33, T_COMMAND = 34,
    T_INFO_DIRECTIVES = 35, T_DATA_TYPE = 36, T_PROC_STATE = 37, T_PROC_INFO = 38,
    T_DATA_ARRAY = 39, T_PROC_RANK = 40, T_QUERY = 41, T_COMPRESSED_STRING = 42,
    T_ALLOC_DIRECTIVE = 43, T_INFO_ARRAY = 44, T_IOF_CHANNEL = 45, T_ENVAR = 46, T_COORD = 47,
    T_REGATTR = 48, T_REGEX = 49, T_JOB_STATE = 50, T_LINK_STATE = 51, T_PROC_CPUSET = 52,
    T_GEOMETRY = 53, T_DEVICE_DIST = 54, T_ENDPOINT = 55, T_TOPO = 56, T_DEVTYPE = 57,
    T_LOCTYPE = 58, T_COMPRESSED_BYTE_OBJECT = 59, T_PROC_NSPACE = 60, T_PROC_STATS = 61,
    T_DISK_STATS = 62, T_NET_STATS = 63, T_NODE_STATS = 64, T_DATA_BUFFER = 65,
    T_STOR_MEDIUM = 66, T_STOR_ACCESS = 67, T_STOR_PERSIST = 68, T_STOR_ACCESS_TYPE = 69,
    /* not known to 4.2.2; accepted so the library's refusal can be observed */
    T_DEVICE = 70, T_RESBLOCK_DIRECTIVE = 71, T_RESOURCE_UNIT = 72, T_NODE_PID = 73,
    T_REGEX2 = 74, T_ALLOC_INHERIT = 75,
    T_NAMED_MAX = 75
};

static const char *const type_names[T_NAMED_MAX + 1] = {
    "UNDEF", "BOOL", "BYTE", "STRING", "SIZE", "PID", "INT", "INT8", "INT16", "INT32",
    "INT64", "UINT", "UINT8", "UINT16", "UINT32", "UINT64", "FLOAT", "DOUBLE", "TIMEVAL",
    "TIME", "STATUS", "VALUE", "PROC", "APP", "INFO", "PDATA", "BUFFER", "BYTE_OBJECT",
    "KVAL", "MODEX", "PERSIST", "POINTER", "SCOPE", "DATA_RANGE", "COMMAND",
    "INFO_DIRECTIVES", "DATA_TYPE", "PROC_STATE", "PROC_INFO", "DATA_ARRAY", "PROC_RANK",
    "QUERY", "COMPRESSED_STRING", "ALLOC_DIRECTIVE", "INFO_ARRAY", "IOF_CHANNEL", "ENVAR",
    "COORD", "REGATTR", "REGEX", "JOB_STATE", "LINK_STATE", "PROC_CPUSET", "GEOMETRY",
    "DEVICE_DIST", "ENDPOINT", "TOPO", "DEVTYPE", "LOCTYPE", "COMPRESSED_BYTE_OBJECT",
    "PROC_NSPACE", "PROC_STATS", "DISK_STATS", "NET_STATS", "NODE_STATS", "DATA_BUFFER",
    "STOR_MEDIUM", "STOR_ACCESS", "STOR_PERSIST", "STOR_ACCESS_TYPE", "DEVICE",
    "RESBLOCK_DIRECTIVE", "RESOURCE_UNIT", "NODE_PID", "REGEX2", "ALLOC_INHERIT"};

/* Structures of deprecated types that the public headers no longer carry; the
 * layouts are the ones the v12 ... v3 components use. */
typedef struct {
    char nspace[PMIX_MAX_NSLEN + 1];
    int rank;
    uint8_t *blob;
    size_t size;
} oracle_modex_t;

typedef struct {
    size_t size;
    pmix_info_t *array;
} oracle_info_array_t;

/* Which component the current request uses (some of them lay a VALUE out
 * differently). */
enum { C_V12, C_V20, C_V21, C_V3, C_V4, C_V41, C_OTHER };
static int g_comp = C_OTHER;

/* ------------------------------------------------------------------------ */
/* Request-scoped memory and error exits.                                     */

struct arena_blk {
    struct arena_blk *next;
    max_align_t data[];
};
static struct arena_blk *g_arena;

static jmp_buf g_bad_jmp;
static char g_bad_msg[300];

static void bad(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_bad_msg, sizeof(g_bad_msg), fmt, ap);
    va_end(ap);
    longjmp(g_bad_jmp, 1);
}

/* zeroed, lives until the end of the request */
static void *arena_alloc(size_t n)
{
    struct arena_blk *b;
    if (n > ((size_t) 1 << 36)) {
        bad("allocation of %zu bytes refused", n);
    }
    b = calloc(1, sizeof(*b) + n + 16);
    if (NULL == b) {
        bad("out of memory (%zu bytes)", n);
    }
    b->next = g_arena;
    g_arena = b;
    return b->data;
}

#ifdef ORACLE_HWLOC
#define MAX_BITMAPS 4096
static hwloc_bitmap_t g_bitmaps[MAX_BITMAPS];
static size_t g_nbitmaps;
#endif

static void arena_reset(void)
{
    while (NULL != g_arena) {
        struct arena_blk *n = g_arena->next;
        free(g_arena);
        g_arena = n;
    }
#ifdef ORACLE_HWLOC
    while (g_nbitmaps > 0) {
        hwloc_bitmap_free(g_bitmaps[--g_nbitmaps]);
    }
#endif
}

/* multiply with overflow check */
static size_t mul_sz(size_t a, size_t b)
{
    if (0 != a && b > SIZE_MAX / a) {
        bad("size overflow");
    }
    return a * b;
}

static size_t add_sz(size_t a, size_t b)
{
    if (a > SIZE_MAX - b) {
        bad("size overflow");
    }
    return a + b;
}

/* ------------------------------------------------------------------------ */
/* Output line builder.                                                       */

typedef struct {
    char *s;
    size_t len, cap;
} sbuf_t;

static void sb_reserve(sbuf_t *b, size_t extra)
{
    if (b->len + extra + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + extra + 1) {
            nc *= 2;
        }
        char *ns = realloc(b->s, nc);
        if (NULL == ns) {
            fprintf(stderr, "pmix-oracle: out of memory for output\n");
            _exit(3);
        }
        b->s = ns;
        b->cap = nc;
    }
}

static void sb_raw(sbuf_t *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_str(sbuf_t *b, const char *s)
{
    sb_raw(b, s, strlen(s));
}

/* append one token, space-separated from what is already there */
static void sb_tok(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_tok(sbuf_t *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0) {
        n = 0;
    }
    if (b->len > 0) {
        sb_raw(b, " ", 1);
    }
    sb_raw(b, tmp, (size_t) n < sizeof(tmp) ? (size_t) n : sizeof(tmp) - 1);
}

static void sb_hex_raw(sbuf_t *b, const void *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    const unsigned char *c = p;
    sb_reserve(b, 2 * n);
    for (size_t i = 0; i < n; i++) {
        b->s[b->len++] = hx[c[i] >> 4];
        b->s[b->len++] = hx[c[i] & 15];
    }
    b->s[b->len] = '\0';
}

/* a token made of a prefix and the hex of some bytes */
static void sb_hex_tok(sbuf_t *b, const char *prefix, const void *p, size_t n)
{
    if (b->len > 0) {
        sb_raw(b, " ", 1);
    }
    sb_str(b, prefix);
    sb_hex_raw(b, p, n);
}

/* ------------------------------------------------------------------------ */
/* Request tokens.                                                            */

static char **g_tok;
static size_t g_ntok, g_tokcap, g_pos;

static void tokenize(char *line)
{
    char *p = line;
    g_ntok = 0;
    g_pos = 0;
    while (*p) {
        while (' ' == *p || '\t' == *p) {
            *p++ = '\0';
        }
        if ('\0' == *p) {
            break;
        }
        if (g_ntok == g_tokcap) {
            size_t nc = g_tokcap ? 2 * g_tokcap : 64;
            char **nt = realloc(g_tok, nc * sizeof(char *));
            if (NULL == nt) {
                fprintf(stderr, "pmix-oracle: out of memory for tokens\n");
                _exit(3);
            }
            g_tok = nt;
            g_tokcap = nc;
        }
        g_tok[g_ntok++] = p;
        while (*p && ' ' != *p && '\t' != *p) {
            p++;
        }
    }
}

static size_t toks_left(void)
{
    return g_ntok - g_pos;
}

static const char *next_tok(const char *what)
{
    if (g_pos >= g_ntok) {
        bad("unexpected end of request (expected %s)", what);
    }
    return g_tok[g_pos++];
}

static const char *peek_tok(void)
{
    return g_pos < g_ntok ? g_tok[g_pos] : NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* decode hex into a fresh zeroed arena block with `extra` spare zero bytes */
static unsigned char *hex_decode(const char *h, size_t *len, size_t extra, const char *what)
{
    size_t n = strlen(h);
    unsigned char *out;
    if (n % 2) {
        bad("odd-length hex in %s", what);
    }
    out = arena_alloc(add_sz(n / 2, extra));
    for (size_t i = 0; i < n / 2; i++) {
        int a = hexval(h[2 * i]), c = hexval(h[2 * i + 1]);
        if (a < 0 || c < 0) {
            bad("bad hex digit in %s", what);
        }
        out[i] = (unsigned char) (a * 16 + c);
    }
    *len = n / 2;
    return out;
}

/* An integer of `bits` bits: any value in [-2^(bits-1), 2^bits - 1], returned
 * truncated to the width (two's complement). */
static uint64_t tok_int(int bits, const char *what)
{
    const char *t = next_tok(what);
    char *end;
    uint64_t v;
    errno = 0;
    if ('-' == t[0]) {
        long long s = strtoll(t, &end, 10);
        if (errno || *end || end == t + 1) {
            bad("bad %s %s", what, t);
        }
        if (bits < 64 && s < -(1LL << (bits - 1))) {
            bad("%s %s out of range", what, t);
        }
        v = (uint64_t) s;
    } else {
        unsigned long long u;
        if (!(t[0] >= '0' && t[0] <= '9')) {
            bad("bad %s %s", what, t);
        }
        u = strtoull(t, &end, 10);
        if (errno || *end) {
            bad("bad %s %s", what, t);
        }
        if (bits < 64 && u > ((1ULL << bits) - 1)) {
            bad("%s %s out of range", what, t);
        }
        v = u;
    }
    if (bits < 64) {
        v &= (1ULL << bits) - 1;
    }
    return v;
}

/* a non-negative count; `per_elem` tells whether each counted element needs at
 * least one token (then the count cannot exceed the tokens left) */
static size_t tok_count(bool per_elem, const char *what)
{
    uint64_t c = tok_int(64, what);
    if (c > INT32_MAX) {
        bad("%s %llu too large", what, (unsigned long long) c);
    }
    if (per_elem && c > toks_left()) {
        bad("%s %llu exceeds the tokens left", what, (unsigned long long) c);
    }
    return (size_t) c;
}

/* a string token: NULL for `~` */
static char *tok_str(const char *what)
{
    const char *t = next_tok(what);
    size_t n;
    if (0 == strcmp(t, "~")) {
        return NULL;
    }
    if (0 != strncmp(t, "s:", 2)) {
        bad("expected a string token for %s, got %.40s", what, t);
    }
    return (char *) hex_decode(t + 2, &n, 1, what);
}

/* a REGEX: a string token, or `r:` + the hex of a framing that holds NULs (the
 * compress module's `blob:` header), copied whole into one block */
static char *tok_regex(void)
{
    const char *t = peek_tok();
    size_t n;
    if (NULL != t && 0 == strncmp(t, "r:", 2)) {
        t = next_tok("regex");
        return (char *) hex_decode(t + 2, &n, 1, "regex");
    }
    return tok_str("REGEX");
}

/* a string token copied into a fixed char array (truncated like PMIX_LOAD_KEY) */
static void tok_str_inline(char *dst, size_t cap, const char *what)
{
    char *s = tok_str(what);
    if (NULL == s) {
        bad("%s cannot be NULL (it is a fixed char array)", what);
    }
    strncpy(dst, s, cap - 1);
    dst[cap - 1] = '\0';
}

/* a `b:` token: bytes (NULL when empty) */
static unsigned char *tok_bytes(size_t *len, const char *what)
{
    const char *t = next_tok(what);
    unsigned char *p;
    if (0 != strncmp(t, "b:", 2)) {
        bad("expected a bytes token for %s, got %.40s", what, t);
    }
    p = hex_decode(t + 2, len, 0, what);
    return 0 == *len ? NULL : p;
}

static uint64_t tok_bits(char prefix, size_t ndig, const char *what)
{
    const char *t = next_tok(what);
    uint64_t v = 0;
    if (t[0] != prefix || ':' != t[1] || strlen(t + 2) != ndig) {
        bad("expected %c:<%zu hex digits> for %s, got %.40s", prefix, ndig, what, t);
    }
    for (size_t i = 0; i < ndig; i++) {
        int d = hexval(t[2 + i]);
        if (d < 0) {
            bad("bad hex digit in %s", what);
        }
        v = (v << 4) | (uint64_t) d;
    }
    return v;
}

static float tok_float(const char *what)
{
    uint32_t u = (uint32_t) tok_bits('f', 8, what);
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static double tok_double(const char *what)
{
    uint64_t u = tok_bits('d', 16, what);
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

/* a type: a name (with or without PMIX_) or a decimal id */
static int parse_type_name(const char *t)
{
    const char *n = t;
    if (0 == strncmp(n, "PMIX_", 5)) {
        n += 5;
    }
    for (int i = 0; i <= T_NAMED_MAX; i++) {
        if (0 == strcmp(n, type_names[i])) {
            return i;
        }
    }
    if (t[0] >= '0' && t[0] <= '9') {
        char *end;
        unsigned long v;
        errno = 0;
        v = strtoul(t, &end, 10);
        if (!errno && !*end && v <= 65535) {
            return (int) v;
        }
    }
    return -1;
}

static int tok_type(const char *what)
{
    const char *t = next_tok(what);
    int ty = parse_type_name(t);
    if (ty < 0) {
        bad("unknown type %.40s", t);
    }
    return ty;
}

static void sb_type(sbuf_t *b, int t)
{
    if (t >= 0 && t <= T_NAMED_MAX) {
        sb_tok(b, "%s", type_names[t]);
    } else {
        sb_tok(b, "%d", t);
    }
}

/* ------------------------------------------------------------------------ */
/* C layout of each type.                                                     */

/* types for which this oracle has a token syntax and a C layout */
static bool has_layout(int t)
{
    switch (t) {
    case T_PROC_STATS:
    case T_DISK_STATS:
    case T_NET_STATS:
    case T_NODE_STATS:
#ifdef ORACLE_HAS_STATS
        return true;
#else
        return false;
#endif
#ifdef ORACLE_HAS_DEVICE
    case T_DEVICE:
        return true;
#endif
#ifdef ORACLE_HAS_RESBLOCK
    case T_RESBLOCK_DIRECTIVE:
        return true;
#endif
#ifdef ORACLE_HAS_RESOURCE_UNIT
    case T_RESOURCE_UNIT:
        return true;
#endif
#ifdef ORACLE_HAS_NODE_PID
    case T_NODE_PID:
        return true;
#endif
#ifdef ORACLE_HAS_REGEX2
    case T_REGEX2:
        return true;
#endif
#ifdef ORACLE_HAS_ALLOC_INHERIT
    case T_ALLOC_INHERIT:
        return true;
#endif
    default:
        return t >= T_BOOL && t <= T_STOR_ACCESS_TYPE;
    }
}

/* size of one element of type t in a C array; unknown ids get a zeroed
 * 16-byte slot */
static size_t esize(int t)
{
    switch (t) {
    case T_UNDEF:
        return 0;
    case T_BOOL:
        return sizeof(bool);
    case T_BYTE:
    case T_INT8:
    case T_UINT8:
    case T_PERSIST:
    case T_SCOPE:
    case T_DATA_RANGE:
    case T_COMMAND:
    case T_PROC_STATE:
    case T_ALLOC_DIRECTIVE:
    case T_JOB_STATE:
    case T_LINK_STATE:
        return 1;
    case T_INT16:
    case T_UINT16:
    case T_DATA_TYPE:
    case T_IOF_CHANNEL:
    case T_LOCTYPE:
    case T_STOR_ACCESS_TYPE:
        return 2;
    case T_INT:
    case T_UINT:
        return sizeof(int);
    case T_PID:
        return sizeof(pid_t);
    case T_INT32:
    case T_UINT32:
    case T_STATUS:
    case T_PROC_RANK:
    case T_INFO_DIRECTIVES:
        return 4;
    case T_INT64:
    case T_UINT64:
    case T_DEVTYPE:
    case T_STOR_MEDIUM:
    case T_STOR_ACCESS:
    case T_STOR_PERSIST:
        return 8;
    case T_SIZE:
        return sizeof(size_t);
    case T_TIME:
        return sizeof(time_t);
    case T_FLOAT:
        return sizeof(float);
    case T_DOUBLE:
        return sizeof(double);
    case T_STRING:
    case T_REGEX:
        return sizeof(char *);
    case T_POINTER:
        return sizeof(void *);
    case T_TIMEVAL:
        return sizeof(struct timeval);
    case T_VALUE:
        return sizeof(pmix_value_t);
    case T_PROC:
        return sizeof(pmix_proc_t);
    case T_APP:
        return sizeof(pmix_app_t);
    case T_INFO:
        return sizeof(pmix_info_t);
    case T_PDATA:
        return sizeof(pmix_pdata_t);
    case T_BUFFER:
        return sizeof(pmix_buffer_t);
    case T_BYTE_OBJECT:
    case T_COMPRESSED_STRING:
    case T_COMPRESSED_BYTE_OBJECT:
        return sizeof(pmix_byte_object_t);
    case T_KVAL:
        return sizeof(pmix_kval_t);
    case T_MODEX:
        return sizeof(oracle_modex_t);
    case T_PROC_INFO:
        return sizeof(pmix_proc_info_t);
    case T_DATA_ARRAY:
        return sizeof(pmix_data_array_t);
    case T_QUERY:
        return sizeof(pmix_query_t);
    case T_INFO_ARRAY:
        return sizeof(oracle_info_array_t);
    case T_ENVAR:
        return sizeof(pmix_envar_t);
    case T_COORD:
        return sizeof(pmix_coord_t);
    case T_REGATTR:
        return sizeof(pmix_regattr_t);
    case T_PROC_CPUSET:
        return sizeof(pmix_cpuset_t);
    case T_GEOMETRY:
        return sizeof(pmix_geometry_t);
    case T_DEVICE_DIST:
        return sizeof(pmix_device_distance_t);
    case T_ENDPOINT:
        return sizeof(pmix_endpoint_t);
    case T_TOPO:
        return sizeof(pmix_topology_t);
    case T_PROC_NSPACE:
        return sizeof(pmix_nspace_t);
#ifdef ORACLE_HAS_STATS
    case T_PROC_STATS:
        return sizeof(pmix_proc_stats_t);
    case T_DISK_STATS:
        return sizeof(pmix_disk_stats_t);
    case T_NET_STATS:
        return sizeof(pmix_net_stats_t);
    case T_NODE_STATS:
        return sizeof(pmix_node_stats_t);
#endif
#ifdef ORACLE_HAS_DEVICE
    case T_DEVICE:
        return sizeof(pmix_device_t);
#endif
#ifdef ORACLE_HAS_RESBLOCK
    case T_RESBLOCK_DIRECTIVE:
        return sizeof(pmix_resource_block_directive_t);
#endif
#ifdef ORACLE_HAS_RESOURCE_UNIT
    case T_RESOURCE_UNIT:
        return sizeof(pmix_resource_unit_t);
#endif
#ifdef ORACLE_HAS_NODE_PID
    case T_NODE_PID:
        return sizeof(pmix_node_pid_t);
#endif
#ifdef ORACLE_HAS_REGEX2
    case T_REGEX2:
        return sizeof(pmix_regex2_t);
#endif
#ifdef ORACLE_HAS_ALLOC_INHERIT
    case T_ALLOC_INHERIT:
        return sizeof(pmix_alloc_inheritance_t);
#endif
    case T_DATA_BUFFER:
        return sizeof(pmix_data_buffer_t);
    default:
        return 16;
    }
}

/* Whether a pmix_value_t carries type t through a pointer in its union (as
 * PMIx programs and the component's value packer expect) rather than in place.
 * DATA_BUFFER is held by pointer (data.dbuf) as a program would, although the
 * 4.2.2 base packer reads the union in place. v20 reads a QUERY through the
 * union's pointer. */
static bool value_by_pointer(int t)
{
    switch (t) {
    case T_PROC:
    case T_PROC_NSPACE:
    case T_PROC_INFO:
    case T_DATA_ARRAY:
    case T_COORD:
    case T_TOPO:
    case T_PROC_CPUSET:
    case T_GEOMETRY:
    case T_DEVICE_DIST:
    case T_ENDPOINT:
    case T_REGATTR:
    case T_PROC_STATS:
    case T_DISK_STATS:
    case T_NET_STATS:
    case T_NODE_STATS:
    case T_DATA_BUFFER:
        return true;
    case T_DEVICE:
    case T_RESOURCE_UNIT:
    case T_NODE_PID:
    case T_REGEX2:
        /* pointers in the union where the library knows the type */
        return has_layout(t);
    case T_QUERY:
        return C_V20 == g_comp;
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------ */
/* Builders: tokens -> C values.                                              */

/* spare zeroed room after every array we build: values held in place that do
 * not fit a pmix_value_t spill into it, and the library's over-wide reads of
 * narrow arrays (v12/v20 remaps) read zeros from it */
#define SLACK 8192

static void build_elem(int t, void *dst, char *limit);

static void *alloc_array(int t, size_t n, char **limit)
{
    size_t es = esize(t) ? esize(t) : 1;
    size_t bytes = add_sz(add_sz(mul_sz(n, es), mul_sz(n, 16)), SLACK);
    char *p = arena_alloc(bytes);
    *limit = p + bytes;
    return p;
}

static void *build_array(int t, size_t n)
{
    char *limit;
    char *p = alloc_array(t, n, &limit);
    size_t es = esize(t);
    for (size_t i = 0; i < n; i++) {
        build_elem(t, p + i * es, limit);
    }
    return p;
}

/* a NULL-terminated char* array (argv style) of n string tokens */
static char **build_argv(size_t n, const char *what)
{
    char **v;
    if (0 == n) {
        return NULL;
    }
    v = arena_alloc(mul_sz(n + 1, sizeof(char *)));
    for (size_t i = 0; i < n; i++) {
        v[i] = tok_str(what);
    }
    return v;
}

static const char *type_label(int t)
{
    static char buf[16];
    if (t >= 0 && t <= T_NAMED_MAX) {
        return type_names[t];
    }
    snprintf(buf, sizeof(buf), "%d", t);
    return buf;
}

/* the payload of a pmix_value_t whose type is t */
static void build_value_payload(pmix_value_t *v, int t, char *limit)
{
    const char *pk;
    v->type = (pmix_data_type_t) t;
    if (T_UNDEF == t) {
        return;
    }
    if (value_by_pointer(t)) {
        pk = peek_tok();
        if ((T_TOPO == t || T_PROC_CPUSET == t) && NULL != pk && 0 == strcmp(pk, "~")) {
            g_pos++;
            v->data.ptr = NULL;
            return;
        }
        v->data.ptr = build_array(t, 1);
        return;
    }
    if ((char *) &v->data + esize(t) > limit) {
        bad("no room to hold %s in place in a pmix_value_t", type_label(t));
    }
    build_elem(t, &v->data, limit);
}

static void build_typed_value(pmix_value_t *v, char *limit)
{
    int t = tok_type("value type");
    build_value_payload(v, t, limit);
}

static void build_proc(pmix_proc_t *p)
{
    tok_str_inline(p->nspace, sizeof(p->nspace), "nspace");
    p->rank = (pmix_rank_t) tok_int(32, "rank");
}

static void build_timeval(struct timeval *tv)
{
    tv->tv_sec = (time_t) (int64_t) tok_int(64, "tv_sec");
    tv->tv_usec = (suseconds_t) (int64_t) tok_int(64, "tv_usec");
}

static void build_coord(pmix_coord_t *c)
{
    size_t d;
    c->view = (pmix_coord_view_t) tok_int(8, "coord view");
    d = tok_count(true, "coord dims");
    c->dims = d;
    c->coord = NULL;
    if (d > 0) {
        c->coord = arena_alloc(mul_sz(d, sizeof(uint32_t)) + SLACK);
        for (size_t i = 0; i < d; i++) {
            c->coord[i] = (uint32_t) tok_int(32, "coordinate");
        }
    }
}

#ifdef ORACLE_HAS_STATS
static void build_disk(pmix_disk_stats_t *d)
{
    d->disk = tok_str("disk");
    d->num_reads_completed = tok_int(64, "disk counter");
    d->num_reads_merged = tok_int(64, "disk counter");
    d->num_sectors_read = tok_int(64, "disk counter");
    d->milliseconds_reading = tok_int(64, "disk counter");
    d->num_writes_completed = tok_int(64, "disk counter");
    d->num_writes_merged = tok_int(64, "disk counter");
    d->num_sectors_written = tok_int(64, "disk counter");
    d->milliseconds_writing = tok_int(64, "disk counter");
    d->num_ios_in_progress = tok_int(64, "disk counter");
    d->milliseconds_io = tok_int(64, "disk counter");
    d->weighted_milliseconds_io = tok_int(64, "disk counter");
}

static void build_net(pmix_net_stats_t *n)
{
    n->net_interface = tok_str("net_interface");
    n->num_bytes_recvd = tok_int(64, "net counter");
    n->num_packets_recvd = tok_int(64, "net counter");
    n->num_recv_errs = tok_int(64, "net counter");
    n->num_bytes_sent = tok_int(64, "net counter");
    n->num_packets_sent = tok_int(64, "net counter");
    n->num_send_errs = tok_int(64, "net counter");
}
#endif

static void skip_timeval(void)
{
    (void) tok_int(64, "tv_sec");
    (void) tok_int(64, "tv_usec");
}

static void skip_disk(void)
{
    (void) tok_str("disk");
    for (int i = 0; i < 11; i++) {
        (void) tok_int(64, "disk counter");
    }
}

static void skip_net(void)
{
    (void) tok_str("net_interface");
    for (int i = 0; i < 6; i++) {
        (void) tok_int(64, "net counter");
    }
}

/* tokens of the types 4.2.2 does not know (same syntax as the Rust side);
 * nothing is stored, the library refuses the type before reading memory */
static void skip_unknown(int t)
{
    size_t n;
    switch (t) {
    case T_DEVICE:
        (void) tok_str("uuid");
        (void) tok_str("osname");
        (void) tok_int(64, "devtype");
        break;
    case T_RESBLOCK_DIRECTIVE:
    case T_ALLOC_INHERIT:
        (void) tok_int(8, "value");
        break;
    case T_RESOURCE_UNIT:
        (void) tok_int(64, "devtype");
        (void) tok_int(64, "count");
        break;
    case T_NODE_PID:
        (void) tok_str("hostname");
        (void) tok_int(32, "nodeid");
        (void) tok_int(32, "pid");
        break;
    case T_REGEX2:
        (void) tok_str("kind");
        (void) tok_bytes(&n, "regex");
        break;
    case T_PROC_STATS:
        (void) tok_str("node");
        (void) tok_str("proc nspace");
        (void) tok_int(32, "proc rank");
        (void) tok_int(32, "pid");
        (void) tok_str("cmd");
        (void) tok_int(8, "state");
        skip_timeval();
        (void) tok_int(32, "priority");
        (void) tok_int(16, "num_threads");
        for (int i = 0; i < 4; i++) {
            (void) tok_float("stat");
        }
        (void) tok_int(16, "processor");
        skip_timeval();
        break;
    case T_DISK_STATS:
        skip_disk();
        break;
    case T_NET_STATS:
        skip_net();
        break;
    case T_NODE_STATS:
        (void) tok_str("node");
        for (int i = 0; i < 11; i++) {
            (void) tok_float("stat");
        }
        skip_timeval();
        n = tok_count(true, "ndiskstats");
        for (size_t i = 0; i < n; i++) {
            skip_disk();
        }
        n = tok_count(true, "nnetstats");
        for (size_t i = 0; i < n; i++) {
            skip_net();
        }
        break;
    default:
        /* an id without a token syntax: exactly one token per value */
        (void) next_tok("value");
        break;
    }
}

static void build_elem(int t, void *dst, char *limit)
{
    size_t n;
    switch (t) {
    case T_UNDEF:
        return;
    case T_BOOL: {
        uint64_t v = tok_int(8, "bool");
        *(bool *) dst = (0 != v);
        return;
    }
    case T_BYTE:
    case T_INT8:
    case T_UINT8:
    case T_PERSIST:
    case T_SCOPE:
    case T_DATA_RANGE:
    case T_COMMAND:
    case T_PROC_STATE:
    case T_ALLOC_DIRECTIVE:
    case T_JOB_STATE:
    case T_LINK_STATE:
        *(uint8_t *) dst = (uint8_t) tok_int(8, type_label(t));
        return;
    case T_INT16:
    case T_UINT16:
    case T_DATA_TYPE:
    case T_IOF_CHANNEL:
    case T_LOCTYPE:
    case T_STOR_ACCESS_TYPE:
        *(uint16_t *) dst = (uint16_t) tok_int(16, type_label(t));
        return;
    case T_INT:
    case T_UINT:
    case T_PID:
    case T_INT32:
    case T_UINT32:
    case T_STATUS:
    case T_PROC_RANK:
    case T_INFO_DIRECTIVES:
        *(uint32_t *) dst = (uint32_t) tok_int(32, type_label(t));
        return;
    case T_INT64:
    case T_UINT64:
    case T_DEVTYPE:
    case T_STOR_MEDIUM:
    case T_STOR_ACCESS:
    case T_STOR_PERSIST:
    case T_SIZE:
        *(uint64_t *) dst = tok_int(64, type_label(t));
        return;
    case T_TIME:
        *(time_t *) dst = (time_t) tok_int(64, "time");
        return;
    case T_FLOAT: {
        float f = tok_float("float");
        memcpy(dst, &f, sizeof(f));
        return;
    }
    case T_DOUBLE: {
        double d = tok_double("double");
        memcpy(dst, &d, sizeof(d));
        return;
    }
    case T_STRING:
        *(char **) dst = tok_str(type_label(t));
        return;
    case T_REGEX:
        *(char **) dst = tok_regex();
        return;
    case T_PROC_NSPACE:
        tok_str_inline((char *) dst, sizeof(pmix_nspace_t), "PROC_NSPACE");
        return;
    case T_TIMEVAL:
        build_timeval((struct timeval *) dst);
        return;
    case T_VALUE:
        build_typed_value((pmix_value_t *) dst, limit);
        return;
    case T_PROC:
        build_proc((pmix_proc_t *) dst);
        return;
    case T_INFO: {
        pmix_info_t *i = dst;
        tok_str_inline(i->key, sizeof(i->key), "info key");
        i->flags = (pmix_info_directives_t) tok_int(32, "info flags");
        build_typed_value(&i->value, limit);
        return;
    }
    case T_PDATA: {
        pmix_pdata_t *p = dst;
        build_proc(&p->proc);
        tok_str_inline(p->key, sizeof(p->key), "pdata key");
        build_typed_value(&p->value, limit);
        return;
    }
    case T_KVAL: {
        pmix_kval_t *k = dst;
        k->key = tok_str("kval key");
        k->value = build_array(T_VALUE, 1);
        return;
    }
    case T_APP: {
        pmix_app_t *a = dst;
        a->cmd = tok_str("app cmd");
        n = tok_count(true, "argc");
        a->argv = build_argv(n, "argv");
        n = tok_count(true, "envc");
        a->env = build_argv(n, "env");
        a->cwd = tok_str("app cwd");
        a->maxprocs = (int) (int32_t) tok_int(32, "maxprocs");
        n = tok_count(true, "ninfo");
        a->ninfo = n;
        a->info = n ? build_array(T_INFO, n) : NULL;
        return;
    }
    case T_BUFFER: {
        pmix_buffer_t *b = dst;
        unsigned char *bytes;
        b->type = (pmix_bfrop_buffer_type_t) tok_int(8, "buffer type");
        bytes = tok_bytes(&n, "buffer bytes");
        b->base_ptr = (char *) bytes;
        b->pack_ptr = (char *) bytes + n;
        b->unpack_ptr = (char *) bytes;
        b->bytes_allocated = n;
        b->bytes_used = n;
        return;
    }
    case T_BYTE_OBJECT:
    case T_COMPRESSED_STRING:
    case T_COMPRESSED_BYTE_OBJECT: {
        pmix_byte_object_t *bo = dst;
        bo->bytes = (char *) tok_bytes(&n, "byte object");
        bo->size = n;
        return;
    }
    case T_MODEX: {
        oracle_modex_t *m = dst;
        m->blob = tok_bytes(&n, "modex blob");
        m->size = n;
        return;
    }
    case T_POINTER: {
        const char *p = next_tok("pointer");
        if (0 != strcmp(p, "p")) {
            bad("expected p for a POINTER, got %.40s", p);
        }
        *(void **) dst = dst;
        return;
    }
    case T_PROC_INFO: {
        pmix_proc_info_t *pi = dst;
        build_proc(&pi->proc);
        pi->hostname = tok_str("hostname");
        pi->executable_name = tok_str("executable");
        pi->pid = (pid_t) (int32_t) tok_int(32, "pid");
        pi->state = (pmix_proc_state_t) tok_int(8, "proc state");
        return;
    }
    case T_DATA_ARRAY: {
        pmix_data_array_t *d = dst;
        int et = tok_type("array element type");
        n = tok_count(T_UNDEF != et, "array size");
        d->type = (pmix_data_type_t) et;
        d->size = n;
        d->array = (0 == n || T_UNDEF == et) ? NULL : build_array(et, n);
        return;
    }
    case T_QUERY: {
        pmix_query_t *q = dst;
        n = tok_count(true, "nkeys");
        q->keys = build_argv(n, "query key");
        n = tok_count(true, "nqual");
        q->nqual = n;
        q->qualifiers = n ? build_array(T_INFO, n) : NULL;
        return;
    }
    case T_INFO_ARRAY: {
        oracle_info_array_t *ia = dst;
        n = tok_count(true, "info array size");
        ia->size = n;
        ia->array = n ? build_array(T_INFO, n) : NULL;
        return;
    }
    case T_ENVAR: {
        pmix_envar_t *e = dst;
        e->envar = tok_str("envar");
        e->value = tok_str("envar value");
        e->separator = (char) tok_int(8, "separator");
        return;
    }
    case T_COORD:
        build_coord((pmix_coord_t *) dst);
        return;
    case T_REGATTR: {
        pmix_regattr_t *r = dst;
        r->name = tok_str("regattr name");
        tok_str_inline(r->string, sizeof(r->string), "regattr key");
        r->type = (pmix_data_type_t) tok_int(16, "regattr type");
        n = tok_count(true, "regattr description count");
        r->description = build_argv(n, "regattr description");
        return;
    }
    case T_PROC_CPUSET: {
        pmix_cpuset_t *c = dst;
        char *s = tok_str("cpuset");
        c->source = NULL;
        c->bitmap = NULL;
        if (NULL != s) {
#ifdef ORACLE_HWLOC
            hwloc_bitmap_t bm;
            if (g_nbitmaps >= MAX_BITMAPS) {
                bad("too many cpusets in one request");
            }
            bm = hwloc_bitmap_alloc();
            if (NULL == bm) {
                bad("hwloc_bitmap_alloc failed");
            }
            g_bitmaps[g_nbitmaps++] = bm;
            if (hwloc_bitmap_list_sscanf(bm, s) < 0) {
                bad("cpuset list not understood by hwloc");
            }
            c->source = "hwloc";
            c->bitmap = bm;
#else
            bad("PROC_CPUSET other than ~ needs hwloc (oracle built without it)");
#endif
        }
        return;
    }
    case T_GEOMETRY: {
        pmix_geometry_t *g = dst;
        g->fabric = (size_t) tok_int(64, "fabric");
        g->uuid = tok_str("uuid");
        g->osname = tok_str("osname");
        n = tok_count(true, "ncoords");
        g->ncoords = n;
        g->coordinates = n ? build_array(T_COORD, n) : NULL;
        return;
    }
    case T_DEVICE_DIST: {
        pmix_device_distance_t *d = dst;
        d->uuid = tok_str("uuid");
        d->osname = tok_str("osname");
        d->type = (pmix_device_type_t) tok_int(64, "devtype");
        d->mindist = (uint16_t) tok_int(16, "mindist");
        d->maxdist = (uint16_t) tok_int(16, "maxdist");
        return;
    }
    case T_ENDPOINT: {
        pmix_endpoint_t *e = dst;
        e->uuid = tok_str("uuid");
        e->osname = tok_str("osname");
        e->endpt.bytes = (char *) tok_bytes(&n, "endpoint");
        e->endpt.size = n;
        return;
    }
    case T_TOPO: {
        pmix_topology_t *tp = dst;
        const char *s = next_tok("topology");
        if (0 != strcmp(s, "~")) {
            bad("TOPO is only supported as ~ (NULL topology)");
        }
        tp->source = NULL;
        tp->topology = NULL;
        return;
    }
    case T_DATA_BUFFER: {
        pmix_data_buffer_t *d = dst;
        unsigned char *bytes = tok_bytes(&n, "data buffer");
        d->base_ptr = (char *) bytes;
        d->pack_ptr = (char *) bytes + n;
        d->unpack_ptr = (char *) bytes;
        d->bytes_allocated = n;
        d->bytes_used = n;
        return;
    }
#ifdef ORACLE_HAS_STATS
    case T_PROC_STATS: {
        pmix_proc_stats_t *p = dst;
        p->node = tok_str("node");
        build_proc(&p->proc);
        p->pid = (pid_t) (int32_t) tok_int(32, "pid");
        p->cmd = tok_str("cmd");
        p->state = (char) tok_int(8, "state");
        build_timeval(&p->time);
        p->priority = (int32_t) tok_int(32, "priority");
        p->num_threads = (uint16_t) tok_int(16, "num_threads");
        p->pss = tok_float("pss");
        p->vsize = tok_float("vsize");
        p->rss = tok_float("rss");
        p->peak_vsize = tok_float("peak_vsize");
        p->processor = (uint16_t) tok_int(16, "processor");
        build_timeval(&p->sample_time);
        return;
    }
    case T_DISK_STATS:
        build_disk((pmix_disk_stats_t *) dst);
        return;
    case T_NET_STATS:
        build_net((pmix_net_stats_t *) dst);
        return;
    case T_NODE_STATS: {
        pmix_node_stats_t *s = dst;
        s->node = tok_str("node");
        s->la = tok_float("la");
        s->la5 = tok_float("la5");
        s->la15 = tok_float("la15");
        s->total_mem = tok_float("total_mem");
        s->free_mem = tok_float("free_mem");
        s->buffers = tok_float("buffers");
        s->cached = tok_float("cached");
        s->swap_cached = tok_float("swap_cached");
        s->swap_total = tok_float("swap_total");
        s->swap_free = tok_float("swap_free");
        s->mapped = tok_float("mapped");
        build_timeval(&s->sample_time);
        n = tok_count(true, "ndiskstats");
        s->ndiskstats = n;
        s->diskstats = n ? build_array(T_DISK_STATS, n) : NULL;
        n = tok_count(true, "nnetstats");
        s->nnetstats = n;
        s->netstats = n ? build_array(T_NET_STATS, n) : NULL;
        return;
    }
#endif
#ifdef ORACLE_HAS_DEVICE
    case T_DEVICE: {
        pmix_device_t *d = dst;
        d->uuid = tok_str("uuid");
        d->osname = tok_str("osname");
        d->type = (pmix_device_type_t) tok_int(64, "devtype");
        return;
    }
#endif
#ifdef ORACLE_HAS_RESBLOCK
    case T_RESBLOCK_DIRECTIVE:
        *(pmix_resource_block_directive_t *) dst = (uint8_t) tok_int(8, "resblock directive");
        return;
#endif
#ifdef ORACLE_HAS_RESOURCE_UNIT
    case T_RESOURCE_UNIT: {
        pmix_resource_unit_t *r = dst;
        r->type = (pmix_device_type_t) tok_int(64, "devtype");
        r->count = (size_t) tok_int(64, "count");
        return;
    }
#endif
#ifdef ORACLE_HAS_NODE_PID
    case T_NODE_PID: {
        pmix_node_pid_t *x = dst;
        x->hostname = tok_str("hostname");
        x->nodeid = (uint32_t) tok_int(32, "nodeid");
        x->pid = (pid_t) (int32_t) tok_int(32, "pid");
        return;
    }
#endif
#ifdef ORACLE_HAS_REGEX2
    case T_REGEX2: {
        pmix_regex2_t *r = dst;
        r->type = tok_str("kind");
        r->bytes = tok_bytes(&n, "regex");
        r->len = n;
        return;
    }
#endif
#ifdef ORACLE_HAS_ALLOC_INHERIT
    case T_ALLOC_INHERIT:
        *(pmix_alloc_inheritance_t *) dst = (uint8_t) tok_int(8, "inheritance");
        return;
#endif
    default:
        skip_unknown(t);
        return;
    }
}

/* ------------------------------------------------------------------------ */
/* Printers: C values -> tokens.                                              */

static void pr_elem(sbuf_t *o, int t, const void *src);

/* a heap string from the library; bounded by its block because 4.2.2 does not
 * always terminate what it unpacks */
static void pr_str(sbuf_t *o, const char *s)
{
    size_t cap;
    if (NULL == s) {
        sb_tok(o, "~");
        return;
    }
    cap = malloc_usable_size((void *) s);
    sb_hex_tok(o, "s:", s, strnlen(s, cap ? cap : SIZE_MAX));
}

/* An unpacked REGEX: for a `blob` framing (which the compress module copies into a block
 * it mallocs itself), the whole block (`r:`); else a string token. Other regexes are
 * strdup'd inside libc, whose blocks the ring does not see. */
static void pr_regex(sbuf_t *o, const char *s)
{
    size_t n;
    if (NULL != s && 0 == strncmp(s, "blob", 4) && asked_size(s, &n)
        && n <= malloc_usable_size((void *) s) && strnlen(s, n) + 1 < n) {
        sb_hex_tok(o, "r:", s, n);
        return;
    }
    pr_str(o, s);
}

static void pr_str_fixed(sbuf_t *o, const char *s, size_t cap)
{
    sb_hex_tok(o, "s:", s, strnlen(s, cap));
}

static bool fits_block(const void *p, size_t n, size_t es);

/* bytes the library allocated */
static void pr_bytes(sbuf_t *o, const void *p, size_t n)
{
    if (n > 0 && (NULL == p || !fits_block(p, n, 1))) {
        sb_tok(o, "?");
        return;
    }
    sb_hex_tok(o, "b:", p, n);
}

static void pr_float(sbuf_t *o, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    sb_tok(o, "f:%08x", u);
}

static void pr_timeval(sbuf_t *o, const struct timeval *tv)
{
    sb_tok(o, "%lld", (long long) tv->tv_sec);
    sb_tok(o, "%lld", (long long) tv->tv_usec);
}

static void pr_proc(sbuf_t *o, const pmix_proc_t *p)
{
    pr_str_fixed(o, p->nspace, sizeof(p->nspace));
    sb_tok(o, "%u", (unsigned) p->rank);
}

static size_t argv_len(char *const *v)
{
    size_t n = 0;
    if (NULL != v) {
        while (NULL != v[n]) {
            n++;
        }
    }
    return n;
}

static void pr_argv(sbuf_t *o, char *const *v)
{
    size_t n = argv_len(v);
    sb_tok(o, "%zu", n);
    for (size_t i = 0; i < n; i++) {
        pr_str(o, v[i]);
    }
}

/* whether n elements of es bytes fit the heap block at p (the library keeps
 * sizes it did not allocate for on some corrupt inputs) */
static bool fits_block(const void *p, size_t n, size_t es)
{
    size_t cap = malloc_usable_size((void *) p);
#ifdef ZPAD
    cap = cap > ZPAD ? cap - ZPAD : 0;
#endif
    return 0 == es || n <= cap / es;
}

/* an array the library allocated */
static void pr_array(sbuf_t *o, int t, const void *arr, size_t n)
{
    size_t es = esize(t);
    if (T_UNDEF == t) {
        return;
    }
    if (n > 0 && (NULL == arr || !fits_block(arr, n, es))) {
        sb_tok(o, "?");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pr_elem(o, t, (const char *) arr + i * es);
    }
}

static void pr_value(sbuf_t *o, const pmix_value_t *v)
{
    int t = v->type;
    sb_type(o, t);
    if (T_UNDEF == t) {
        return;
    }
    if (T_INFO_ARRAY == t && (C_V12 == g_comp || C_V20 == g_comp)) {
        /* v12/v20 unpack an INFO_ARRAY value into a data array they allocate,
         * writing the info array structure over its `array` member */
        const pmix_data_array_t *d = v->data.darray;
        if (NULL == d) {
            sb_tok(o, "?");
        } else {
            pr_elem(o, T_INFO_ARRAY, &d->array);
        }
        return;
    }
    if (value_by_pointer(t)) {
        if (NULL == v->data.ptr) {
            sb_tok(o, (T_TOPO == t || T_PROC_CPUSET == t) ? "~" : "?");
        } else {
            pr_elem(o, t, v->data.ptr);
        }
        return;
    }
    pr_elem(o, t, &v->data);
}

static void pr_info(sbuf_t *o, const pmix_info_t *i)
{
    pr_str_fixed(o, i->key, sizeof(i->key));
    sb_tok(o, "%u", (unsigned) i->flags);
    pr_value(o, &i->value);
}

static void pr_coord(sbuf_t *o, const pmix_coord_t *c)
{
    sb_tok(o, "%u", (unsigned) c->view);
    sb_tok(o, "%zu", c->dims);
    if (c->dims > 0 && (NULL == c->coord || !fits_block(c->coord, c->dims, sizeof(uint32_t)))) {
        sb_tok(o, "?");
        return;
    }
    for (size_t i = 0; i < c->dims; i++) {
        sb_tok(o, "%u", (unsigned) c->coord[i]);
    }
}

#ifdef ORACLE_HAS_STATS
static void pr_disk(sbuf_t *o, const pmix_disk_stats_t *d)
{
    pr_str(o, d->disk);
    sb_tok(o, "%llu", (unsigned long long) d->num_reads_completed);
    sb_tok(o, "%llu", (unsigned long long) d->num_reads_merged);
    sb_tok(o, "%llu", (unsigned long long) d->num_sectors_read);
    sb_tok(o, "%llu", (unsigned long long) d->milliseconds_reading);
    sb_tok(o, "%llu", (unsigned long long) d->num_writes_completed);
    sb_tok(o, "%llu", (unsigned long long) d->num_writes_merged);
    sb_tok(o, "%llu", (unsigned long long) d->num_sectors_written);
    sb_tok(o, "%llu", (unsigned long long) d->milliseconds_writing);
    sb_tok(o, "%llu", (unsigned long long) d->num_ios_in_progress);
    sb_tok(o, "%llu", (unsigned long long) d->milliseconds_io);
    sb_tok(o, "%llu", (unsigned long long) d->weighted_milliseconds_io);
}

static void pr_net(sbuf_t *o, const pmix_net_stats_t *n)
{
    pr_str(o, n->net_interface);
    sb_tok(o, "%llu", (unsigned long long) n->num_bytes_recvd);
    sb_tok(o, "%llu", (unsigned long long) n->num_packets_recvd);
    sb_tok(o, "%llu", (unsigned long long) n->num_recv_errs);
    sb_tok(o, "%llu", (unsigned long long) n->num_bytes_sent);
    sb_tok(o, "%llu", (unsigned long long) n->num_packets_sent);
    sb_tok(o, "%llu", (unsigned long long) n->num_send_errs);
}
#endif

static void pr_elem(sbuf_t *o, int t, const void *src)
{
    switch (t) {
    case T_UNDEF:
        return;
    case T_BOOL:
        sb_tok(o, "%u", 0 != *(const uint8_t *) src ? 1u : 0u);
        return;
    case T_BYTE:
    case T_UINT8:
    case T_PERSIST:
    case T_SCOPE:
    case T_DATA_RANGE:
    case T_COMMAND:
    case T_PROC_STATE:
    case T_ALLOC_DIRECTIVE:
    case T_JOB_STATE:
    case T_LINK_STATE:
        sb_tok(o, "%u", (unsigned) *(const uint8_t *) src);
        return;
    case T_INT8:
        sb_tok(o, "%d", (int) *(const int8_t *) src);
        return;
    case T_INT16:
        sb_tok(o, "%d", (int) *(const int16_t *) src);
        return;
    case T_UINT16:
    case T_DATA_TYPE:
    case T_IOF_CHANNEL:
    case T_LOCTYPE:
    case T_STOR_ACCESS_TYPE:
        sb_tok(o, "%u", (unsigned) *(const uint16_t *) src);
        return;
    case T_INT:
    case T_INT32:
    case T_STATUS:
    case T_PID:
        sb_tok(o, "%d", (int) *(const int32_t *) src);
        return;
    case T_UINT:
    case T_UINT32:
    case T_PROC_RANK:
    case T_INFO_DIRECTIVES:
        sb_tok(o, "%u", (unsigned) *(const uint32_t *) src);
        return;
    case T_INT64:
        sb_tok(o, "%lld", (long long) *(const int64_t *) src);
        return;
    case T_UINT64:
    case T_SIZE:
    case T_DEVTYPE:
    case T_STOR_MEDIUM:
    case T_STOR_ACCESS:
    case T_STOR_PERSIST:
        sb_tok(o, "%llu", (unsigned long long) *(const uint64_t *) src);
        return;
    case T_TIME:
        sb_tok(o, "%llu", (unsigned long long) (uint64_t) *(const time_t *) src);
        return;
    case T_FLOAT: {
        float f;
        memcpy(&f, src, sizeof(f));
        pr_float(o, f);
        return;
    }
    case T_DOUBLE: {
        uint64_t u;
        memcpy(&u, src, sizeof(u));
        sb_tok(o, "d:%016llx", (unsigned long long) u);
        return;
    }
    case T_STRING:
        pr_str(o, *(char *const *) src);
        return;
    case T_REGEX:
        pr_regex(o, *(char *const *) src);
        return;
    case T_PROC_NSPACE:
        pr_str_fixed(o, (const char *) src, sizeof(pmix_nspace_t));
        return;
    case T_TIMEVAL:
        pr_timeval(o, (const struct timeval *) src);
        return;
    case T_VALUE:
        pr_value(o, (const pmix_value_t *) src);
        return;
    case T_PROC:
        pr_proc(o, (const pmix_proc_t *) src);
        return;
    case T_INFO:
        pr_info(o, (const pmix_info_t *) src);
        return;
    case T_PDATA: {
        const pmix_pdata_t *p = src;
        pr_proc(o, &p->proc);
        pr_str_fixed(o, p->key, sizeof(p->key));
        pr_value(o, &p->value);
        return;
    }
    case T_KVAL: {
        const pmix_kval_t *k = src;
        pr_str(o, k->key);
        if (NULL == k->value) {
            sb_tok(o, "?");
        } else {
            pr_value(o, k->value);
        }
        return;
    }
    case T_APP: {
        const pmix_app_t *a = src;
        pr_str(o, a->cmd);
        pr_argv(o, a->argv);
        pr_argv(o, a->env);
        pr_str(o, a->cwd);
        sb_tok(o, "%d", a->maxprocs);
        sb_tok(o, "%zu", a->ninfo);
        pr_array(o, T_INFO, a->info, a->ninfo);
        return;
    }
    case T_BUFFER: {
        const pmix_buffer_t *b = src;
        sb_tok(o, "%u", (unsigned) b->type);
        pr_bytes(o, b->base_ptr, b->bytes_used);
        return;
    }
    case T_BYTE_OBJECT:
    case T_COMPRESSED_STRING:
    case T_COMPRESSED_BYTE_OBJECT: {
        const pmix_byte_object_t *bo = src;
        pr_bytes(o, bo->bytes, bo->size);
        return;
    }
    case T_MODEX: {
        const oracle_modex_t *m = src;
        pr_bytes(o, m->blob, m->size);
        return;
    }
    case T_POINTER:
        sb_tok(o, "p");
        return;
    case T_PROC_INFO: {
        const pmix_proc_info_t *pi = src;
        pr_proc(o, &pi->proc);
        pr_str(o, pi->hostname);
        pr_str(o, pi->executable_name);
        sb_tok(o, "%d", (int) pi->pid);
        sb_tok(o, "%u", (unsigned) pi->state);
        return;
    }
    case T_DATA_ARRAY: {
        const pmix_data_array_t *d = src;
        sb_type(o, d->type);
        sb_tok(o, "%zu", d->size);
        pr_array(o, d->type, d->array, d->size);
        return;
    }
    case T_QUERY: {
        const pmix_query_t *q = src;
        pr_argv(o, q->keys);
        sb_tok(o, "%zu", q->nqual);
        pr_array(o, T_INFO, q->qualifiers, q->nqual);
        return;
    }
    case T_INFO_ARRAY: {
        const oracle_info_array_t *ia = src;
        sb_tok(o, "%zu", ia->size);
        pr_array(o, T_INFO, ia->array, ia->size);
        return;
    }
    case T_ENVAR: {
        const pmix_envar_t *e = src;
        pr_str(o, e->envar);
        pr_str(o, e->value);
        sb_tok(o, "%u", (unsigned) (unsigned char) e->separator);
        return;
    }
    case T_COORD:
        pr_coord(o, (const pmix_coord_t *) src);
        return;
    case T_REGATTR: {
        const pmix_regattr_t *r = src;
        pr_str(o, r->name);
        pr_str_fixed(o, r->string, sizeof(r->string));
        sb_tok(o, "%u", (unsigned) r->type);
        pr_argv(o, r->description);
        return;
    }
    case T_PROC_CPUSET: {
        const pmix_cpuset_t *c = src;
        if (NULL == c->bitmap) {
            sb_tok(o, "~");
            return;
        }
#ifdef ORACLE_HWLOC
        {
            char *s = NULL;
            if (hwloc_bitmap_list_asprintf(&s, (hwloc_const_bitmap_t) c->bitmap) < 0 || NULL == s) {
                sb_tok(o, "?");
            } else {
                pr_str(o, s);
                free(s);
            }
        }
#else
        sb_tok(o, "?");
#endif
        return;
    }
    case T_GEOMETRY: {
        const pmix_geometry_t *g = src;
        sb_tok(o, "%zu", g->fabric);
        pr_str(o, g->uuid);
        pr_str(o, g->osname);
        sb_tok(o, "%zu", g->ncoords);
        pr_array(o, T_COORD, g->coordinates, g->ncoords);
        return;
    }
    case T_DEVICE_DIST: {
        const pmix_device_distance_t *d = src;
        pr_str(o, d->uuid);
        pr_str(o, d->osname);
        sb_tok(o, "%llu", (unsigned long long) d->type);
        sb_tok(o, "%u", (unsigned) d->mindist);
        sb_tok(o, "%u", (unsigned) d->maxdist);
        return;
    }
    case T_ENDPOINT: {
        const pmix_endpoint_t *e = src;
        pr_str(o, e->uuid);
        pr_str(o, e->osname);
        pr_bytes(o, e->endpt.bytes, e->endpt.size);
        return;
    }
    case T_TOPO: {
        const pmix_topology_t *tp = src;
        if (NULL == tp->topology) {
            sb_tok(o, "~");
            return;
        }
#ifdef ORACLE_HWLOC
        {
            char *xml = NULL;
            int len = 0;
            if (0 != hwloc_topology_export_xmlbuffer((hwloc_topology_t) tp->topology, &xml, &len, 0)
                || NULL == xml) {
                sb_tok(o, "?");
            } else {
                pr_str(o, xml);
                hwloc_free_xmlbuffer((hwloc_topology_t) tp->topology, xml);
            }
        }
#else
        sb_tok(o, "?");
#endif
        return;
    }
    case T_DATA_BUFFER: {
        const pmix_data_buffer_t *d = src;
        pr_bytes(o, d->base_ptr, d->bytes_used);
        return;
    }
#ifdef ORACLE_HAS_STATS
    case T_PROC_STATS: {
        const pmix_proc_stats_t *p = src;
        pr_str(o, p->node);
        pr_proc(o, &p->proc);
        sb_tok(o, "%d", (int) p->pid);
        pr_str(o, p->cmd);
        sb_tok(o, "%u", (unsigned) (unsigned char) p->state);
        pr_timeval(o, &p->time);
        sb_tok(o, "%d", (int) p->priority);
        sb_tok(o, "%d", (int) (int16_t) p->num_threads);
        pr_float(o, p->pss);
        pr_float(o, p->vsize);
        pr_float(o, p->rss);
        pr_float(o, p->peak_vsize);
        sb_tok(o, "%d", (int) (int16_t) p->processor);
        pr_timeval(o, &p->sample_time);
        return;
    }
    case T_DISK_STATS:
        pr_disk(o, (const pmix_disk_stats_t *) src);
        return;
    case T_NET_STATS:
        pr_net(o, (const pmix_net_stats_t *) src);
        return;
    case T_NODE_STATS: {
        const pmix_node_stats_t *s = src;
        pr_str(o, s->node);
        pr_float(o, s->la);
        pr_float(o, s->la5);
        pr_float(o, s->la15);
        pr_float(o, s->total_mem);
        pr_float(o, s->free_mem);
        pr_float(o, s->buffers);
        pr_float(o, s->cached);
        pr_float(o, s->swap_cached);
        pr_float(o, s->swap_total);
        pr_float(o, s->swap_free);
        pr_float(o, s->mapped);
        pr_timeval(o, &s->sample_time);
        sb_tok(o, "%zu", s->ndiskstats);
        pr_array(o, T_DISK_STATS, s->diskstats, s->ndiskstats);
        sb_tok(o, "%zu", s->nnetstats);
        pr_array(o, T_NET_STATS, s->netstats, s->nnetstats);
        return;
    }
#endif
#ifdef ORACLE_HAS_DEVICE
    case T_DEVICE: {
        const pmix_device_t *d = src;
        pr_str(o, d->uuid);
        pr_str(o, d->osname);
        sb_tok(o, "%llu", (unsigned long long) d->type);
        return;
    }
#endif
#ifdef ORACLE_HAS_RESBLOCK
    case T_RESBLOCK_DIRECTIVE:
        sb_tok(o, "%u", (unsigned) *(const uint8_t *) src);
        return;
#endif
#ifdef ORACLE_HAS_RESOURCE_UNIT
    case T_RESOURCE_UNIT: {
        const pmix_resource_unit_t *r = src;
        sb_tok(o, "%llu", (unsigned long long) r->type);
        sb_tok(o, "%zu", r->count);
        return;
    }
#endif
#ifdef ORACLE_HAS_NODE_PID
    case T_NODE_PID: {
        const pmix_node_pid_t *x = src;
        pr_str(o, x->hostname);
        sb_tok(o, "%u", (unsigned) x->nodeid);
        sb_tok(o, "%d", (int) x->pid);
        return;
    }
#endif
#ifdef ORACLE_HAS_REGEX2
    case T_REGEX2: {
        const pmix_regex2_t *r = src;
        pr_str(o, r->type);
        pr_bytes(o, r->bytes, r->len);
        return;
    }
#endif
#ifdef ORACLE_HAS_ALLOC_INHERIT
    case T_ALLOC_INHERIT:
        sb_tok(o, "%u", (unsigned) *(const uint8_t *) src);
        return;
#endif
    default:
        /* no C layout for this id (the library cannot produce it) */
        sb_tok(o, "?");
        return;
    }
}

/* ------------------------------------------------------------------------ */
/* Requests.                                                                  */

static FILE *g_out;

/* the reply being built (static: it survives the longjmp of bad()) */
static sbuf_t g_reply;

static void reply(const char *s)
{
    fputs(s, g_out);
    fputc('\n', g_out);
    fflush(g_out);
}

static pmix_bfrops_module_t *pick_module(const char *name)
{
    pmix_bfrops_module_t *m;
    size_t n = strlen(name);
    if (0 == n || n > 16) {
        bad("bad component %.40s", name);
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || '_' == c)) {
            bad("bad component %.40s", name);
        }
    }
    m = pmix_bfrops_base_assign_module(name);
    if (NULL == m) {
        bad("unknown component %s", name);
    }
    if (0 == strcmp(name, "v12")) {
        g_comp = C_V12;
    } else if (0 == strcmp(name, "v20")) {
        g_comp = C_V20;
    } else if (0 == strcmp(name, "v21")) {
        g_comp = C_V21;
    } else if (0 == strcmp(name, "v3")) {
        g_comp = C_V3;
    } else if (0 == strcmp(name, "v4")) {
        g_comp = C_V4;
    } else if (0 == strcmp(name, "v41")) {
        g_comp = C_V41;
    } else {
        g_comp = C_OTHER;
    }
    return m;
}

static pmix_bfrop_buffer_type_t pick_kind(const char *k)
{
    if (0 == strcmp(k, "nd")) {
        return PMIX_BFROP_BUFFER_NON_DESC;
    }
    if (0 == strcmp(k, "fd")) {
        return PMIX_BFROP_BUFFER_FULLY_DESC;
    }
    bad("bad buffer kind %.40s (nd or fd)", k);
}

typedef struct {
    int type;
    int32_t count;
    void *src;
} pack_call_t;

/* the buffer's bytes as a token ("-" if empty) */
static void sb_buffer(sbuf_t *o, const pmix_buffer_t *b)
{
    if (o->len > 0) {
        sb_raw(o, " ", 1);
    }
    if (0 == b->bytes_used || NULL == b->base_ptr) {
        sb_raw(o, "-", 1);
    } else {
        sb_hex_raw(o, b->base_ptr, b->bytes_used);
    }
}

static void do_pack(sbuf_t *o)
{
    pmix_bfrops_module_t *mod = pick_module(next_tok("component"));
    pmix_bfrop_buffer_type_t kind = pick_kind(next_tok("buffer kind"));
    pack_call_t *calls;
    size_t ncalls = 0;
    pmix_buffer_t *buf;
    pmix_status_t rc = PMIX_SUCCESS;
    size_t failed = 0;

    if (0 == toks_left()) {
        bad("pack needs at least one item");
    }
    /* parse everything before touching the library */
    calls = arena_alloc(mul_sz(toks_left(), sizeof(pack_call_t)));
    while (toks_left() > 0) {
        int t = tok_type("item type");
        size_t n = tok_count(T_UNDEF != t, "item count");
        char *limit;
        char *arr = alloc_array(t, T_UNDEF == t ? 0 : n, &limit);
        size_t es = esize(t);
        for (size_t i = 0; T_UNDEF != t && i < n; i++) {
            build_elem(t, arr + i * es, limit);
        }
        calls[ncalls].type = t;
        calls[ncalls].count = (int32_t) n;
        calls[ncalls].src = arr;
        ncalls++;
    }

    buf = PMIX_NEW(pmix_buffer_t);
    if (NULL == buf) {
        bad("cannot create a buffer");
    }
    buf->type = kind;
    for (size_t k = 0; k < ncalls; k++) {
        rc = mod->pack(buf, calls[k].src, calls[k].count, (pmix_data_type_t) calls[k].type);
        if (PMIX_SUCCESS != rc) {
            failed = k;
            break;
        }
    }
    if (PMIX_SUCCESS == rc) {
        sb_str(o, "ok");
    } else {
        sb_tok(o, "err %d %zu", (int) rc, failed);
    }
    sb_buffer(o, buf);
    PMIX_RELEASE(buf);
}

#define UNPACK_ELEM_MIN 16
#define UNPACK_MAX_DEST ((size_t) 1 << 30)
#define UNPACK_SPARE 65536
#define UNPACK_PAD 64

static void do_unpack(sbuf_t *o)
{
    pmix_bfrops_module_t *mod = pick_module(next_tok("component"));
    pmix_bfrop_buffer_type_t kind = pick_kind(next_tok("buffer kind"));
    const char *hex = next_tok("hex");
    unsigned char *bytes = NULL;
    size_t nbytes = 0;
    int *types;
    int32_t *caps;
    size_t ncalls = 0;
    pmix_buffer_t *buf;
    sbuf_t items = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    size_t failed = 0;

    if (0 != strcmp(hex, "-")) {
        unsigned char *tmp = hex_decode(hex, &nbytes, 0, "buffer hex");
        /* the library owns (and frees) the buffer memory; zero padding after
         * the data makes over-reads deterministic */
        bytes = calloc(1, nbytes + UNPACK_PAD);
        if (NULL == bytes) {
            bad("out of memory");
        }
        memcpy(bytes, tmp, nbytes);
    }
    if (0 == toks_left() || toks_left() % 2) {
        free(bytes);
        bad("unpack needs <TYPE> <capacity> pairs");
    }
    types = arena_alloc(mul_sz(toks_left(), sizeof(int)));
    caps = arena_alloc(mul_sz(toks_left(), sizeof(int32_t)));
    while (toks_left() > 0) {
        int t = parse_type_name(peek_tok());
        const char *ct;
        char *end;
        long long c;
        if (t < 0) {
            free(bytes);
            bad("unknown type %.40s", peek_tok());
        }
        g_pos++;
        ct = next_tok("capacity");
        errno = 0;
        c = strtoll(ct, &end, 10);
        if (errno || *end || end == ct || c < INT32_MIN || c > INT32_MAX) {
            free(bytes);
            bad("bad capacity %.40s", ct);
        }
        types[ncalls] = t;
        caps[ncalls] = (int32_t) c;
        ncalls++;
    }

    buf = PMIX_NEW(pmix_buffer_t);
    if (NULL == buf) {
        free(bytes);
        bad("cannot create a buffer");
    }
    buf->type = kind;
    if (NULL != bytes) {
        buf->base_ptr = (char *) bytes;
        buf->pack_ptr = (char *) bytes + nbytes;
        buf->unpack_ptr = (char *) bytes;
        buf->bytes_allocated = nbytes;
        buf->bytes_used = nbytes;
    }

    for (size_t k = 0; k < ncalls; k++) {
        int t = types[k];
        int32_t cap = caps[k];
        int32_t n = cap;
        size_t es = esize(t);
        size_t room = cap > 0 ? (size_t) cap : 0;
        /* each element gets at least UNPACK_ELEM_MIN bytes (v12/v20 write some
         * 1- and 2-byte types as 4-byte ints); a value held in place that does
         * not fit its pmix_value_t spills into the spare room at the end */
        size_t stride = es > UNPACK_ELEM_MIN ? es : UNPACK_ELEM_MIN;
        size_t dbytes;
        char *dest;
        if (room > UNPACK_MAX_DEST / stride) {
            /* every element the library stores consumes at least one byte of
             * the buffer, so a huge capacity only needs that many slots */
            size_t most = nbytes + UNPACK_PAD + 64;
            room = room < most ? room : most;
        }
        dbytes = room * stride + UNPACK_SPARE;
        dest = calloc(1, dbytes);
        if (NULL == dest) {
            PMIX_RELEASE(buf);
            free(items.s);
            bad("cannot allocate %zu bytes for capacity %d", dbytes, (int) cap);
        }
        rc = mod->unpack(buf, dest, &n, (pmix_data_type_t) t);
        if (PMIX_SUCCESS != rc) {
            failed = k;
            free(dest);
            break;
        }
        sb_type(&items, t);
        sb_tok(&items, "%d", (int) n);
        for (int32_t i = 0; i < n && i < cap; i++) {
            if (!has_layout(t) || (size_t) i >= room) {
                sb_tok(&items, "?");
            } else {
                pr_elem(&items, t, dest + (size_t) i * es);
            }
        }
        free(dest);
    }
    PMIX_RELEASE(buf);

    if (PMIX_SUCCESS == rc) {
        sb_str(o, "ok");
    } else {
        sb_tok(o, "err %d %zu", (int) rc, failed);
    }
    if (items.len > 0) {
        sb_raw(o, " ", 1);
        sb_raw(o, items.s, items.len);
    }
    free(items.s);
}

static void handle_line(char *line, sbuf_t *o)
{
    const char *cmd;
    tokenize(line);
    if (0 == g_ntok) {
        bad("empty request");
    }
    cmd = next_tok("request");
    if (0 == strcmp(cmd, "hello")) {
        if (toks_left()) {
            bad("hello takes no arguments");
        }
        sb_str(o, "hello ok ");
        sb_str(o, PMIx_Get_version());
        return;
    }
    if (0 == strcmp(cmd, "pack")) {
        do_pack(o);
        return;
    }
    if (0 == strcmp(cmd, "unpack")) {
        do_unpack(o);
        return;
    }
    bad("unknown request %.40s", cmd);
}

/* upper bound on the time one request may take: a hung library call kills the
 * process (the client then restarts it) */
#define REQUEST_SECONDS 15

int main(void)
{
    pmix_proc_t me;
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int out_fd;

    /* answers go to a private copy of stdout; whatever the library prints on
     * stdout lands on stderr instead */
    out_fd = dup(STDOUT_FILENO);
    if (out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        perror("pmix-oracle: dup");
        return 2;
    }
    g_out = fdopen(out_fd, "w");
    if (NULL == g_out) {
        perror("pmix-oracle: fdopen");
        return 2;
    }
    setvbuf(g_out, NULL, _IOFBF, 1 << 16);

    PMIX_INFO_LOAD(&info, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    rc = PMIx_tool_init(&me, &info, 1);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "pmix-oracle: PMIx_tool_init failed: %s (%d)\n", PMIx_Error_string(rc), (int) rc);
        return 2;
    }

    while ((len = getline(&line, &cap, stdin)) >= 0) {
        while (len > 0 && ('\n' == line[len - 1] || '\r' == line[len - 1])) {
            line[--len] = '\0';
        }
        g_reply.len = 0;
        if (NULL != g_reply.s) {
            g_reply.s[0] = '\0';
        }
        alarm(REQUEST_SECONDS);
        /* a REGEX named, or a blob framing ("blob" in hex) among the bytes to unpack */
        g_ring_on = NULL != strstr(line, "REGEX") || NULL != strstr(line, "626c6f62");
        if (0 == setjmp(g_bad_jmp)) {
            handle_line(line, &g_reply);
        } else {
            g_reply.len = 0;
            sb_str(&g_reply, "bad ");
            sb_str(&g_reply, g_bad_msg);
        }
        alarm(0);
        arena_reset();
        reply(NULL != g_reply.s ? g_reply.s : "");
    }
    free(line);
    free(g_reply.s);
    free(g_tok);
    fclose(g_out);
    /* skip PMIx_tool_finalize: nothing to clean up for an unconnected tool and
     * it must never hold up the exit */
    _exit(0);
}
