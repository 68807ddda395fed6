/* scene_json.c — typed, range-checked access to the scene's JSON values with messages
 * that name the file, the JSON path and what is allowed; see scene_internal.h. */
#include "scene_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const sc_range sc_any = {-INFINITY, INFINITY, 1, 1, "value"};
const sc_range sc_nonneg = {0, INFINITY, 0, 1, "value"};
const sc_range sc_positive = {0, INFINITY, 1, 1, "value"};
const sc_range sc_unit = {0, 1, 0, 0, "value"};

/* Integers beyond 2^53 cannot round-trip through a double; no scene value needs them. */
#define SC_MAX_EXACT 9007199254740992.0

/* ---- paths and messages ------------------------------------------------------- */

void sc_join(char *out, const char *path, const char *key)
{
    if (path[0])
        snprintf(out, SC_PATH, "%.120s.%.120s", path, key);
    else
        snprintf(out, SC_PATH, "%.200s", key);
}

void sc_index(char *out, const char *path, int i)
{
    snprintf(out, SC_PATH, "%.200s[%d]", path, i);
}

const char *sc_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

pw_status sc_fail(const sc_ctx *c, const char *path, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (path && path[0])
        return pw_fail(c->err, PW_EINVAL, "%s: %s: %s", c->file, path, what);
    return pw_fail(c->err, PW_EINVAL, "%s: %s", c->file, what);
}

pw_status sc_fail_value(const sc_ctx *c, const char *path, double value, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pw_fail(c->err, PW_EINVAL, "%s: %s = %.9g: %s", c->file, path, value, what);
}

static pw_status type_error(const sc_ctx *c, const char *path, const char *expected,
                            const json_t *got)
{
    return sc_fail(c, path, "expected %s, got %s", expected, sc_type_name(got));
}

/* "must be in (-1, 0.5)", "must be > 0", "must be >= 0" */
static void describe_range(sc_range r, char *out, size_t cap)
{
    int has_lo = isfinite(r.lo), has_hi = isfinite(r.hi);
    if (has_lo && has_hi)
        snprintf(out, cap, "in %c%.9g, %.9g%c", r.lo_open ? '(' : '[', r.lo, r.hi,
                 r.hi_open ? ')' : ']');
    else if (has_lo)
        snprintf(out, cap, "%s %.9g", r.lo_open ? ">" : ">=", r.lo);
    else if (has_hi)
        snprintf(out, cap, "%s %.9g", r.hi_open ? "<" : "<=", r.hi);
    else
        snprintf(out, cap, "finite");
}

static int in_range(double v, sc_range r)
{
    if (!isfinite(v)) return 0;
    if (r.lo_open ? !(v > r.lo) : !(v >= r.lo)) return 0;
    if (r.hi_open ? !(v < r.hi) : !(v <= r.hi)) return 0;
    return 1;
}

static pw_status range_error(const sc_ctx *c, const char *path, double v, sc_range r)
{
    char allowed[96];
    describe_range(r, allowed, sizeof allowed);
    return sc_fail_value(c, path, v, "%s must be %s", r.what, allowed);
}

/* ---- unknown keys -------------------------------------------------------------- */

int sc_edit_distance(const char *a, const char *b)
{
    /* Keys are short; longer strings are compared on their first 63 bytes, which is
     * plenty to find a suggestion and keeps the table on the stack. */
    enum { N = 64 };
    size_t na = strnlen(a, N - 1), nb = strnlen(b, N - 1);
    int row[N];
    for (size_t j = 0; j <= nb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

pw_status sc_check_keys(const sc_ctx *c, const json_t *v, const char *path,
                        const char *const *allowed)
{
    if (!json_is_object(v)) return type_error(c, path, "an object", v);
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)v, key, value) {
        int known = 0;
        for (int k = 0; allowed[k]; k++)
            if (strcmp(key, allowed[k]) == 0) known = 1;
        if (known) continue;
        char at[SC_PATH];
        char shown[48];
        /* A key may hold any bytes JSON allows; show a bounded, printable form. */
        size_t n = 0;
        for (const char *q = key; *q && n < sizeof shown - 1; q++)
            shown[n++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
        shown[n] = '\0';
        sc_join(at, path, shown);
        int best = -1, best_d = 1 << 30;
        for (int k = 0; allowed[k]; k++) {
            int d = sc_edit_distance(key, allowed[k]);
            if (d < best_d) best_d = d, best = k;
        }
        /* A suggestion helps only when it is a plausible typo of the key. */
        size_t len = strlen(key);
        int limit = len < 4 ? 2 : (int)(len / 2) + 1;
        if (best >= 0 && best_d <= limit)
            return sc_fail(c, at, "unknown key (did you mean '%s'?)", allowed[best]);
        char list[300];
        size_t used = 0;
        list[0] = '\0';
        for (int k = 0; allowed[k] && used + 1 < sizeof list; k++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                             allowed[k]);
            if (w < 0) break;
            used += (size_t)w;
        }
        return sc_fail(c, at, "unknown key (allowed: %s)", list);
    }
    return PW_OK;
}

