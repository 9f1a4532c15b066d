"""Starts the kebab-lsp server bundled in a platform-specific VSIX.

The extension runs `PYTHON -I -S launch.py [server args]` with the interpreter it found. The
bundle next to this file holds `common/` (pure-Python and abi3 packages, the same for every
Python) and one folder per Python version it was built for (`cp311/`, `cp312/`, ...) with the
compiled packages of that version; `manifest.json` lists them. `-I -S` keep the interpreter's
own site-packages, user site and PYTHON* variables out, so a package installed there cannot
shadow a bundled one.

`--probe` prints what the extension needs to judge an interpreter, as JSON, and starts nothing.
"""

import json
import os
import site
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def manifest():
    with open(os.path.join(HERE, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def abi_tag():
    return "cp%d%d" % sys.version_info[:2]


def main():
    info = manifest()
    tag = abi_tag()
    usable = sys.implementation.name == "cpython" and tag in info["pythons"]
    if sys.argv[1:2] == ["--probe"]:
        print(json.dumps({"executable": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3],
                          "implementation": sys.implementation.name, "tag": tag,
                          "usable": usable, "bundled": info["pythons"],
                          "server_version": info["version"]}))
        return 0
    if not usable:
        wanted = ", ".join("%s.%s" % (t[2], t[3:]) for t in info["pythons"])
        sys.stderr.write("kebab: the bundled server needs CPython %s; %s is %s %d.%d\n"
                         % (wanted, sys.executable, sys.implementation.name,
                            *sys.version_info[:2]))
        return 3
    # Version-specific first, then common; addsitedir also reads any .pth file there.
    before = list(sys.path)
    for folder in (os.path.join(HERE, tag), os.path.join(HERE, "common")):
        site.addsitedir(folder)
    added = [p for p in sys.path if p not in before]
    sys.path[:] = added + before
    sys.argv[0] = "kebab-lsp"
    from kebab_lsp.cli import serve_main

    serve_main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
