/* pw_cache.h — frame cache files, the contract between the simulator and the renderer.
 *
 * One file holds one frame: a fixed header (particle count, time, grid spacing, frame
 * and step numbers, a hash of the simulation settings), up to PW_CACHE_MAX_GLOBALS
 * named solver scalars, and a table of named typed per-particle attributes. Each
 * attribute is byte-shuffled (all byte-0s of its values, then all byte-1s, ...) and
 * compressed as one zstd frame. CRC-32 checksums (IEEE 802.3, the polynomial of zlib's
 * crc32) cover the header and table and each compressed attribute; each zstd frame
 * also carries zstd's own content checksum. Files are written atomically (pw_file.h).
 *
 * Layout, all integers little-endian, floats IEEE-754 binary64/32 little-endian:
 *   header          96 bytes in format 1.0 (field offsets in cache_internal.h)
 *   globals         n_globals entries of PW_CACHE_GLOBAL_SIZE bytes: name[32], f64
 *   attribute table n_attrs entries of PW_CACHE_ENTRY_SIZE bytes
 *   meta checksum   u32 CRC-32 of every byte before it
 *   data            the compressed attributes, back to back, in table order
 * A reader refuses a newer major version; a newer minor version may lengthen the
 * header, global and table entries (their sizes are in the header) and old readers
 * skip the extra bytes. None of these functions print; all are thread-safe on
 * distinct frames. */
#ifndef PW_CACHE_H
#define PW_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pw_error.h"

#define PW_CACHE_VERSION_MAJOR 1
#define PW_CACHE_VERSION_MINOR 0
#define PW_CACHE_MAX_GLOBALS 32
/* A frame with more attributes than this is refused on read and write: the solver
 * state is about a dozen arrays, so more means a damaged count. */
#define PW_CACHE_MAX_ATTRS 256
/* Particle counts above 2^32 are refused (indices elsewhere are 32-bit). */
#define PW_CACHE_MAX_COUNT ((uint64_t)1 << 32)

typedef enum { PW_F32 = 1, PW_F64 = 2, PW_U32 = 3 } pw_scalar_type;

/* The global that marks a slim render cache (written by pw_sim_save_slim): float32
 * positions, velocities, mass, J_P, xi, density and the ids, enough to render, measure
 * and export a frame but not to resume from it. Absent (0) in full checkpoints. */
#define PW_CACHE_SLIM "slim"

/* The global holding the mass [kg] snow sources have emitted by the frame's time (only
 * in frames of scenes with sources; sim/emit.h). */
#define PW_CACHE_MASS_EMITTED "mass_emitted"

typedef struct {
    char name[32];         /* NUL-terminated, printable ASCII, unique in a frame */
    pw_scalar_type type;
    uint32_t components;   /* 1, 3 or 9 (mat3 row-major) */
    void *data;            /* count*components values; owned by the frame when read */
} pw_cache_attr;

/* Small named solver scalars needed for resume (e.g. the last substep). */
typedef struct {
    char name[32];
    double value;
} pw_cache_global;

typedef struct {
    uint64_t count;    /* particles */
    double time;       /* [s] */
    double h;          /* grid spacing [m] */
    int64_t frame;
    uint64_t step;     /* substeps taken since the start */
    uint64_t sim_hash; /* hash of the settings that produced the frame */
    int n_globals;
    pw_cache_global globals[PW_CACHE_MAX_GLOBALS];
    int n_attrs;
    pw_cache_attr *attrs;
} pw_cache_frame;

/* Bytes per value of a scalar type (4 or 8), 0 for an unknown type. */
size_t pw_scalar_size(pw_scalar_type type);

/* Writes f to path atomically with zstd level 3. Refuses (PW_EINVAL) a bad frame:
 * unknown type, components not 1/3/9, empty/unterminated/duplicate names, too many
 * attributes, NULL data with count > 0; refuses (PW_ENUMERIC) a NaN or Inf in a float
 * attribute, a global, time or h, naming the attribute and the particle index.
 * Output bytes depend only on f (deterministic). The frame is not modified. */