/* ---- typed accessors ------------------------------------------------------------- */

static pw_status missing(const sc_ctx *c, const char *path, const char *expected)
{
    return sc_fail(c, path, "required key is missing (expected %s)", expected);
}

pw_status sc_get_object(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                        int required, json_t **out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return required ? missing(c, at, "an object") : PW_OK;
    if (!json_is_object(v)) return type_error(c, at, "an object", v);
    *out = v;
    return PW_OK;
}

pw_status sc_get_section(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                         json_t **out)
{
    pw_status rc = sc_get_object(c, obj, path, key, 0, out);
    if (rc != PW_OK || *out) return rc;
    *out = json_object();
    json_object_set_new(obj, key, *out);
    return PW_OK;
}

pw_status sc_get_array(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                       int required, json_t **out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return required ? missing(c, at, "an array") : PW_OK;
    if (!json_is_array(v)) return type_error(c, at, "an array", v);
    *out = v;
    return PW_OK;
}

pw_status sc_get_list(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                      int required, size_t max, const char *what, json_t **out)
{
    pw_status rc = sc_get_array(c, obj, path, key, required, out);
    if (rc != PW_OK || !*out || json_array_size(*out) <= max) return rc;
    char at[SC_PATH];
    sc_join(at, path, key);
    return sc_fail(c, at, "%zu %s, at most %zu", json_array_size(*out), what, max);
}

pw_status sc_number(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                    int required, double def, sc_range r, double *out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    double x = def;
    if (!v) {
        if (required) return missing(c, at, "a number");
    } else {
        if (!json_is_number(v)) return type_error(c, at, "a number", v);
        x = json_number_value(v);
    }
    if (!in_range(x, r)) return range_error(c, at, x, r);
    /* 1, 1.0 and 1e0 are one value: store it one way for the canonical dump. */
    json_object_set_new(obj, key, json_real(x));
    *out = x;
    return PW_OK;
}

pw_status sc_int(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                 int required, long long def, long long lo, long long hi, const char *what,
                 long long *out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    long long n = def;
    if (!v) {
        if (required) return missing(c, at, "an integer");
    } else if (json_is_integer(v)) {
        n = json_integer_value(v);
    } else if (json_is_real(v)) {
        /* 5e6 is how people write five million; accept integral reals. */
        double x = json_real_value(v);
        if (!(x == floor(x)) || fabs(x) > SC_MAX_EXACT)
            return sc_fail_value(c, at, x, "%s must be an integer", what);
        n = (long long)x;
    } else {
        return type_error(c, at, "an integer", v);
    }
    if (n < lo || n > hi)
        return pw_fail(c->err, PW_EINVAL, "%s: %s = %lld: %s must be in [%lld, %lld]",
                       c->file, at, n, what, lo, hi);
    json_object_set_new(obj, key, json_integer(n));
    *out = n;
    return PW_OK;
}

pw_status sc_bool(const sc_ctx *c, json_t *obj, const char *path, const char *key, int def,
                  int *out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = def;
        json_object_set_new(obj, key, json_boolean(def));
        return PW_OK;
    }
    if (!json_is_boolean(v)) return type_error(c, at, "true or false", v);
    *out = json_is_true(v);
    return PW_OK;
}

pw_status sc_string(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                    const char *def, char *out, size_t cap)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (!def) return missing(c, at, "a string");
        snprintf(out, cap, "%s", def);
        json_object_set_new(obj, key, json_string(def));
        return PW_OK;
    }
    if (!json_is_string(v)) return type_error(c, at, "a string", v);
    size_t n = json_string_length(v);
    if (n + 1 > cap)
        return sc_fail(c, at, "string of %zu bytes is too long (at most %zu)", n, cap - 1);
    memcpy(out, json_string_value(v), n + 1);
    return PW_OK;
}

