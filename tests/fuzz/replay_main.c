/* replay_main.c — runs a libFuzzer target's LLVMFuzzerTestOneInput over every file of
 * the directories (or files) named on the command line, without libFuzzer, so ctest
 * replays the seed corpus and every input a fuzzing run ever crashed on. Under the
 * sanitizer build a regression shows up as an ASan/UBSan report; the targets also trap
 * on internal inconsistencies. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, fp);
        if (!got) break;
        n += got;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 1;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) continue; /* an empty regressions folder may be absent */
        if (!S_ISDIR(st.st_mode)) {
            count += replay_file(argv[a]);
            continue;
        }
        DIR *d = opendir(argv[a]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            count += replay_file(path);
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs\n", count);
    return count > 0 ? 0 : 1;
}
