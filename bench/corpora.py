"""Real source trees from the package registries, pinned by version, cached under
`bench/corpora/` (gitignored): fetched once, reused by every later run.

Nothing here is code this project wrote; flask, gin, remeda, serde_json and axios are kept out
on purpose (reserved for an independent evaluation).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("KEBAB_BENCH_CORPORA", BENCH_DIR / "corpora"))
DOWNLOADS = CACHE / "_downloads"


@dataclass(frozen=True, slots=True)
class Corpus:
    key: str
    lang: str
    registry: str  # pypi | npm | debian
    package: str
    version: str
    subdir: str = ""  # where the sources sit inside the unpacked archive

    @property
    def label(self) -> str:
        return f"{self.package} {self.version} ({self.registry})"

    @property
    def unpacked(self) -> Path:
        return CACHE / f"{self.key}-{self.version}".replace(":", "_").replace("+", "_")

    @property
    def root(self) -> Path:
        return self.unpacked / self.subdir if self.subdir else self.unpacked


# The main tree (>= 5,000 files) comes first: latency and peers run on it.
CORPORA: tuple[Corpus, ...] = (
    Corpus("django", "python", "pypi", "Django", "5.1.4", "Django-5.1.4"),
    Corpus("rxjs", "typescript", "npm", "rxjs", "7.8.2", "package"),
    Corpus("prometheus-go", "go", "debian", "golang-github-prometheus-client-golang-dev",
           "1.14.0-3", "usr/share/gocode/src"),
    Corpus("regex-rs", "rust", "debian", "librust-regex-dev", "1.7.1-1",
           "usr/share/cargo/registry"),
)

# Quality (`kebab eval`) runs on smaller documented trees, one per language: its doc-blanked
# nl variant embeds the whole tree twice (and the baseline twice more), which a 60k-chunk tree
# cannot afford in one bench run. Each has hand-written questions in bench/questions/<key>.json.
EVAL_CORPORA: tuple[Corpus, ...] = (
    Corpus("click", "python", "pypi", "click", "8.1.7", "click-8.1.7"),
    CORPORA[3],
    CORPORA[2],
    Corpus("mobx", "typescript", "npm", "mobx", "6.13.5", "package/src"),
    # Held out: its questions were written once and scored, never used to tune ranking.
    Corpus("cobra", "go", "debian", "golang-github-spf13-cobra-dev", "1.6.1-1",
           "usr/share/gocode/src"),
    # Written as held-out sets, scored once, then used (bench/questions/README.md).
    Corpus("httpx", "python", "pypi", "httpx", "0.28.1", "httpx-0.28.1"),
    Corpus("rtk", "typescript", "npm", "@reduxjs/toolkit", "2.14.0", "package/src"),
    Corpus("tokio-util", "rust", "debian", "librust-tokio-util-dev", "0.7.3-2",
           "usr/share/cargo/registry"),
    # Held out since 2026-11-25 (e), like cobra.
    Corpus("rich", "python", "pypi", "rich", "13.9.4", "rich-13.9.4"),
    Corpus("query-core", "typescript", "npm", "@tanstack/query-core", "5.59.0", "package/src"),
)
# Measured in a report, not in `make bench`'s Quality step: the first plain-JavaScript tree
# (docs/bench/quality-2026-12-02.md), fetched like the others so that `fetch` can rebuild it and
# its questions' root resolves.
EXTRA_EVAL_CORPORA: tuple[Corpus, ...] = (
    Corpus("express", "javascript", "npm", "express", "4.21.2", "package"),
    # A tree with examples next to its code (24 of its 170 Python files), held out: its
    # questions were written once, for the example prior (docs/bench/quality-2026-12-02c.md).
    Corpus("aiohttp", "python", "pypi", "aiohttp", "3.14.5", "aiohttp-3.14.5"),
    # Ripgrep's directory walker and gitignore matcher: written as the first held-out Rust
    # set, scored once, then a tuning tree (its Rust tests in the files they test led to the
    # test-module prior, bench/questions/README.md).
    Corpus("ignore", "rust", "debian", "librust-ignore-dev", "0.4.18-2+b1",
           "usr/share/cargo/registry"),
    # Held out: a Go configuration library, beside cobra's command line.
    Corpus("viper", "go", "debian", "golang-github-spf13-viper-dev", "1.10.1-1",
           "usr/share/gocode/src"),
    # Fresh trees, one per language of the independent check, scored once on the generated
    # sets before any change was made for them (docs/bench/quality-2026-12-03c.md).
    Corpus("marshmallow", "python", "pypi", "marshmallow", "3.23.1", "marshmallow-3.23.1"),
    Corpus("immer", "typescript", "npm", "immer", "10.1.1", "package/src"),
    Corpus("logrus", "go", "debian", "golang-github-sirupsen-logrus-dev", "1.9.0-1",
           "usr/share/gocode/src"),
    Corpus("itertools", "rust", "debian", "librust-itertools-dev", "0.10.3-1",
           "usr/share/cargo/registry"),
)
QUESTIONS = BENCH_DIR / "questions"


def questions_file(corpus: Corpus) -> Path | None:
    path = QUESTIONS / f"{corpus.key}.json"
    return path if path.is_file() else None

PYRIGHT_VERSION = "1.1.414"


def _run(argv: list[str], cwd: Path | None = None) -> None:
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def _extract_tar(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")


def _download(corpus: Corpus, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    before = set(into.iterdir())
    if corpus.registry == "pypi":
        pip = [os.environ.get("KEBAB_BENCH_PYTHON", sys.executable), "-m", "pip"]
        _run([*pip, "download", "--quiet", "--no-deps", "--no-binary", ":all:",
              f"{corpus.package}=={corpus.version}", "-d", str(into)])
    elif corpus.registry == "npm":
        _run(["npm", "pack", "--silent", f"{corpus.package}@{corpus.version}",
              "--pack-destination", str(into)])
    elif corpus.registry == "debian":
        spec = f"{corpus.package}={corpus.version}"
        try:
            _run(["apt-get", "download", spec], cwd=into)
        except subprocess.CalledProcessError:
            _run(["apt-get", "update"])
            _run(["apt-get", "download", spec], cwd=into)
    else:
        raise ValueError(f"unknown registry {corpus.registry}")
    new = sorted(set(into.iterdir()) - before)
    if not new:  # already downloaded earlier
        stem = corpus.package.lower().replace("-", "_")
        new = [p for p in into.iterdir() if stem in p.name.lower().replace("-", "_")]
    if len(new) != 1:
        raise RuntimeError(f"could not find the download of {corpus.label}: {new}")
    return new[0]


def fetch(corpus: Corpus) -> Path:
    """The corpus's source root, downloading and unpacking it on first use."""
    done = corpus.unpacked / ".kebab-bench-complete"
    if done.exists():
        return corpus.root
    with tempfile.TemporaryDirectory(dir=CACHE.parent if CACHE.parent.exists() else None) as tmp:
        archive = _download(corpus, Path(tmp) / "dl")
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        kept = DOWNLOADS / archive.name
        shutil.copy2(archive, kept)
        staging = Path(tmp) / "unpacked"
        staging.mkdir()
        if kept.suffix == ".deb":
            _run(["dpkg-deb", "-x", str(kept), str(staging)])
        else:
            _extract_tar(kept, staging)
        if corpus.unpacked.exists():
            shutil.rmtree(corpus.unpacked)
        corpus.unpacked.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), corpus.unpacked)
    if not corpus.root.is_dir():
        raise RuntimeError(f"{corpus.label}: expected sources under {corpus.root}")
    done.touch()
    return corpus.root


