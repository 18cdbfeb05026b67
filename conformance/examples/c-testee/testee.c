/* A testee skeleton in C for `pmix-conformance vectors` (protocol: conformance/TESTEE.md).
 *
 * What it shows: the framing (4-byte little-endian length + JSON), the capabilities
 * answer, and a number path that keeps 64-bit integers exact with no JSON library: it asks
 * for `integers_as_strings`, so every integer beyond 2^53 arrives as a decimal string, and
 * it reads both forms with strtoull. It implements one component (v41, non-described,
 * release 4.2) and two types, UINT8 and UINT64, in single-call requests, and answers
 * `unsupported` to everything else: replace `encode` and `decode` with calls into your
 * implementation (PMIx_Data_pack / PMIx_Data_unpack).
 *
 * Build: cc -O2 -Wall -o testee testee.c
 * Run:   pmix-conformance vectors --status class -- ./testee
 * The scanning below is enough for the runner's compact requests, not a JSON parser.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50)
#define EXACT_IN_A_DOUBLE ((1ULL << 53) - 1)

/* ---- framing ---------------------------------------------------------------------- */

static char *read_frame(void) {
    unsigned char head[4];
    if (fread(head, 1, 4, stdin) != 4) return NULL;
    uint32_t n = head[0] | head[1] << 8 | head[2] << 16 | (uint32_t)head[3] << 24;
    char *body = malloc((size_t)n + 1);
    if (!body || fread(body, 1, n, stdin) != n) { free(body); return NULL; }
    body[n] = 0;
    return body;
}

static void write_frame(const char *json) {
    uint32_t n = (uint32_t)strlen(json);
    unsigned char head[4] = {n & 0xff, n >> 8 & 0xff, n >> 16 & 0xff, n >> 24 & 0xff};
    fwrite(head, 1, 4, stdout);
    fwrite(json, 1, n, stdout);
    fflush(stdout);
}

/* ---- a growing string ------------------------------------------------------------- */

typedef struct { char *s; size_t len, cap; } buf_t;

static void put(buf_t *b, const char *text) {
    size_t n = strlen(text);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) { perror("realloc"); exit(1); }
    }
    memcpy(b->s + b->len, text, n + 1);
    b->len += n;
}

/* ---- the u64-safe number path ----------------------------------------------------- */

/* Read an unsigned integer given as a bare number or a decimal string; advance *p. */
static int read_u64(const char **p, uint64_t *out) {
    const char *s = *p;
    int quoted = *s == '"';
    if (quoted) s++;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    if (quoted) { if (*end != '"') return -1; end++; }
    *p = end;
    *out = v;
    return 0;
}

/* Write an integer the way the runner reads it: a string beyond 2^53. */
static void put_u64(buf_t *b, uint64_t v) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, v > EXACT_IN_A_DOUBLE ? "\"%llu\"" : "%llu", (unsigned long long)v);
    put(b, tmp);
}

/* ---- v41 wire: flexible integers (base 128, the last of size+1 bytes holds 8 bits) ---- */

static void flex_put(buf_t *hex, uint64_t v, int size) {
    char tmp[4];
    for (int i = 0; i < size; i++) {
        if (v < 0x80) { snprintf(tmp, sizeof tmp, "%02x", (unsigned)v); put(hex, tmp); return; }
        snprintf(tmp, sizeof tmp, "%02x", (unsigned)((v & 0x7f) | 0x80));
        put(hex, tmp);
        v >>= 7;
    }
    snprintf(tmp, sizeof tmp, "%02x", (unsigned)v);
    put(hex, tmp);
}

static int flex_get(const unsigned char *w, size_t n, size_t *at, uint64_t *out, int size) {
    uint64_t v = 0;
    for (int i = 0; i <= size; i++) {
        if (*at >= n) return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
        unsigned b = w[(*at)++];
        if (i == size) { v |= (uint64_t)b << (7 * i); break; }
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) break;
    }
    *out = v;
    return 0;
}

/* ---- requests ---------------------------------------------------------------------- */

static const char *after(const char *s, const char *key) {
    const char *p = strstr(s, key);
    return p ? p + strlen(key) : NULL;
}