pw_status pw_cache_write(const char *path, const pw_cache_frame *f, pw_error *err);

/* Same, with a zstd compression level (1..19; 0 means the default 3). */
pw_status pw_cache_write_level(const char *path, const pw_cache_frame *f, int level,
                               pw_error *err);

/* Reads the named attributes (all of them when n_names == 0) into *out, in the order
 * requested (file order for all). A requested attribute that the file lacks is an
 * error (PW_EFORMAT); attributes not requested are skipped without decompressing.
 * Damaged files give PW_EFORMAT with a message naming the file, the byte offset or
 * attribute, and the problem. On success the caller frees *out with
 * pw_cache_frame_free; on failure *out is left empty. */
pw_status pw_cache_read(const char *path, const char *const *names, int n_names,
                        pw_cache_frame *out, pw_error *err);

/* Same, with float32 attributes widened to float64 (exactly), so a reader that works in
 * double takes the slim render caches (PW_CACHE_SLIM) and the full checkpoints alike. */
pw_status pw_cache_read_f64(const char *path, const char *const *names, int n_names,
                            pw_cache_frame *out, pw_error *err);

/* Same as pw_cache_read, from a memory image of a file; `name` is used in messages
 * (fuzzing, tests). */
pw_status pw_cache_read_memory(const char *name, const void *data, size_t size,
                               const char *const *names, int n_names, pw_cache_frame *out,
                               pw_error *err);

/* Frees what pw_cache_read allocated and zeroes *f. Only for frames from a reader:
 * a frame the caller assembled owns nothing here. NULL is a no-op. */
void pw_cache_frame_free(pw_cache_frame *f);

/* The attribute called name, or NULL. */
const pw_cache_attr *pw_cache_find(const pw_cache_frame *f, const char *name);

/* The value of the global called name, or fallback when there is none. */
double pw_cache_global_get(const pw_cache_frame *f, const char *name, double fallback);

/* Adds or replaces a global (for writers); PW_EINVAL when the name does not fit or
 * the table is full. */
pw_status pw_cache_global_set(pw_cache_frame *f, const char *name, double value,
                              pw_error *err);

typedef struct {
    char name[32];
    pw_scalar_type type;
    uint32_t components;
    uint32_t flags;        /* bit 0: byte-shuffled */
    uint64_t offset;       /* of the compressed bytes in the file [B] */
    uint64_t raw_bytes;    /* count * components * pw_scalar_size(type) */
    uint64_t compressed_bytes;
} pw_cache_attr_info;

typedef struct {
    unsigned version_major, version_minor;
    uint64_t file_size;    /* [B] */
    uint64_t count;
    double time;           /* [s] */
    double h;              /* [m] */
    int64_t frame;
    uint64_t step;
    uint64_t sim_hash;
    int n_globals;
    pw_cache_global globals[PW_CACHE_MAX_GLOBALS];
    int n_attrs;
    pw_cache_attr_info attrs[PW_CACHE_MAX_ATTRS];
} pw_cache_info;

/* For `powder info`: reads the header and table, verifies the meta checksum and the
 * checksum of every compressed attribute and its zstd frame header, without
 * decompressing anything. Same errors as pw_cache_read. */
pw_status pw_cache_stat(const char *path, pw_cache_info *out, pw_error *err);
pw_status pw_cache_stat_memory(const char *name, const void *data, size_t size,
                               pw_cache_info *out, pw_error *err);

/* The header and attribute table only (their checksum verified), without reading the
 * data: what a file holds, at the cost of its first few hundred bytes. */
pw_status pw_cache_table(const char *path, pw_cache_info *out, pw_error *err);

/* The value of global name in info, or fallback; the attribute called name, or NULL. */
double pw_cache_info_global(const pw_cache_info *info, const char *name, double fallback);
const pw_cache_attr_info *pw_cache_info_attr(const pw_cache_info *info, const char *name);

#endif
