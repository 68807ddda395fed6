/* Property: a damaged OBJ is refused with PW_EFORMAT and a message that starts with
 * "<name>:<line>:" for the offending line and names the problem; the output mesh is
 * left empty. Each numbered case damages one thing. The exact line number is the
 * tolerance: a message pointing at a neighbouring line would send a user to the wrong
 * place. Finally, every prefix of a valid file and a few thousand pseudo-random byte
 * strings are parsed and must give PW_OK or PW_EFORMAT with a "name:line:" message
 * (never a crash: the sanitizer build checks memory safety). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_obj.h"

typedef struct {
    const char *what;
    const char *text;
    size_t len; /* 0: strlen(text) */
    int line;
    const char *needle; /* must appear in the message */
} bad_case;

#define TRI "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

static const bad_case cases[] = {
    /* 1 */ {"truncated vertex", TRI "v 1 2\nf 1 2 3\n", 0, 4, "2 coordinates"},
    /* 2 */ {"truncated face", TRI "f 1 2\n", 0, 4, "2 vertices"},
    /* 3 */ {"truncated corner v/", TRI "f 1 2 3/\n", 0, 4, "truncated face corner"},
    /* 4 */ {"truncated corner v/vt/", "vt 0 0\n" TRI "f 1 2/1/ 3\n", 0, 5, "truncated"},
    /* 5 */ {"bad number", TRI "v 1 2 x3\nf 1 2 3\n", 0, 4, "bad number ('x3')"},
    /* 6 */ {"number with junk", TRI "v 1 2 3.0.0\nf 1 2 3\n", 0, 4, "bad number"},
    /* 7 */ {"bad index", TRI "f 1 2 three\n", 0, 4, "bad face index"},
    /* 8 */ {"index out of range", TRI "f 1 2 4\n", 0, 4, "index 4 out of range (3 vertices)"},
    /* 9 */ {"negative index out of range", TRI "f -1 -2 -4\n", 0, 4, "index -4 out of range"},
    /* 10 */ {"zero index", TRI "f 0 1 2\n", 0, 4, "index 0"},
    /* 11 */ {"NaN coordinate", TRI "v nan 0 0\nf 1 2 3\n", 0, 4, "non-finite"},
    /* 12 */ {"inf coordinate", TRI "v 0 -inf 0\nf 1 2 3\n", 0, 4, "non-finite"},
    /* 13 */ {"overflowing coordinate", TRI "v 0 0 1e999\nf 1 2 3\n", 0, 4, "non-finite"},
    /* 14 */ {"coordinate beyond float", TRI "v 0 0 1e300\nf 1 2 3\n", 0, 4, "float range"},
    /* 15 */ {"empty file", "", 0, 1, "empty mesh"},
    /* 16 */ {"vertices only", TRI, 0, 3, "empty mesh (no faces, 3 vertices)"},
    /* 17 */ {"binary garbage", "v 0 0 0\n\x7f" "ELF\x02\x01\x01\0\0\0", 18, 2, "binary data"},
    /* 18 */ {"NUL in a line", TRI "f 1 2\0 3\n", 24 + 9, 4, "binary data (byte 0x00"},
    /* 19 */ {"not a record", TRI "\xff\xfe junk\nf 1 2 3\n", 0, 4, "not an OBJ record"},
    /* 20 */ {"texture index out of range", "vt 0 0\n" TRI "f 1/2 2/1 3/1\n", 0, 5,
              "texture index 2 out of range"},
    /* 21 */ {"normal index out of range", TRI "f 1//1 2//1 3//1\n", 0, 4, "normal index 1"},
    /* 22 */ {"too many corner parts", TRI "f 1/1/1/1 2 3\n", 0, 4, "more than three parts"},
    /* 23 */ {"degenerate face", TRI "f 1 2 2\n", 0, 4, "degenerate"},
    /* 24 */ {"huge index", TRI "f 1 2 99999999999999999999999\n", 0, 4, "bad face index"},
    /* 25 */ {"forward reference", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 0, 3,
              "index 3 out of range (2 vertices)"},
    /* 26 */ {"too many vertex values", TRI "v 1 2 3 4 5 6 7 8\nf 1 2 3\n", 0, 4, "too many"},
    /* 27 */ {"overlong number", TRI "v 1 2 "
              "0.000000000000000000000000000000000000000000000000000000000000000001\n"
              "f 1 2 3\n", 0, 4, "number too long"},
    /* 28 */ {"bad face after good ones", TRI "f 1 2 3\n\n# c\nf 1 2 +\n", 0, 7, "bad face"},
};

