// view_ocio.cpp — the view transform's OpenColorIO calls behind a C interface; see
// view_ocio.h and view.h. OpenColorIO has no C API. Every exception is caught here and
// becomes a pw_status with a message; nothing is printed.
#include "view_ocio.h"

#include <OpenColorIO/OpenColorIO.h>

#include <cctype>
#include <cstdio>
#include <exception>
#include <new>
#include <sstream>
#include <string>

namespace OCIO = OCIO_NAMESPACE;

struct pw_ocio {
    OCIO::ConstCPUProcessorRcPtr cpu;
};

namespace {

// Powder's built-in config: only OCIO's built-in transforms (no LUT files), so it needs
// nothing on disk. Reference space ACES2065-1, display reference CIE XYZ (D65), as in
// the ACES studio configs, whose names it uses so that a --view given here means the
// same there. Version 2.1: the ACES 1.3 gamut compression builtin needs it.
const char *const kBuiltinConfig = R"(ocio_profile_version: 2.1

name: powder-builtin
description: Powder's built-in view transforms for previews of scene-linear Rec.709 EXRs
environment: {}
search_path: ""
strictparsing: true
luma: [0.2126, 0.7152, 0.0722]

roles:
  aces_interchange: ACES2065-1
  cie_xyz_d65_interchange: CIE-XYZ-D65
  color_timing: Linear Rec.709 (sRGB)
  compositing_log: Linear Rec.709 (sRGB)
  data: Raw
  default: Linear Rec.709 (sRGB)
  reference: ACES2065-1
  rendering: Linear Rec.709 (sRGB)
  scene_linear: Linear Rec.709 (sRGB)

file_rules:
  - !<Rule> {name: Default, colorspace: default}

displays:
  sRGB - Display:
    - !<View> {name: ACES 1.0 - SDR Video, view_transform: ACES 1.0 - SDR Video, display_colorspace: sRGB - Display}
    - !<View> {name: Un-tone-mapped, view_transform: Un-tone-mapped, display_colorspace: sRGB - Display}

active_displays: []
active_views: []

looks:
  - !<Look>
    name: ACES 1.3 Reference Gamut Compression
    process_space: ACES2065-1
    transform: !<BuiltinTransform> {style: ACES-LMT - ACES 1.3 Reference Gamut Compression}

default_view_transform: Un-tone-mapped

view_transforms:
  - !<ViewTransform>
    name: ACES 1.0 - SDR Video
    description: ACES 1.0 output transform (RRT and ODT) for SDR video; rolls highlights off to white
    from_scene_reference: !<BuiltinTransform> {style: ACES-OUTPUT - ACES2065-1_to_CIE-XYZ-D65 - SDR-VIDEO_1.0}
  - !<ViewTransform>
    name: Un-tone-mapped
    description: no tone mapping; the display clips each channel at 1
    from_scene_reference: !<BuiltinTransform> {style: UTILITY - ACES-AP0_to_CIE-XYZ-D65_BFD}

display_colorspaces:
  - !<ColorSpace>
    name: CIE-XYZ-D65
    family: Display
    encoding: display-linear
    description: the display reference space
  - !<ColorSpace>
    name: sRGB - Display
    family: Display
    encoding: sdr-video
    description: sRGB primaries and piecewise curve (IEC 61966-2-1)
    from_display_reference: !<BuiltinTransform> {style: DISPLAY - CIE-XYZ-D65_to_sRGB}

colorspaces:
  - !<ColorSpace>
    name: ACES2065-1
    family: ACES
    encoding: scene-linear
    description: ACES AP0 primaries, the reference space
  - !<ColorSpace>
    name: Linear Rec.709 (sRGB)
    family: Utility
    encoding: scene-linear
    description: Rec.709 primaries, D65 white, linear; what Powder renders
    to_scene_reference: !<GroupTransform>
      children:
        - !<BuiltinTransform> {style: UTILITY - ACES-AP1_to_LINEAR-REC709_BFD, direction: inverse}
        - !<BuiltinTransform> {style: ACEScg_to_ACES2065-1}
  - !<ColorSpace>
    name: Raw
    family: Utility
    isdata: true
    description: data, never converted
)";

// Linear Rec.709 -> ACES2065-1 with OCIO's built-ins (Rec.709 -> AP1 -> AP0, Bradford
// adaptation D65 -> ACES white), as the built-in config's "Linear Rec.709 (sRGB)".
OCIO::TransformRcPtr rec709_to_aces2065_1()
{
    OCIO::GroupTransformRcPtr g = OCIO::GroupTransform::Create();
    OCIO::BuiltinTransformRcPtr to_ap1 = OCIO::BuiltinTransform::Create();
    to_ap1->setStyle("UTILITY - ACES-AP1_to_LINEAR-REC709_BFD");
    to_ap1->setDirection(OCIO::TRANSFORM_DIR_INVERSE);
    OCIO::BuiltinTransformRcPtr to_ap0 = OCIO::BuiltinTransform::Create();
    to_ap0->setStyle("ACEScg_to_ACES2065-1");
    g->appendTransform(to_ap1);
    g->appendTransform(to_ap0);
    return g;
}

bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (std::tolower((unsigned char)*a) != std::tolower((unsigned char)*b)) return false;
    return *a == *b;
}

// "a, b, c" of the display's views.
std::string view_list(const OCIO::ConstConfigRcPtr &cfg, const char *display)
{
    std::string s;
    for (int k = 0; k < cfg->getNumViews(display); k++) {
        if (k) s += ", ";
        s += cfg->getView(display, k);
    }
    return s;
}