pw_status sc_enum(const sc_ctx *c, json_t *obj, const char *path, const char *key, int def,
                  const char *const *names, int *out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    char list[200];
    size_t used = 0;
    list[0] = '\0';
    for (int k = 0; names[k] && used + 1 < sizeof list; k++) {
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", k ? ", " : "", names[k]);
        if (w < 0) break;
        used += (size_t)w;
    }
    if (!v) {
        if (def < 0) {
            char expected[220];
            snprintf(expected, sizeof expected, "one of %s", list);
            return missing(c, at, expected);
        }
        *out = def;
        json_object_set_new(obj, key, json_string(names[def]));
        return PW_OK;
    }
    if (!json_is_string(v)) return type_error(c, at, "a string", v);
    for (int k = 0; names[k]; k++)
        if (strcmp(json_string_value(v), names[k]) == 0) {
            *out = k;
            return PW_OK;
        }
    return sc_fail(c, at, "\"%.40s\" is not one of %s", json_string_value(v), list);
}

pw_status sc_vec3(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                  int required, vec3 def, sc_range r, vec3 *out)
{
    char at[SC_PATH];
    sc_join(at, path, key);
    json_t *v = json_object_get(obj, key);
    double x[3] = {def.x, def.y, def.z};
    if (!v) {
        if (required) return missing(c, at, "an array of 3 numbers");
    } else {
        if (!json_is_array(v)) return type_error(c, at, "an array of 3 numbers", v);
        if (json_array_size(v) != 3)
            return sc_fail(c, at, "expected an array of 3 numbers, got %zu element%s",
                           json_array_size(v), json_array_size(v) == 1 ? "" : "s");
        for (int k = 0; k < 3; k++) {
            json_t *e = json_array_get(v, (size_t)k);
            if (!json_is_number(e)) {
                char ek[SC_PATH];
                sc_index(ek, at, k);
                return type_error(c, ek, "a number", e);
            }
            x[k] = json_number_value(e);
        }
    }
    for (int k = 0; k < 3; k++)
        if (!in_range(x[k], r)) {
            char ek[SC_PATH];
            sc_index(ek, at, k);
            return range_error(c, ek, x[k], r);
        }
    json_object_set_new(obj, key, json_pack("[fff]", x[0], x[1], x[2]));
    *out = v3(x[0], x[1], x[2]);
    return PW_OK;
}

pw_status sc_direction(const sc_ctx *c, json_t *obj, const char *path, const char *key,
                       int required, vec3 def, vec3 *out)
{
    vec3 d;
    pw_status rc = sc_vec3(c, obj, path, key, required, def, sc_any, &d);
    if (rc != PW_OK) return rc;
    /* Divide by the largest component first so [1e200, 0, 0] normalises instead of
     * overflowing in the length. */
    double m = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
    if (!(m > 0)) {
        char at[SC_PATH];
        sc_join(at, path, key);
        return pw_fail(c->err, PW_EINVAL, "%s: %s = [%g, %g, %g]: a direction must be a "
                       "non-zero vector", c->file, at, d.x, d.y, d.z);
    }
    d = v3_scale(d, 1 / m);
    *out = v3_scale(d, 1 / v3_length(d));
    return PW_OK;
}

pw_status sc_scene_relative(const sc_ctx *c, const char *path, const char *rel, char *out,
                            size_t cap)
{
    if (!rel[0]) return sc_fail(c, path, "empty path");
    int n;
    size_t nd = c->dir ? strlen(c->dir) : 0;
    if (rel[0] == '/' || nd == 0)
        n = snprintf(out, cap, "%s", rel);
    else
        n = snprintf(out, cap, "%s%s%s", c->dir, c->dir[nd - 1] == '/' ? "" : "/", rel);
    if (n < 0 || (size_t)n >= cap)
        return sc_fail(c, path, "path too long (%d bytes, at most %zu)", n, cap - 1);
    return PW_OK;
}

pw_status sc_asset_path(const sc_ctx *c, const char *path, const char *rel, char *out,
                        size_t cap)
{
    pw_status rc = sc_scene_relative(c, path, rel, out, cap);
    if (rc != PW_OK) return rc;
    /* Checked now, so a typo stops the shot before hours of simulation, not after.
     * A device or directory is refused too: readers would block or fail late. */
    struct stat st;
    if (stat(out, &st) != 0) return sc_fail(c, path, "cannot open '%s'", out);
    if (!S_ISREG(st.st_mode)) return sc_fail(c, path, "'%s' is not a regular file", out);
    FILE *f = fopen(out, "rb");
    if (!f) return sc_fail(c, path, "cannot open '%s' for reading", out);
    fclose(f);
    return PW_OK;
}
