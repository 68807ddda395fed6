/* exr_channels.h — how many of the named channels an EXR holds with a given pixel type,
 * read with OpenEXRCore (for the tests of the layers the renderer writes beside RGBA). */
#ifndef PW_TEST_EXR_CHANNELS_H
#define PW_TEST_EXR_CHANNELS_H

#include <string.h>

#include <openexr.h>

/* The channels of part 0 of path named in names (NULL-terminated) whose pixel type is
 * type; 0 when the file cannot be read. */
static inline int exr_channels_count(const char *path, const char *const *names,
                                     exr_pixel_type_t type)
{
    exr_context_t ctx = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    const exr_attr_chlist_t *cl = NULL;
    int found = 0;
    if (exr_start_read(&ctx, path, &init) == EXR_ERR_SUCCESS &&
        exr_get_channels(ctx, 0, &cl) == EXR_ERR_SUCCESS && cl)
        for (int k = 0; k < cl->num_channels; k++)
            for (const char *const *n = names; *n; n++)
                found += !strcmp(cl->entries[k].name.str, *n) &&
                         cl->entries[k].pixel_type == type;
    exr_finish(&ctx);
    return found;
}

static const char *const exr_noisy_channels[] = {"noisy.R", "noisy.G", "noisy.B", "noisy.A",
                                                 NULL};

#endif
