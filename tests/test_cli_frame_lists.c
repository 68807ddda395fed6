/* Property: --frames specifications expand to exactly the frames a user means
 * ("5", "1-48", "1-100x2", comma lists), sorted without duplicates, and every malformed
 * or out-of-range spec is refused with a message quoting it; a negative frame is refused
 * as one (frame numbers start at 0), and a single frame is named as a frame, not as a
 * range ("frames -1--1"). Exact integer checks and exact messages. */
#include <string.h>

#include "check.h"
#include "frames.h"

static void expect(const char *spec, int lo, int hi, int count, int first, int last)
{
    pw_frame_list l;
    pw_error err = {0};
    pw_status rc = pw_frames_parse(spec, lo, hi, &l, &err);
    CHECK(rc == PW_OK, "'%s': %s", spec, err.msg);
    if (rc != PW_OK) return;
    CHECK(l.count == count, "'%s': %d frames, expected %d", spec, l.count, count);
    if (l.count) {
        CHECK(l.frames[0] == first, "'%s': first %d, expected %d", spec, l.frames[0], first);
        CHECK(l.frames[l.count - 1] == last, "'%s': last %d", spec, l.frames[l.count - 1]);
        for (int k = 1; k < l.count; k++)
            CHECK(l.frames[k] > l.frames[k - 1], "'%s': not strictly ascending at %d", spec, k);
    }
    pw_frame_list_free(&l);
}

static void refuse(const char *spec, int lo, int hi, const char *needle)
{
    pw_frame_list l;
    pw_error err = {0};
    pw_status rc = pw_frames_parse(spec, lo, hi, &l, &err);
    CHECK(rc == PW_EINVAL, "'%s' accepted", spec);
    CHECK(strstr(err.msg, needle) != NULL, "'%s': message '%s' lacks '%s'", spec, err.msg, needle);
    CHECK(l.frames == NULL && l.count == 0, "'%s': list not empty after failure", spec);
}

/* The whole message of a refused spec. */
static void refuse_exactly(const char *spec, int lo, int hi, const char *want)
{
    pw_frame_list l;
    pw_error err = {0};
    pw_status rc = pw_frames_parse(spec, lo, hi, &l, &err);
    CHECK(rc == PW_EINVAL, "'%s' accepted", spec);
    CHECK(!strcmp(err.msg, want), "'%s':\n  got:      %s\n  expected: %s", spec, err.msg, want);
    if (rc == PW_OK) pw_frame_list_free(&l);
}

int main(void)
{
    /* 1. the forms of the issue */
    expect("5", 1, 48, 1, 5, 5);
    expect("1-48", 1, 48, 48, 1, 48);
    expect("1-100x2", 1, 100, 50, 1, 99);
    /* 2. comma lists merge, sort and drop duplicates */
    expect("10-12,1,11,3-5", 1, 48, 7, 1, 12);
    expect("0-0", 0, 0, 1, 0, 0);
    /* 3. refusals name the spec */
    refuse("", 1, 48, "empty");
    refuse("abc", 1, 48, "'abc'");
    refuse("5-", 1, 48, "'5-'");
    refuse("1-10x0", 1, 48, "1-10x0");
    refuse("10-1", 1, 48, "backwards");
    refuse("1-49", 1, 48, "outside the shot's 1-48");
    refuse("0", 1, 48, "outside");
    refuse("1,", 1, 48, "'1,'");
    refuse("1;2", 1, 48, "'1;2'");
    refuse("99999999999999", 1, 48, "99999999999999");
    /* 4. negative frames are refused as such, and a frame or range is printed as one
     * (`--frames -1` was "frames -1--1 outside the shot's 0-10") */
    refuse_exactly("-1", 0, 10,
                   "--frames '-1': frame -1: frame numbers start at 0 (the shot's frames are 0-10)");
    refuse_exactly("-3-2", 0, 10,
                   "--frames '-3-2': frame -3: frame numbers start at 0 (the shot's frames are "
                   "0-10)");
    refuse_exactly("12", 0, 10, "--frames '12': frame 12 is outside the shot's 0-10");
    refuse_exactly("5-12", 0, 10, "--frames '5-12': frames 5-12 reach outside the shot's 0-10");
    refuse_exactly("3,12x2", 0, 10, "--frames '3,12x2': cannot read '12x2' (expected N, A-B or "
                                   "A-BxSTEP, comma separated)");
    return check_done("cli_frame_lists");
}
