/* export.h — exchange formats for artists' tools (Houdini, Blender, Nuke): each
 * frame's particles as binary PLY, each frame's stage-2 density as OpenVDB (the
 * OpenVDB writer itself is export_vdb.h, built only with -DPOWDER_VDB=ON).
 *
 * Conventions shared by every export: world space of the scene, Y up, metres, seconds,
 * kilograms; a density node (i, j, k) of spacing h sits at world (i h, j h, k h).
 *
 * PLY layout (binary_little_endian 1.0, one element "vertex", 8 float32 properties
 * per particle, 32 bytes, in this order):
 *   x y z      position [m]
 *   vx vy vz   velocity [m/s]
 *   density    rho_p = m_p / (V0_p J_p) [kg/m^3], the particle's current density, with
 *              J_p = det F_p^total = det(Fe_p) Jp_p (the cache's "Fe" and "Jp"; V0_p is
 *              the initial volume the solver assigned at its first step). Before that
 *              step (V0 = 0, e.g. the first frame) it is rho_p^0 = sum_i rho_i w_ip with
 *              rho_i = sum_q m_q w_iq / h^3 on the nodes i h: the value the solver is
 *              about to give V0 = m_p / rho_p^0 (the paper's step 2)
 *   jp         Jp = det Fp [-], the plastic volume ratio (< 1: compacted snow)
 * and, only when the cache holds it (snow of an optional plastic law, seed.h), a ninth
 * property last (36 bytes a vertex):
 *   durability [-] 1 intact, falls toward 0 as plastic stretch breaks the snow's bonds
 *              (its cohesion scales with it); never rises
 * Comment lines carry the Powder version, scene, frame, time and units. */
#ifndef PW_EXPORT_H
#define PW_EXPORT_H

#include <stddef.h>

#include "pw_cache.h"
#include "pw_error.h"
#include "pw_render.h"

/* Bytes per PLY vertex as written: 8 float32 (and 4 more with durability). */
#define PW_PLY_VERTEX_BYTES 32
/* A header longer than this is refused by the reader (ours are ~400 bytes). */
#define PW_PLY_MAX_HEADER 65536

/* Particles as exported, float32 as stored in the file. */
typedef struct {
    size_t count;
    float *x;        /* 3 per particle [m]                     */
    float *v;        /* 3 per particle [m/s]                   */
    float *density;  /* 1 per particle [kg/m^3] (see above)    */
    float *jp;       /* 1 per particle [-]                     */
    float *durability; /* 1 per particle [-], or NULL: none    */
} pw_ply_particles;

/* What a frame's export records about where it came from. */
typedef struct {
    const char *scene;  /* scene name, may be NULL */
    int frame;
    double time;        /* [s] simulation time of the frame */
} pw_export_meta;

/* The cache attributes pw_ply_particles_from_cache needs, for pw_cache_read. */
#define PW_PLY_N_CACHE_ATTRS 6
extern const char *const pw_ply_cache_attrs[PW_PLY_N_CACHE_ATTRS];

/* Converts a cache frame (holding at least pw_ply_cache_attrs, float64) into *out
 * (allocated here; free with pw_ply_particles_free), with durability when the frame
 * has that attribute. `name` names the frame in errors.
 * PW_EFORMAT when an attribute is missing or of the wrong type; PW_ENUMERIC when a
 * value is not finite, V0 J_p <= 0, or a value does not fit a float32, naming the
 * particle. */
pw_status pw_ply_particles_from_cache(const char *name, const pw_cache_frame *cf,
                                      pw_ply_particles *out, pw_error *err);

/* Writes p to path atomically (pw_file.h) in the layout above. meta may be NULL.
 * Refuses non-finite values (PW_ENUMERIC). */
pw_status pw_ply_write(const char *path, const pw_ply_particles *p, const pw_export_meta *meta,
                       pw_error *err);

/* Reads a PLY file strictly: binary_little_endian 1.0, one "vertex" element whose
 * properties are all float/float32 and include x y z vx vy vz density jp (durability
 * is read when present, into out->durability, else NULL; others are skipped), the
 * file size exactly header + count * stride, no NaN or Inf. Anything else is
 * PW_EFORMAT (PW_EUNSUPPORTED for ascii, big-endian or list properties), with
 * a message naming the file and the header line or vertex. Free with
 * pw_ply_particles_free. */
pw_status pw_ply_read(const char *path, pw_ply_particles *out, pw_error *err);

/* The same on size bytes at data; `name` stands for the file in messages. */
pw_status pw_ply_read_memory(const char *name, const void *data, size_t size,
                             pw_ply_particles *out, pw_error *err);

/* Frees the arrays and zeroes *p; NULL is a no-op. */
void pw_ply_particles_free(pw_ply_particles *p);

/* One frame end to end: reads the cache at cache_path and writes its particles to
 * ply_path. *count receives the particle count (may be NULL). */
pw_status pw_export_ply_frame(const char *cache_path, const char *ply_path,
                              const pw_export_meta *meta, size_t *count, pw_error *err);

/* Writes the density grid d as an OpenVDB FloatGrid named "density" (fog volume,
 * values [kg/m^3], index-to-world = uniform scale by the node spacing so that voxel
 * (i, j, k)'s centre is the node at (i h, j h, k h)); only nonzero nodes become active
 * voxels. *n_voxels receives their number (may be NULL). PW_EUNSUPPORTED in a build
 * without OpenVDB. */
pw_status pw_export_vdb_density(const char *vdb_path, const pw_density *d,
                                const pw_export_meta *meta, size_t *n_voxels, pw_error *err);

/* The same, and with dm (the same raster, of the same particles, with masses m_p times
 * their durability; NULL: none) a second FloatGrid "durability" [-] over the same active
 * voxels: the particles' mass-weighted mean durability there, sum_p m_p d_p w_ip /
 * sum_p m_p w_ip with the raster's own weights w_ip, in [0, 1]; class unknown (not a
 * fog volume), "powder:units" "-". */
pw_status pw_export_vdb_durability(const char *vdb_path, const pw_density *d,
                                   const pw_density *dm, const pw_export_meta *meta,
                                   size_t *n_voxels, pw_error *err);

/* The command `powder export vdb|ply scene.json --frames SPEC [--output DIR]`:
 * argv[1] is "export". Prints its messages; returns the exit status (0 success, 1 the
 * work failed, 2 bad usage or bad input). */
int pw_main_export(int argc, char **argv);

#endif