/* The single type of the request ("UINT8" or "UINT64") after `key`, or NULL; `list`: the
 * type is an entry of a list (decode's "types"), which must have no other entry. */
static const char *one_type(const char *req, const char *key, int list) {
    const char *p = after(req, key);
    if (!p) return NULL;
    const char *type = NULL;
    if (!strncmp(p, "\"UINT8\"", 7)) type = "UINT8";
    else if (!strncmp(p, "\"UINT64\"", 8)) type = "UINT64";
    if (!type) return NULL;
    /* exactly one call: no second item, no second entry in a list of types */
    if (strstr(p + 1, "\"type\"") || (list && p[strlen(type) + 2] != ']')) return NULL;
    return type;
}

static const char *UNSUPPORTED =
    "{\"result\":\"unsupported\",\"reason\":\"the C skeleton packs one UINT8 or UINT64 call\"}";

static void encode(const char *req, buf_t *out) {
    const char *type = one_type(req, "\"items\":[{\"type\":", 0);
    const char *p = after(req, "\"values\":[");
    if (!type || !p) { put(out, UNSUPPORTED); return; }
    int wide = !strcmp(type, "UINT64");
    buf_t vals = {0}, hex = {0};
    put(&vals, "");
    uint64_t count = 0, v;
    while (*p != ']') {
        if (read_u64(&p, &v) || (!wide && v > 255)) { put(out, UNSUPPORTED); free(vals.s); return; }
        if (wide) flex_put(&vals, v, 8);
        else { char t[4]; snprintf(t, sizeof t, "%02x", (unsigned)v); put(&vals, t); }
        count++;
        if (*p == ',') p++;
    }
    put(&hex, "");
    flex_put(&hex, count * 2, 4); /* the count: INT32, zigzag */
    put(&hex, vals.s);
    put(out, "{\"result\":\"ok\",\"wire\":\"");
    put(out, hex.s);
    put(out, "\"}");
    free(vals.s);
    free(hex.s);
}

static void decode(const char *req, buf_t *out) {
    const char *type = one_type(req, "\"types\":[", 1);
    const char *h = after(req, "\"wire\":\"");
    if (!type || !h) { put(out, UNSUPPORTED); return; }
    size_t n = strcspn(h, "\"") / 2, at = 0;
    unsigned char *w = malloc(n + 1);
    for (size_t i = 0; i < n; i++) sscanf(h + 2 * i, "%2hhx", &w[i]);
    uint64_t zz, v;
    int st = flex_get(w, n, &at, &zz, 4);
    int64_t count = (int64_t)(zz >> 1) ^ -(int64_t)(zz & 1);
    if (!st && (count < 0 || (uint64_t)count > n)) st = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    buf_t items = {0};
    put(&items, "");
    for (int64_t i = 0; !st && i < count; i++) {
        if (!strcmp(type, "UINT64")) st = flex_get(w, n, &at, &v, 8);
        else if (at < n) v = w[at++];
        else st = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
        if (!st) { if (i) put(&items, ","); put_u64(&items, v); }
    }
    free(w);
    if (st) {
        char t[64];
        snprintf(t, sizeof t, "{\"result\":\"error\",\"status\":%d,\"item\":0}", st);
        put(out, t);
    } else {
        put(out, "{\"result\":\"ok\",\"items\":[{\"type\":\"");
        put(out, type);
        put(out, "\",\"values\":[");
        put(out, items.s);
        put(out, "]}]}");
    }
    free(items.s);
}

int main(void) {
    char *req;
    while ((req = read_frame())) {
        buf_t out = {0};
        put(&out, "");
        if (strstr(req, "\"op\":\"capabilities\""))
            put(&out, "{\"name\":\"c-skeleton\",\"version\":\"0.1\",\"protocol\":1,"
                      "\"components\":[\"v41\"],\"buffers\":[\"non-described\"],"
                      "\"releases\":[\"4.2\"],\"integers_as_strings\":true}");
        else if (strstr(req, "\"op\":\"encode\""))
            encode(req, &out);
        else if (strstr(req, "\"op\":\"decode\""))
            decode(req, &out);
        else
            put(&out, "{\"result\":\"runtime_error\",\"message\":\"unknown op\"}");
        write_frame(out.s);
        free(out.s);
        free(req);
    }
    return 0;
}
