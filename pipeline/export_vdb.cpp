// export_vdb.cpp — OpenVDB density grids behind a C interface; see export_vdb.h.
// The only C++ in Powder, because OpenVDB has no C API. Every exception is caught here
// and becomes a pw_status with a message naming the file; nothing is printed.
#include "export_vdb.h"

#include <openvdb/io/File.h>
#include <openvdb/openvdb.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

extern "C" {
#include "pw_file.h"
}

namespace {

// Maps what OpenVDB throws to a status and a message "<path>: <what> (<library text>)".
// io_status is the status of an openvdb::IoError: the library throws it both when the
// operating system refuses and when the bytes are not a VDB file.
pw_status fail_from_exception(pw_error *err, const char *path, const char *what,
                              pw_status io_status)
{
    try {
        throw;
    } catch (const std::bad_alloc &) {
        return pw_fail(err, PW_ENOMEM, "%s: %s (out of memory)", path, what);
    } catch (const openvdb::IoError &e) {
        return pw_fail(err, io_status, "%s: %s (%s)", path, what, e.what());
    } catch (const std::exception &e) {
        return pw_fail(err, PW_EFORMAT, "%s: %s (%s)", path, what, e.what());
    } catch (...) {
        return pw_fail(err, PW_EFORMAT, "%s: %s (unknown exception)", path, what);
    }
}

openvdb::FloatGrid::Ptr build_grid(double h, size_t n, const int32_t *ijk,
                                   const pw_vdb_out_grid &g, const char *scene, int frame,
                                   double time, const char *path, pw_error *err)
{
    const float *value = g.value;
    openvdb::FloatGrid::Ptr grid = openvdb::FloatGrid::create(0.0f);
    grid->setName(g.name);
    if (g.fog_volume) grid->setGridClass(openvdb::GRID_FOG_VOLUME);
    // voxel centres at integer index coordinates land on the nodes i h
    grid->setTransform(openvdb::math::Transform::createLinearTransform(h));
    grid->insertMeta("powder:scene", openvdb::StringMetadata(scene ? scene : ""));
    grid->insertMeta("powder:frame", openvdb::Int32Metadata(frame));
    grid->insertMeta("powder:time", openvdb::DoubleMetadata(time));
    grid->insertMeta("powder:units", openvdb::StringMetadata(g.units));
    openvdb::FloatGrid::Accessor acc = grid->getAccessor();
    for (size_t p = 0; p < n; p++) {
        const openvdb::Coord c(ijk[3 * p], ijk[3 * p + 1], ijk[3 * p + 2]);
        if (!std::isfinite(value[p])) {
            pw_fail(err, PW_EINVAL, "%s: grid '%s': voxel %zu (%d, %d, %d): value is not finite "
                    "(%g)", path, g.name, p, c.x(), c.y(), c.z(), (double)value[p]);
            return nullptr;
        }
        if (acc.isValueOn(c)) {
            pw_fail(err, PW_EINVAL, "%s: voxel %zu (%d, %d, %d) given twice", path, p, c.x(),
                    c.y(), c.z());
            return nullptr;
        }
        acc.setValue(c, value[p]);
    }
    return grid;
}

} // namespace

extern "C" pw_status pw_export_vdb(const char *path, double h, size_t n, const int32_t *ijk,
                                   const float *value, const char *scene, int frame,
                                   double time, pw_error *err)
{
    const pw_vdb_out_grid density = {"density", value, "kg/m^3", 1};
    return pw_export_vdb_grids(path, h, n, ijk, &density, 1, scene, frame, time, err);
}

extern "C" pw_status pw_export_vdb_grids(const char *path, double h, size_t n,
                                         const int32_t *ijk, const pw_vdb_out_grid *out,
                                         int n_grids, const char *scene, int frame,
                                         double time, pw_error *err)
{
    if (!(h > 0) || !std::isfinite(h))
        return pw_fail(err, PW_EINVAL, "%s: voxel size must be > 0 (%g)", path, h);
    if (n_grids < 1 || !out)
        return pw_fail(err, PW_EINVAL, "%s: no grid to write", path);
    for (int k = 0; k < n_grids; k++)
        if (n > 0 && (!ijk || !out[k].value))
            return pw_fail(err, PW_EINVAL, "%s: NULL voxel arrays (%zu voxels)", path, n);
    char tmp[4096 + 32];
    pw_atomic_tmp_name(path, tmp, sizeof tmp);
    try {
        openvdb::initialize(); // idempotent and thread-safe
        openvdb::GridPtrVec grids;
        for (int k = 0; k < n_grids; k++) {
            openvdb::FloatGrid::Ptr grid =
                build_grid(h, n, ijk, out[k], scene, frame, time, path, err);
            if (!grid) return err ? err->code : PW_EINVAL;
            grids.push_back(grid);
        }
        openvdb::io::File file(tmp);
        file.write(grids);
        file.close();
    } catch (...) {
        std::remove(tmp);
        return fail_from_exception(err, path, "cannot write the VDB file", PW_EIO);
    }
    return pw_atomic_rename(tmp, path, err);
}