/* The message must begin with "test.obj:<line>:" exactly. */
static int has_line(const char *msg, int line)
{
    char want[64];
    snprintf(want, sizeof want, "test.obj:%d:", line);
    return strncmp(msg, want, strlen(want)) == 0;
}

static unsigned rng(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

int main(void)
{
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < ncases; c++) {
        const bad_case *k = &cases[c];
        size_t len = k->len ? k->len : strlen(k->text);
        pw_mesh m = {.n_vertices = 99};
        pw_error err = {0};
        pw_status rc = pw_obj_parse("test.obj", k->text, len, &m, &err);
        CHECK(rc == PW_EFORMAT, "case %d (%s): status %s, want PW_EFORMAT", c + 1, k->what,
              pw_status_name(rc));
        CHECK(has_line(err.msg, k->line), "case %d (%s): want line %d in '%s'", c + 1, k->what,
              k->line, err.msg);
        CHECK(strstr(err.msg, k->needle) != NULL, "case %d (%s): want '%s' in '%s'", c + 1,
              k->what, k->needle, err.msg);
        CHECK(m.n_vertices == 0 && m.vertices == NULL && m.triangles == NULL,
              "case %d: mesh left empty", c + 1);
        printf("case %2d %-28s -> %s\n", c + 1, k->what, err.msg);
    }

    /* 29. a missing file is PW_ENOENT (bad input, exit 2) naming the file */
    pw_mesh m;
    pw_error err = {0};
    CHECK(pw_obj_read(POWDER_TEST_TMP "/no-such.obj", &m, &err) == PW_ENOENT, "missing file");
    CHECK(strstr(err.msg, "no-such.obj") != NULL, "message names the file: %s", err.msg);

    /* 30. every prefix of a valid file: OK, or EFORMAT with "test.obj:<n>:" */
    const char *good = "# c\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1\nf -3 -2 -1\n";
    size_t glen = strlen(good);
    int n_ok = 0;
    for (size_t cut = 0; cut <= glen; cut++) {
        pw_status rc = pw_obj_parse("test.obj", good, cut, &m, &err);
        if (rc == PW_OK) n_ok++, pw_mesh_free(&m);
        else
            CHECK(rc == PW_EFORMAT && strncmp(err.msg, "test.obj:", 9) == 0,
                  "prefix %zu: %s %s", cut, pw_status_name(rc), err.msg);
    }
    CHECK(n_ok >= 2, "the whole file and the cut after the first face parse (%d)", n_ok);

    /* 31. random mutations of the valid file and random OBJ-alphabet strings */
    int trials = getenv("POWDER_SANITIZED") ? 2000 : 20000;
    static const char alphabet[] = "vf /-+.0123456789e\n#tnaix\t\r";
    unsigned s = 7u;
    char buf[256];
    for (int t = 0; t < trials; t++) {
        size_t len;
        if (t % 2) {
            memcpy(buf, good, glen);
            len = glen;
            for (int k = 0; k < 3; k++) buf[rng(&s) % len] = (char)(rng(&s) & 0xff);
        } else {
            len = rng(&s) % sizeof buf;
            for (size_t k = 0; k < len; k++) buf[k] = alphabet[rng(&s) % (sizeof alphabet - 1)];
        }
        pw_status rc = pw_obj_parse("test.obj", buf, len, &m, &err);
        if (rc == PW_OK) {
            for (size_t k = 0; k < 3 * m.n_triangles; k++)
                CHECK(m.triangles[k] < m.n_vertices, "trial %d: index in range", t);
            pw_mesh_free(&m);
        } else {
            CHECK(rc == PW_EFORMAT && strncmp(err.msg, "test.obj:", 9) == 0,
                  "trial %d: %s %s", t, pw_status_name(rc), err.msg);
        }
    }
    return check_done("obj_rejects_damaged");
}