// Maps what OpenColorIO throws to a status and "<config>: <what> (<library text>)".
pw_status fail_from_exception(pw_error *err, const char *where, const char *what,
                              pw_status otherwise)
{
    try {
        throw;
    } catch (const std::bad_alloc &) {
        return pw_fail(err, PW_ENOMEM, "%s: %s (out of memory)", where, what);
    } catch (const std::exception &e) {
        return pw_fail(err, otherwise, "%s: %s (%s)", where, what, e.what());
    } catch (...) {
        return pw_fail(err, otherwise, "%s: %s (unknown exception)", where, what);
    }
}

} // namespace

extern "C" const char *pw_ocio_builtin_config(void) { return kBuiltinConfig; }

extern "C" pw_ocio *pw_ocio_create(const char *config_path, const char *view, const char *looks,
                                   char *describe, size_t cap, pw_error *err)
{
    const char *where = config_path ? config_path : "built-in OpenColorIO config";
    OCIO::ConstConfigRcPtr cfg;
    // read the config
    try {
        if (config_path) {
            cfg = OCIO::Config::CreateFromFile(config_path);
        } else {
            std::istringstream text(kBuiltinConfig);
            cfg = OCIO::Config::CreateFromStream(text);
        }
    } catch (...) {
        fail_from_exception(err, where, "OpenColorIO cannot read the config", PW_EFORMAT);
        return nullptr;
    }

    try {
        // the display and the view (names compared as OpenColorIO does, ignoring case)
        const char *display = cfg->getDefaultDisplay();
        if (!display || !*display) {
            pw_fail(err, PW_EFORMAT, "%s: the config has no display", where);
            return nullptr;
        }
        const char *chosen = nullptr;
        if (view && *view) {
            for (int k = 0; k < cfg->getNumViews(display) && !chosen; k++)
                if (same_name(cfg->getView(display, k), view)) chosen = cfg->getView(display, k);
            if (!chosen) {
                pw_fail(err, PW_EINVAL, "%s: no view '%s' of display '%s' (views: %s)", where,
                        view, display, view_list(cfg, display).c_str());
                return nullptr;
            }
        } else {
            chosen = cfg->getDefaultView(display);
        }

        // where the EXR's linear Rec.709 enters the config
        bool interchange = cfg->hasRole(OCIO::ROLE_INTERCHANGE_SCENE);
        OCIO::ConstColorSpaceRcPtr src = cfg->getColorSpace(
            interchange ? OCIO::ROLE_INTERCHANGE_SCENE : OCIO::ROLE_SCENE_LINEAR);
        if (!src) {
            pw_fail(err, PW_EFORMAT, "%s: the config has neither of the roles %s and %s", where,
                    OCIO::ROLE_INTERCHANGE_SCENE, OCIO::ROLE_SCENE_LINEAR);
            return nullptr;
        }

        // the viewing pipeline, with the looks replacing the view's own when given
        OCIO::DisplayViewTransformRcPtr dvt = OCIO::DisplayViewTransform::Create();
        dvt->setSrc(src->getName());
        dvt->setDisplay(display);
        dvt->setView(chosen);
        OCIO::LegacyViewingPipelineRcPtr pipeline = OCIO::LegacyViewingPipeline::Create();
        pipeline->setDisplayViewTransform(dvt);
        if (looks && *looks) {
            pipeline->setLooksOverrideEnabled(true);
            pipeline->setLooksOverride(looks);
        }
        OCIO::ConstProcessorRcPtr proc;
        try {
            proc = pipeline->getProcessor(cfg);
        } catch (const OCIO::Exception &e) {
            if (looks && *looks) {
                pw_fail(err, PW_EINVAL, "%s: look '%s' with view '%s' (%s)", where, looks,
                        chosen, e.what());
                return nullptr;
            }
            throw;
        }
        if (interchange) {
            OCIO::GroupTransformRcPtr g = OCIO::GroupTransform::Create();
            g->appendTransform(rec709_to_aces2065_1());
            g->appendTransform(proc->createGroupTransform());
            proc = cfg->getProcessor(g);
        }

        pw_ocio *o = new pw_ocio;
        o->cpu = proc->getDefaultCPUProcessor();
        if (describe && cap) {
            std::string looks_note = looks && *looks ? std::string(", looks '") + looks + "'" : "";
            std::snprintf(describe, cap, "view '%s' of display '%s'%s, %s%s; the EXR enters %s",
                          chosen, display, looks_note.c_str(),
                          config_path ? "OpenColorIO config " : "Powder's built-in ",
                          config_path ? config_path : "OpenColorIO config",
                          interchange ? "as linear Rec.709, through role aces_interchange"
                                      : "as role scene_linear (taken to be linear Rec.709)");
        }
        return o;
    } catch (...) {
        fail_from_exception(err, where, "OpenColorIO cannot make the view transform",
                            PW_EFORMAT);
        return nullptr;
    }
}

extern "C" void pw_ocio_destroy(pw_ocio *o) { delete o; }

extern "C" pw_status pw_ocio_apply(const pw_ocio *o, float *rgba, size_t n, pw_error *err)
{
    try {
        OCIO::PackedImageDesc desc(rgba, (long)n, 1, 4);
        o->cpu->apply(desc);
        return PW_OK;
    } catch (...) {
        return fail_from_exception(err, "view transform", "OpenColorIO failed to apply it",
                                   PW_ENUMERIC);
    }
}