extern "C" pw_status pw_vdb_read(const char *path, const char *name, pw_vdb_grid *out,
                                 pw_error *err)
{
    std::memset(out, 0, sizeof *out);
    out->frame = -1;
    // an unreadable file is the system's refusal; after that, every failure is the bytes'
    std::FILE *probe = std::fopen(path, "rb");
    if (!probe)
        return pw_fail(err, PW_EIO, "%s: cannot open (%s)", path, std::strerror(errno));
    std::fclose(probe);
    try {
        openvdb::initialize();
        openvdb::io::File file(path);
        file.open(false); // no delayed loading: the file may be replaced afterwards
        if (!file.hasGrid(name)) {
            file.close();
            return pw_fail(err, PW_EFORMAT, "%s: no grid named '%s'", path, name);
        }
        openvdb::GridBase::Ptr base = file.readGrid(name);
        file.close();
        openvdb::FloatGrid::Ptr grid = openvdb::gridPtrCast<openvdb::FloatGrid>(base);
        if (!grid)
            return pw_fail(err, PW_EFORMAT, "%s: grid '%s' is a %s, not a float grid", path,
                           name, base->type().c_str());

        const openvdb::math::Transform &xf = grid->transform();
        const openvdb::Vec3d vs = xf.voxelSize();
        for (int k = 0; k < 3; k++) out->voxel_size[k] = vs[k];
        out->linear = xf.isLinear() ? 1 : 0;
        if (out->linear) {
            const openvdb::Mat4d m = xf.baseMap()->getAffineMap()->getMat4();
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++) out->index_to_world[4 * r + c] = m(r, c);
        }
        out->fog_volume = grid->getGridClass() == openvdb::GRID_FOG_VOLUME;
        out->background = grid->background();
        if (auto f = grid->getMetadata<openvdb::Int32Metadata>("powder:frame"))
            out->frame = f->value();
        if (auto s = grid->getMetadata<openvdb::StringMetadata>("powder:scene"))
            std::snprintf(out->scene, sizeof out->scene, "%s", s->value().c_str());
        if (auto u = grid->getMetadata<openvdb::StringMetadata>("powder:units"))
            std::snprintf(out->units, sizeof out->units, "%s", u->value().c_str());

        const openvdb::Index64 nv = grid->activeVoxelCount();
        const size_t n = static_cast<size_t>(nv);
        out->ijk = static_cast<int32_t *>(std::malloc(3 * (n ? n : 1) * sizeof(int32_t)));
        out->value = static_cast<float *>(std::malloc((n ? n : 1) * sizeof(float)));
        if (!out->ijk || !out->value) {
            pw_vdb_grid_free(out);
            return pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu voxels)", path, n);
        }
        size_t p = 0;
        for (openvdb::FloatGrid::ValueOnCIter it = grid->cbeginValueOn(); it; ++it) {
            if (!it.isVoxelValue() || p == n) {
                pw_vdb_grid_free(out);
                return pw_fail(err, PW_EUNSUPPORTED, "%s: grid '%s' has active tiles (only "
                               "voxels are read)", path, name);
            }
            const openvdb::Coord c = it.getCoord();
            out->ijk[3 * p] = c.x(), out->ijk[3 * p + 1] = c.y(), out->ijk[3 * p + 2] = c.z();
            out->value[p++] = *it;
        }
        out->n = p;
    } catch (...) {
        pw_vdb_grid_free(out);
        return fail_from_exception(err, path, "cannot read the VDB file", PW_EFORMAT);
    }
    return PW_OK;
}

extern "C" void pw_vdb_grid_free(pw_vdb_grid *g)
{
    if (!g) return;
    std::free(g->ijk);
    std::free(g->value);
    std::memset(g, 0, sizeof *g);
}
