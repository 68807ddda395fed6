/* export_vdb.h — the C face of Powder's one C++ translation unit (export_vdb.cpp):
 * OpenVDB has no C API. Built only with -DPOWDER_VDB=ON and libopenvdb-dev, which
 * defines POWDER_HAVE_VDB for everything that links pw_pipeline; without it these
 * functions do not exist and `powder export vdb` says so.
 *
 * Grid convention: index-to-world is a uniform scale by the voxel size h and nothing
 * else, so voxel (i, j, k) (whose centre is integer index space in OpenVDB) has its
 * centre at world (i h, j h, k h) [m], exactly where Powder's density node (i, j, k)
 * sits. No C++ exception crosses this interface. */
#ifndef PW_EXPORT_VDB_H
#define PW_EXPORT_VDB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* inside the block: pw_error.h is a C header without its own extern "C" */
#include "pw_error.h"

/* Writes one openvdb::FloatGrid named "density" (class fog volume, background 0) to
 * path atomically: n active voxels with integer indices ijk (3n) and values value (n)
 * [kg/m^3], transform as above with voxel size h [m]. scene may be NULL. Grid metadata:
 * "powder:scene" (string), "powder:frame" (int), "powder:time" [s] (double),
 * "powder:units" = "kg/m^3" (string). Duplicate or non-finite voxels are PW_EINVAL.
 * Thread-safe on distinct paths. */
pw_status pw_export_vdb(const char *path, double h, size_t n, const int32_t *ijk,
                        const float *value, const char *scene, int frame, double time,
                        pw_error *err);

/* One grid of several over the same voxels (pw_export_vdb_grids): its name, n values,
 * "powder:units" and class (1: fog volume, 0: unknown). */
typedef struct {
    const char *name;
    const float *value;
    const char *units;
    int fog_volume;
} pw_vdb_out_grid;

/* Writes n_grids float grids as pw_export_vdb does its one, in that order, all with the
 * same active voxels ijk and metadata; pw_export_vdb is this with one grid "density"
 * ("kg/m^3", fog volume). A non-finite value is PW_EINVAL naming the grid. */
pw_status pw_export_vdb_grids(const char *path, double h, size_t n, const int32_t *ijk,
                              const pw_vdb_out_grid *grids, int n_grids, const char *scene,
                              int frame, double time, pw_error *err);

/* A grid read back (tests and tools): its active voxels in the tree's order. */
typedef struct {
    double voxel_size[3];        /* [m] per axis                                  */
    double index_to_world[16];   /* row-major 4x4, row-vector convention p' = p M */
    int linear;                  /* 1 when the map is affine                      */
    int fog_volume;              /* 1 when the grid class is fog volume           */
    float background;
    size_t n;
    int32_t *ijk;                /* 3n                                            */
    float *value;                /* n                                             */
    int frame;                   /* "powder:frame", -1 when absent                */
    char scene[128];             /* "powder:scene", "" when absent                */
    char units[32];              /* "powder:units", "" when absent                */
} pw_vdb_grid;

/* Reads the float grid called name from path into *out. PW_EFORMAT when the file is
 * not a VDB, has no such grid or the grid is not float; errors name the file. Free
 * with pw_vdb_grid_free. */
pw_status pw_vdb_read(const char *path, const char *name, pw_vdb_grid *out, pw_error *err);

void pw_vdb_grid_free(pw_vdb_grid *g); /* NULL is a no-op */

#ifdef __cplusplus
}
#endif

#endif
