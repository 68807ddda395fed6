"""The command line shared by the scene writers (tools/*_scene.py): a preset name, then
key=value pairs that replace its parameters; the scene goes to standard output as JSON."""
import json
import sys


def write_scene(usage, presets, defaults, build, argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in presets:
        sys.exit(usage)
    p = dict(defaults)
    p.update(presets[argv[0]])
    for kv in argv[1:]:
        k, sep, v = kv.partition("=")
        if not sep or k not in p:
            sys.exit("unknown parameter %s (known: %s)" % (kv, ", ".join(sorted(p))))
        p[k] = v if isinstance(p[k], str) else type(p[k])(v)
    json.dump(build(p), sys.stdout, indent=1)
    sys.stdout.write("\n")
