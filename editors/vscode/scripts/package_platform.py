#!/usr/bin/env python3
"""Package a platform-specific VSIX that carries the kebab-lsp server and all it needs.

    python3 editors/vscode/scripts/package_platform.py --target linux-x64
    python3 editors/vscode/scripts/package_platform.py --target darwin-arm64 --python 3.12

Steps: build the kebab-lsp wheel from this checkout (or take `--wheel`); for each Python
version, `pip install --target` it with its pinned dependencies (constraints.txt) as binary
wheels for the target's platform (`--platform`, `--only-binary=:all:`, no download of
anything but wheels); put the distributions that are the same for every version (pure Python,
abi3) in `server/common/` and the rest in `server/cpXY/`; add the launcher and a manifest;
then `vsce package --target` writes `kebab-lsp-<version>-<target>.vsix` (into `--out-dir`,
default `editors/vscode/dist/`). The staged `server/` folder is removed afterwards, so a plain
`npm run package` never ships a stale one.

Needs: pip (of the Python running this script), Node.js 20+ with npm (the extension's npm
dependencies are installed with `npm ci` when missing), and the package indexes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXT = Path(__file__).resolve().parents[1]
REPO = EXT.parents[1]

#: VS Code target -> the pip platform tags its wheels may carry. pip widens a macOS tag to
#: older releases and manylinux2014 to manylinux2010 and manylinux1, but not manylinux_2_28
#: to older glibc, so those are listed.
def _manylinux(arch: str) -> list[str]:
    return [f"manylinux_2_{minor}_{arch}" for minor in (28, 27, 26, 24, 17)] + [
        f"manylinux2014_{arch}"]


PLATFORMS: dict[str, list[str]] = {
    "linux-x64": _manylinux("x86_64"),
    "linux-arm64": _manylinux("aarch64"),
    "darwin-arm64": ["macosx_14_0_arm64"],
    "darwin-x64": ["macosx_14_0_x86_64"],
    "win32-x64": ["win_amd64"],
    "win32-arm64": ["win_arm64"],
}
DEFAULT_PYTHONS = "3.11,3.12,3.13"


def log(message: str) -> None:
    print(f"[package {time.strftime('%H:%M:%S')}] {message}", flush=True)


def run(cmd: list[str], **kwargs: object) -> None:
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def build_wheel(out: Path) -> Path:
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out),
         str(REPO)])
    (wheel,) = out.glob("kebab_lsp-*.whl")
    return wheel


def install(wheel: Path, target: str, python: str, dest: Path) -> None:
    platforms = [arg for tag in PLATFORMS[target] for arg in ("--platform", tag)]
    run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-compile", "--target", str(dest), *platforms, "--python-version", python,
         "--implementation", "cp", "--only-binary=:all:",
         "-c", str(REPO / "constraints.txt"), str(wheel)])
    # Console scripts point at this machine's interpreter: of no use in the bundle.
    shutil.rmtree(dest / "bin", ignore_errors=True)


def records(folder: Path) -> dict[str, str]:
    """Each distribution's RECORD (its files and their hashes), by dist-info folder name."""
    return {d.name: (d / "RECORD").read_text() for d in folder.glob("*.dist-info")}


def split_common(versions: dict[str, Path], common: Path) -> None:
    """Move every distribution whose RECORD is the same for every version into `common`."""
    found = {tag: records(folder) for tag, folder in versions.items()}
    first, *rest = found.values()
    shared = [name for name, record in first.items()
              if all(other.get(name) == record for other in rest)]
    for name in shared:
        for line in first[name].splitlines():
            rel = line.rsplit(",", 2)[0]
            if not rel or rel.startswith(".."):
                continue
            for folder in versions.values():
                src = folder / rel
                if src.exists():
                    dst = common / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    if dst.exists():
                        src.unlink()
                    else:
                        shutil.move(src, dst)
    for folder in versions.values():
        # Leave no empty package folders behind: they would shadow nothing, but confuse.
        for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    log(f"{len(shared)} distributions shared by {', '.join(versions)}; "
        f"{len(first) - len(shared)} built per version")


def size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True, choices=sorted(PLATFORMS))
    parser.add_argument("--python", default=DEFAULT_PYTHONS,
                        help=f"comma-separated Python versions to bundle (default {DEFAULT_PYTHONS})")
    parser.add_argument("--wheel", type=Path, help="a kebab-lsp wheel (default: build one)")
    parser.add_argument("--out-dir", type=Path, default=EXT / "dist")
    args = parser.parse_args()
    pythons = [v.strip() for v in args.python.split(",") if v.strip()]
    for version in pythons:
        major, _, minor = version.partition(".")
        if major != "3" or not minor.isdigit() or int(minor) < 11:
            parser.error(f"--python {version}: the server needs Python 3.11 or newer")
    package = json.loads((EXT / "package.json").read_text())
    out = args.out_dir.resolve() / f"{package['name']}-{package['version']}-{args.target}.vsix"
    server = EXT / "server"
    shutil.rmtree(server, ignore_errors=True)
    started = time.monotonic()
    vsce = EXT / "node_modules" / ".bin" / ("vsce.cmd" if os.name == "nt" else "vsce")
    if not vsce.exists():
        run(["npm", "ci", "--loglevel=error"], cwd=EXT)
    with tempfile.TemporaryDirectory(prefix="kebab-vsix-") as tmp:
        log("the extension alone, with vsce's secret scan (and tsc, through vscode:prepublish)")
        run([str(vsce), "package", "--allow-missing-repository", "--skip-license",
             "--out", str(Path(tmp) / "scan.vsix")], cwd=EXT, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL)
    try:
        with tempfile.TemporaryDirectory(prefix="kebab-vsix-") as tmp:
            wheel = args.wheel.resolve() if args.wheel else build_wheel(Path(tmp) / "wheel")
            versions = {f"cp{v.replace('.', '')}": server / f"cp{v.replace('.', '')}"
                        for v in pythons}
            for version, (_tag, dest) in zip(pythons, versions.items(), strict=True):
                log(f"installing {wheel.name} for CPython {version} on {args.target}")
                install(wheel, args.target, version, dest)
            split_common(versions, server / "common")
        shutil.copy2(EXT / "launcher" / "launch.py", server / "launch.py")
        server_version = _metadata_version(server / "common")
        (server / "manifest.json").write_text(json.dumps({
            "version": server_version, "target": args.target, "pythons": list(versions),
        }, indent=2) + "\n")
        log(f"server {server_version}: {size_mb(server):.0f} MB unpacked")
        out.parent.mkdir(parents=True, exist_ok=True)
        # vsce's secret scan reads every file: minutes for half a gigabyte of wheels from the
        # package index. The extension's own files were scanned above, without the server.
        run([str(vsce), "package", "--target", args.target, "--allow-missing-repository",
             "--skip-license", "--allow-package-all-secrets", "--out", str(out)], cwd=EXT,
            stdin=subprocess.DEVNULL)
    finally:
        shutil.rmtree(server, ignore_errors=True)
    log(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) in {time.monotonic() - started:.0f} s")
    return 0


def _metadata_version(folder: Path) -> str:
    (dist,) = folder.glob("kebab_lsp-*.dist-info")
    for line in (dist / "METADATA").read_text().splitlines():
        if line.startswith("Version: "):
            return line.removeprefix("Version: ")
    raise SystemExit(f"no version in {dist}/METADATA")


if __name__ == "__main__":
    sys.exit(main())
