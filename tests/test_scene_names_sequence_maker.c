/* Property: a scene whose mesh sequence's files are missing says which file and how to make
 * them: the sequence's "made_by" command is quoted in the message, so a newcomer who runs
 * a character scene before building its figure learns the remedy from the error alone.
 * Cases: 1. every shipped scene with a sequence (scenes/, scenes/paper/), read where its
 * assets are not (a scratch folder): refused, and the message names the file, the key
 * (shape.path) and `cmake --build build --target <t>` with <t> a target CMakeLists.txt
 * defines; 2. a scene of its own with "made_by" and its files missing: the message quotes
 * the command; without "made_by" it says only what is missing; 3. with its files there,
 * "made_by" leaves the sim_hash as it is without it (caches made before the key still
 * belong to the scene); 4. a "made_by" that is not a string is refused by its key. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pw_math.h"
#include "obj_fixture.h" /* after pw_math.h */
#include "scene.h"
#include "test_util.h"

#define SCRATCH POWDER_TEST_TMP "/scene_names_sequence_maker"

/* Parses text as a scene read from base; returns the status, *err the message. */
static pw_status parse(const char *name, const char *text, const char *base, pw_scene *sc,
                       pw_error *err)
{
    memset(err, 0, sizeof *err);
    return pw_scene_parse(name, text, strlen(text), base, sc, err);
}

/* 1. the shipped scenes with a sequence, in scenes<sub> ("" or "/paper") */
static int check_shipped(const char *sub, const char *cmake, pw_scene *sc)
{
    char dir_path[1024], base[1024];
    snprintf(dir_path, sizeof dir_path, POWDER_SOURCE_DIR "/scenes%s", sub);
    snprintf(base, sizeof base, SCRATCH "%s", sub); /* nothing there: no assets beside it */
    DIR *d = opendir(dir_path);
    CHECK(d != NULL, "cannot list %s", dir_path);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
        char *text = slurp(path, NULL);
        CHECK(text != NULL, "cannot read %s", path);
        if (!text || !strstr(text, "\"sequence\"")) {
            free(text);
            continue;
        }
        n++;
        pw_error err;
        pw_status rc = parse(e->d_name, text, base, sc, &err);
        printf("1. scenes%s/%s: %s\n", sub, e->d_name, err.msg);
        CHECK(rc != PW_OK, "%s read without its sequence's files", path);
        CHECK(strstr(err.msg, ".shape.path: file 1 of the sequence") &&
                  strstr(err.msg, ".0001.obj': the files are made by `cmake --build build "
                                  "--target "),
              "%s: %s", path, err.msg);
        /* the target named is one the build defines */
        const char *t = strstr(err.msg, "--target ");
        char target[128] = "", def[160], def_nl[160];
        if (t) sscanf(t + 9, "%127[a-z-]", target);
        snprintf(def, sizeof def, "(%s ", target);
        snprintf(def_nl, sizeof def_nl, "(%s\n", target);
        CHECK(target[0] && (strstr(cmake, def) || strstr(cmake, def_nl)),
              "%s: no target '%s' in CMakeLists.txt", path, target);
        free(text);
    }
    closedir(d);
    return n;
}

static const char *scene_with(const char *sequence_extra, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "{\"name\": \"made_by\", \"frames\": {\"end\": 2},\n"
             " \"sim\": {\"domain\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"
             "  \"materials\": {\"snow\": {}},\n"
             "  \"bodies\": [{\"material\": \"snow\", \"shapes\": [{\"type\": \"sphere\", "
             "\"center\": [0.5, 0.5, 0.5], \"radius\": 0.1}]}],\n"
             "  \"colliders\": [{\"shape\": {\"type\": \"mesh\", \"path\": \"fig/f.##.obj\",\n"
             "    \"sequence\": {\"first\": 1, \"last\": 2%s}}}]},\n"
             " \"render\": {\"camera\": {\"eye\": [0.5, 0.5, 3], \"target\": [0.5, 0.5, 0.5]},\n"
             "  \"lights\": {\"sky\": {\"radiance\": [1, 1, 1]}}}}\n",
             sequence_extra);
    return buf;
}

int main(void)
{
    pw_scene *sc = malloc(sizeof *sc);
    char *cmake = slurp(POWDER_SOURCE_DIR "/CMakeLists.txt", NULL);
    CHECK(sc && cmake, "setup");
    if (!sc || !cmake) return check_done("scene_names_sequence_maker");
    CHECK(system("rm -rf '" SCRATCH "' && mkdir -p '" SCRATCH "/fig'") == 0,
          "scratch " SCRATCH);

    /* 1. the shipped scenes */
    int n = check_shipped("", cmake, sc) + check_shipped("/paper", cmake, sc);
    printf("1. %d shipped scenes with a sequence\n", n);
    CHECK(n >= 4, "only %d shipped scenes with a sequence (the two characters, two scales)", n);

    /* 2. its own scene, files missing, with and without made_by */
    char text[2048];
    pw_error err;
    pw_status rc = parse("own.json", scene_with(", \"made_by\": \"make figure\"", text,
                                                sizeof text), SCRATCH, sc, &err);
    printf("2.1 %s\n", err.msg);
    CHECK(rc != PW_OK && strstr(err.msg, "own.json: sim.colliders[0].shape.path: file 1 of the "
                                         "sequence 1..2: cannot open '") &&
              strstr(err.msg, "/fig/f.01.obj': the files are made by `make figure`"),
          "2.1 %s", err.msg);
    rc = parse("own.json", scene_with("", text, sizeof text), SCRATCH, sc, &err);
    printf("2.2 %s\n", err.msg);
    CHECK(rc != PW_OK && strstr(err.msg, "/fig/f.01.obj'") && !strstr(err.msg, "made by"),
          "2.2 %s", err.msg);

    /* 3. with the files there, the same sim_hash with and without made_by */
    vec3 v[8];
    box_corners(v3(0.1, 0, 0.1), v3(0.3, 0.2, 0.3), v);
    write_box(SCRATCH "/fig/f.01.obj", v);
    write_box(SCRATCH "/fig/f.02.obj", v);
    rc = parse("own.json", scene_with("", text, sizeof text), SCRATCH, sc, &err);
    CHECK(rc == PW_OK, "3 without made_by: %s", err.msg);
    uint64_t without = sc->sim_hash;
    rc = parse("own.json", scene_with(", \"made_by\": \"make figure\"", text, sizeof text),
               SCRATCH, sc, &err);
    CHECK(rc == PW_OK, "3 with made_by: %s", err.msg);
    printf("3. sim_hash %016llx without made_by, %016llx with\n", (unsigned long long)without,
           (unsigned long long)sc->sim_hash);
    CHECK(rc == PW_OK && sc->sim_hash == without, "3 made_by changed the sim_hash");

    /* 4. a made_by that is not a string */
    rc = parse("own.json", scene_with(", \"made_by\": 7", text, sizeof text), SCRATCH, sc,
               &err);
    printf("4. %s\n", err.msg);
    CHECK(rc != PW_OK && strstr(err.msg, "sim.colliders[0].shape.sequence.made_by: expected a "
                                         "string"),
          "4 %s", err.msg);

    free(cmake);
    free(sc);
    return check_done("scene_names_sequence_maker");
}