def tree_size(root: Path) -> tuple[int, int]:
    """(files, bytes) of regular files under root, symlinks not followed."""
    files = size = 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            p = Path(dirpath, name)
            if p.is_symlink() or not p.is_file():
                continue
            files += 1
            size += p.stat().st_size
    return files, size


def copy_tree(src: Path, dest: Path) -> Path:
    """A fresh copy at another path (so it gets its own, cold index)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, symlinks=True)
    return dest


# -- peer tools ---------------------------------------------------------------------------------


def ensure_apt(binary: str, package: str) -> str | None:
    """Path to `binary`, installing the Debian package when missing; None if impossible."""
    found = shutil.which(binary)
    if found:
        return found
    for argv in (["apt-get", "install", "-y", "-q", package],
                 ["apt-get", "update"], ["apt-get", "install", "-y", "-q", package]):
        try:
            _run(argv)
        except (subprocess.CalledProcessError, FileNotFoundError):
            continue
        found = shutil.which(binary)
        if found:
            return found
    return shutil.which(binary)


def ensure_pyright() -> Path | None:
    """pyright-langserver from npm, pinned, installed under the corpora cache."""
    prefix = CACHE / "peers"
    binary = prefix / "node_modules" / ".bin" / "pyright-langserver"
    if binary.exists():
        return binary
    prefix.mkdir(parents=True, exist_ok=True)
    try:
        _run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix),
              f"pyright@{PYRIGHT_VERSION}"])
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    return binary if binary.exists() else None
