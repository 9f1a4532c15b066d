"""Which files of a workspace get indexed, and why the others do not.

Ignore rules come from `pathspec` (git's own wildmatch semantics) applied per directory, the
way git does: a `.gitignore` speaks for paths below its own folder, and the deepest rule that
matches wins. Every file left out is reported with a reason, because a skip the user cannot
see looks exactly like a search bug.

Default skips, without any ignore file:
- folders that are never source at any depth (`DEFAULT_SKIP_DIRS`: VCS metadata, dependency
  trees, caches, virtualenvs);
- build output (`OUTPUT_DIRS`: `build`, `dist`, `target`) only at the workspace's top level,
  where build tools write it. Deeper down a folder of that name is as often source that git
  tracks (`pip/_internal/operations/build/`), and output there is what the project's
  `.gitignore` names, which is read. An ignore file can keep a top-level one (`!/build/`);
- secrets (`SECRET_FILES`, and any file holding a private key), unless `include_secrets`;
- kebab's own index folder (`DiscoveryOptions.skip_dirs`), when the workspace holds it (an
  `indexDir` inside the workspace, or a home folder opened that holds the user cache): its
  files change with every write, so indexing them would cite index internals and feed every
  write back into the next. The walk, a changed path (`is_indexable_path`) and the runtime's
  events all ask `DiscoveryOptions.skips`, whoever reports the change.

The workspace can change between the walk and the read, so `read_file` checks everything
again on the file it opened: that it is a regular file inside the workspace (not a symlink
swapped in that leads out), not too large, and that it did not change while read.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where rules are built: a command that only searches never needs it
    import pathspec

    from indexing.settings import Settings

DEFAULT_MAX_BYTES = 1024 * 1024
SNIFF_BYTES = 8192

# Directories that are never source, at any depth: VCS metadata, dependency trees, caches.
DEFAULT_SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", "bower_components", ".venv", "venv",
        "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
        ".eggs", ".next", ".nuxt", ".gradle", ".idea", ".vscode-test", "site-packages",
    }
)
# Where build tools write their output: skipped at the workspace's top level only (see above).
OUTPUT_DIRS = frozenset({"build", "dist", "target"})
#: Files that hold credentials, in `.gitignore` syntax: a pattern without "/" is matched
#: against the file's name (so `id_*` does not reach into a folder `id_x/`), one with "/"
#: against its workspace path. Templates meant to be committed (`.env.example`) and public
#: keys (`id_rsa.pub`, any `id_*` with an extension such as `id_utils.py`) are not secrets.
SECRET_FILES = (
    ".env*", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist",
    "*.pem", "*.key", "id_*", "!id_*.*",
    "credentials.json", ".netrc", ".npmrc", "secrets.yaml", "secrets.yml",
    "**/.ssh/**", "**/.aws/credentials",
)
#: A private key in PEM or OpenSSH form: the header and, after any header fields, a line of
#: key material (a constant that only names the header, as crypto libraries have, is not one).
PRIVATE_KEY = re.compile(
    rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[ \t]*\r?\n"
    rb"(?:[ \t]*[\w-]+:[^\n]*\n|[ \t]*\r?\n)*[ \t]*[A-Za-z0-9+/]{40,}")
#: Reads of a file that keeps changing under the reader before it is skipped.
READ_ATTEMPTS = 3
#: A file modified less than this before it is read is "racily clean", as git calls it: a
#: write in the same tick of the file system's clock, during the read, could keep its size and
#: time. Its time is not recorded, so the next scan reads it again instead of trusting them.
RACY_NS = 2_000_000_000
#: The key in the index's `meta` under which a complete scan records what it skipped.
SKIPS_META_KEY = "last_scan_skipped"
LOCKFILES = frozenset(
    {
        "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "npm-shrinkwrap.json",
        "Cargo.lock", "poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock", "go.sum",
        "composer.lock", "Gemfile.lock", "bun.lockb", "flake.lock", "mix.lock",
    }
)
MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.css", ".bundle.js", ".js.map", ".css.map")


class SkipReason:
    """Reasons a path is not indexed; plain strings so they travel as JSON keys."""

    GITIGNORE = "gitignore"
    KEBABIGNORE = "kebabignore"
    EXCLUDE = "exclude"
    DEFAULT_DIR = "default_dir"
    BINARY = "binary"
    TOO_LARGE = "too_large"
    LOCKFILE = "lockfile"
    MINIFIED = "minified"
    SYMLINK_OUTSIDE = "symlink_outside"
    UNREADABLE = "unreadable"
    NOT_REGULAR = "not_regular"
    UNDECODABLE_NAME = "undecodable_name"
    SECRET = "secret"
    VANISHED = "vanished"  # gone (or its folder replaced) between the walk and the read
    SYMLINK_LOOP = "symlink_loop"
    CHANGED_WHILE_READ = "changed_while_read"
    INDEX_DIR = "index_dir"  # kebab's own index folder, inside the workspace
    PATH_TOO_LONG = "path_too_long"  # longer than the system lets a path be (PATH_MAX)
    #: An ignore file that was not read, so its rules are not applied: not a regular file (a
    #: FIFO would block the walk, a device never end), a link leading out of the workspace,
    #: larger than `IGNORE_FILE_MAX_BYTES`, or unreadable. Listed under its own path.
    IGNORE_FILE_UNREAD = "ignore_file_unread"
    #: A line of an ignore file that is not a valid pattern: dropped, as git drops it (it
    #: matches nothing there), the rest of the file applying. Listed as `path:line`.
    BAD_IGNORE_LINE = "bad_ignore_line"


#: The files whose lines decide what is skipped, each with the reason its skips report. A bare
#: name is read in every folder and speaks for that folder and below (`.kebabignore` after
#: `.gitignore`, so it has the last word); a path is read at the workspace root only.
IGNORE_FILES: dict[str, str] = {
    ".git/info/exclude": SkipReason.GITIGNORE,
    ".gitignore": SkipReason.GITIGNORE,
    ".kebabignore": SkipReason.KEBABIGNORE,
}
_PER_FOLDER = tuple((name, why) for name, why in IGNORE_FILES.items() if "/" not in name)
_AT_ROOT = tuple((path, why) for path, why in IGNORE_FILES.items() if "/" in path)
#: An ignore file larger than this is not read (`SkipReason.IGNORE_FILE_UNREAD`): every path
#: of the folder is matched against each of its lines. Git itself refuses pattern files past
#: 100 MB; hand-written ones are a few KB.
IGNORE_FILE_MAX_BYTES = 1024 * 1024

#: Where a problem met while reading the rules is reported: (path, `SkipReason`).
Report = Callable[[str, str], None]


def is_ignore_file(rel_path: str) -> bool:
    """Whether a workspace-relative, `/`-separated path is one of `IGNORE_FILES`: when it
    changes, what is indexed below its folder may change, so the folder is walked again."""
    name = rel_path.rsplit("/", 1)[-1]
    return rel_path in IGNORE_FILES or any(name == n for n, _ in _PER_FOLDER)


@dataclass(frozen=True, slots=True)
class DiscoveredFile:
    """A file that passed the path rules; content checks happen when it is read."""

    path: str  # workspace-relative, '/'-separated
    abs_path: Path
    size: int
    mtime_ns: int




@dataclass(slots=True)
class Discovery:
    candidates: list[DiscoveredFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    def skip(self, path: str, reason: str) -> None:
        self.skipped.append((path, reason))

    def _unread_ignore_files_once(self) -> None:
        """An ignore file that was not read is counted once, as such: the walk, finding it
        a FIFO or a link out, would count it again under that reason."""
        unread = {p for p, why in self.skipped if why == SkipReason.IGNORE_FILE_UNREAD}
        if unread:
            self.skipped = [(p, why) for p, why in self.skipped
                            if p not in unread or why == SkipReason.IGNORE_FILE_UNREAD]


@dataclass(frozen=True, slots=True)
class DiscoveryOptions:
    max_bytes: int = DEFAULT_MAX_BYTES
    extra_excludes: tuple[str, ...] = ()
    include_secrets: bool = False
    #: Absolute, resolved folders never indexed wherever they sit: where the indexes live.
    skip_dirs: tuple[Path, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> DiscoveryOptions:
        from indexing.location import cache_root

        return cls(settings.max_file_bytes, settings.exclude, settings.include_secrets,
                   (cache_root(settings.index_dir).resolve(),))

    def skips(self, path: Path) -> bool:
        """Whether `path` (absolute, with its folders resolved) is or lies in a folder that is
        never indexed (`skip_dirs`)."""
        return self.skips_text(str(path))

    def skips_text(self, path: str) -> bool:
        """`skips` of a path as text, as the walk has it: comparing text costs nothing per
        level of the path, where `Path.parents` makes a path of each (quadratic in a chain of
        folders thousands deep)."""
        for skipped in map(str, self.skip_dirs):
            if path == skipped or path.startswith(skipped.rstrip(os.sep) + os.sep):
                return True
        return False


@dataclass(frozen=True, slots=True)
class _Rules:
    """Ignore specs in force for one directory, nearest last."""

    specs: tuple[tuple[str, str, pathspec.PathSpec], ...]  # (base, reason, spec)

    def reason(self, rel: str, is_dir: bool) -> str | None:
        decided = self.decide(rel, is_dir)
        return decided or None

    def decide(self, rel: str, is_dir: bool) -> str | None:
        """The reason the nearest matching rule skips `rel`; "" when that rule keeps it
        (`!pattern`); None when no rule speaks of it."""
        probe = rel + "/" if is_dir else rel
        for base, why, spec in reversed(self.specs):
            sub = probe[len(base) + 1 :] if base else probe
            result = spec.check_file(sub)
            if result.include is not None:
                return why if result.include else ""
        return None


def _ignore(_path: str, _reason: str) -> None:
    """A `Report` that says nothing: for a single path's check, which the walk reports."""


def _load_spec(root: Path, rel: str, report: Report) -> pathspec.PathSpec | None:
    """The rules of the ignore file at workspace path `rel`; None when there is none, or
    when it is not read (reported: `SkipReason.IGNORE_FILE_UNREAD`)."""
    text = _read_ignore_file(root, os.path.join(root, rel))
    if text is None:
        return None
    if isinstance(text, bytes):
        return _spec(text.decode("utf-8", errors="replace").splitlines(), rel, report)
    report(rel, SkipReason.IGNORE_FILE_UNREAD)
    return None


def _spec(lines: list[str], where: str, report: Report) -> pathspec.PathSpec:
    """`lines` as gitignore rules, without the lines pathspec cannot read: git reads such a
    line as one that matches nothing, where pathspec would throw out the whole spec (and the
    scan with it). Each is reported as `where:line`."""
    from indexing.filters import load_pathspec, pattern_problem

    pathspec = load_pathspec()

    good = []
    for number, line in enumerate(lines, 1):
        if pattern_problem(line):
            report(f"{where}:{number}", SkipReason.BAD_IGNORE_LINE)
        else:
            good.append(line)
    return pathspec.GitIgnoreSpec.from_lines(good)


def _read_ignore_file(root: Path, path: str) -> bytes | str | None:
    """The bytes of an ignore file; None when there is none (or a folder has its name);
    otherwise why it was not read. Only a regular file inside the workspace, of at most
    `IGNORE_FILE_MAX_BYTES`, is read: opening a FIFO blocks until something writes to it, a
    device such as /dev/zero never ends, and a link leading out of the workspace is not
    followed, here as anywhere. It is looked at before it is opened (a device is never
    opened), then again on the descriptor that is read, as `read_file` does."""
    try:
        st = os.stat(path)
    except OSError:  # none there, or its folder cannot be looked into (the walk says so)
        return None
    if stat.S_ISDIR(st.st_mode):
        return None
    if not stat.S_ISREG(st.st_mode):
        return SkipReason.NOT_REGULAR
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_NOCTTY", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return _error_reason(exc)
    try:
        where = _opened_path(fd, Path(path))
        if where is None:
            return SkipReason.VANISHED
        if not _inside(root, where):
            return SkipReason.SYMLINK_OUTSIDE
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            return SkipReason.NOT_REGULAR
        if opened.st_size > IGNORE_FILE_MAX_BYTES:
            return SkipReason.TOO_LARGE
        data = _read_at_most(fd, IGNORE_FILE_MAX_BYTES + 1)
    except OSError as exc:
        return _error_reason(exc)
    finally:
        os.close(fd)
    return SkipReason.TOO_LARGE if len(data) > IGNORE_FILE_MAX_BYTES else data


def _dir_rules(root: Path, parent: _Rules, rel: str, report: Report) -> _Rules:
    """The rules in force in the folder at workspace path `rel`: its parent's, and its own
    ignore files'."""
    added = []
    for name, why in _PER_FOLDER:
        spec = _load_spec(root, f"{rel}/{name}" if rel else name, report)
        if spec is not None:
            added.append((rel, why, spec))
    return _Rules(parent.specs + tuple(added)) if added else parent


def _root_rules(root: Path, options: DiscoveryOptions, report: Report = _ignore) -> _Rules:
    specs: list[tuple[str, str, pathspec.PathSpec]] = []
    if options.extra_excludes:
        # The settings refuse a pattern pathspec cannot read; one given otherwise is dropped.
        specs.append(("", SkipReason.EXCLUDE,
                      _spec(list(options.extra_excludes), "exclude setting", report)))
    for path, why in _AT_ROOT:
        spec = _load_spec(root, path, report)
        if spec is not None:
            specs.append(("", why, spec))
    return _dir_rules(root, _Rules(tuple(specs)), "", report)


def name_skip_reason(name: str) -> str | None:
    """Rules that depend on the file name alone (cheap, checked before any read)."""
    if name in LOCKFILES:
        return SkipReason.LOCKFILE
    if name.endswith(MINIFIED_SUFFIXES):
        return SkipReason.MINIFIED
    return None


def content_skip_reason(data: bytes, include_secrets: bool = False) -> str | None:
    """A NUL byte near the start is git's own test for binary content; a private key anywhere
    makes the file a secret."""
    if b"\0" in data[:SNIFF_BYTES]:
        return SkipReason.BINARY
    if not include_secrets and b"PRIVATE KEY-----" in data and PRIVATE_KEY.search(data):
        return SkipReason.SECRET
    return None


@cache
def _secret_specs() -> tuple[pathspec.PathSpec, pathspec.PathSpec]:
    """`SECRET_FILES` as (patterns of names, patterns of paths)."""
    from indexing.filters import load_pathspec

    pathspec = load_pathspec()

    by_name = [p for p in SECRET_FILES if "/" not in p]
    by_path = [p for p in SECRET_FILES if "/" in p]
    return (pathspec.GitIgnoreSpec.from_lines(by_name),
            pathspec.GitIgnoreSpec.from_lines(by_path))


def is_secret_path(rel: str) -> bool:
    """Whether a workspace-relative file path names a secret (`SECRET_FILES`)."""
    by_name, by_path = _secret_specs()
    return bool(by_name.match_file(rel.rsplit("/", 1)[-1]) or by_path.match_file(rel))


def _default_dir(rel: str, name: str, rules: _Rules) -> bool:
    """Whether a folder is skipped by default: never-source names anywhere, build output at
    the top level unless an ignore file keeps it."""
    if name in DEFAULT_SKIP_DIRS:
        return True
    return "/" not in rel and name in OUTPUT_DIRS and rules.decide(rel, True) != ""


def decodable(name: str) -> bool:
    """Whether a name read from the file system is valid UTF-8. Python hands other bytes over
    as lone surrogates (`surrogateescape`); the index, LSP's JSON and its URIs carry names as
    Unicode text, so such a name can be neither stored nor cited back, and its file is
    skipped instead of stopping the whole workspace."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def display_path(rel: str) -> str:
    """A path as it can always be printed or sent: undecodable bytes as `\\xe9`."""
    return rel if decodable(rel) else os.fsencode(rel).decode("utf-8", "backslashreplace")


def _inside(root: Path, target: Path) -> bool:
    try:
        target.relative_to(root)
    except ValueError:
        return False
    return True


def discover(root: Path, options: DiscoveryOptions | None = None) -> Discovery:
    """Walk `root` and sort every file into candidates and counted skips."""
    options = options or DiscoveryOptions()
    root = root.resolve()
    result = Discovery()
    walk = _walk(root, _root_rules(root, options, result.skip), result, options)
    for entry, rel in walk:
        reason = name_skip_reason(entry.name)
        if reason:
            result.skip(rel, reason)
            continue
        try:
            st = entry.stat(follow_symlinks=True)
        except OSError as exc:
            result.skip(rel, _error_reason(exc))
            continue
        if not stat.S_ISREG(st.st_mode):
            result.skip(rel, SkipReason.NOT_REGULAR)
            continue
        if st.st_size > options.max_bytes:
            result.skip(rel, SkipReason.TOO_LARGE)
            continue
        result.candidates.append(
            DiscoveredFile(rel, Path(entry.path), st.st_size, st.st_mtime_ns))
    result._unread_ignore_files_once()
    result.candidates.sort(key=lambda c: c.path)
    result.skipped.sort()
    return result


def _walk(root: Path, rules: _Rules, result: Discovery, options: DiscoveryOptions
          ) -> Iterator[tuple[os.DirEntry[str], str]]:
    """Every file under `root` that the path rules let through, with its workspace path.
    The folders wait on a stack, not in the call stack: a chain of folders thousands deep
    must not reach Python's recursion limit and stop the whole walk. (A path longer than
    the system allows is skipped as `path_too_long`.)"""
    pending: list[tuple[str, _Rules]] = [("", rules)]
    while pending:
        rel_dir, rules = pending.pop()
        below = yield from _walk_folder(root, rel_dir, rules, result, options)
        pending.extend(reversed(below))  # the first folder by name is walked first


def _walk_folder(root: Path, rel_dir: str, rules: _Rules, result: Discovery,
                 options: DiscoveryOptions
                 ) -> Generator[tuple[os.DirEntry[str], str], None, list[tuple[str, _Rules]]]:
    """The files of one folder that the rules let through; returns its folders to walk,
    each with the rules in force in it."""
    # Paths as text: a `Path` parses every part again, which a chain of folders thousands
    # deep makes quadratic.
    directory = os.path.join(root, rel_dir) if rel_dir else str(root)
    below: list[tuple[str, _Rules]] = []
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except OSError as exc:
        result.skip((rel_dir + "/") if rel_dir else ".", _error_reason(exc))
        return below
    for entry in entries:
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        if not decodable(entry.name):
            suffix = "/" if _is_real_dir(entry) else ""
            result.skip(display_path(rel) + suffix, SkipReason.UNDECODABLE_NAME)
            continue
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError as exc:
            result.skip(rel, _error_reason(exc))
            continue
        if is_link:
            try:
                target = Path(os.path.realpath(entry.path, strict=True))
            except OSError as exc:  # a loop, or a link to nothing
                loop = exc.errno == errno.ELOOP
                result.skip(rel, SkipReason.SYMLINK_LOOP if loop else SkipReason.UNREADABLE)
                continue
            if not _inside(root, target):
                result.skip(rel, SkipReason.SYMLINK_OUTSIDE)
                continue
        if is_dir and _default_dir(rel, entry.name, rules):
            result.skip(rel + "/", SkipReason.DEFAULT_DIR)
            continue
        if is_dir and options.skips_text(os.path.join(root, rel)):
            result.skip(rel + "/", SkipReason.INDEX_DIR)
            continue
        if not is_dir and not options.include_secrets and is_secret_path(rel):
            result.skip(rel, SkipReason.SECRET)
            continue
        why = rules.reason(rel, is_dir)
        if why:
            result.skip(rel + "/" if is_dir else rel, why)
            continue
        if is_dir:
            if is_link:  # a link back into the tree would index the same files twice
                result.skip(rel + "/", SkipReason.NOT_REGULAR)
                continue
            below.append((rel, _dir_rules(root, rules, rel, result.skip)))
        else:
            yield entry, rel
    return below


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def is_indexable_path(root: Path, path: Path, options: DiscoveryOptions | None = None) -> bool:
    """Whether a single changed file (from didSave or a watcher) passes the walk's path rules,
    without walking the whole tree."""
    options = options or DiscoveryOptions()
    root = root.resolve()
    abs_path = Path(os.path.abspath(path))
    try:
        rel_path = abs_path.relative_to(root)
    except ValueError:
        return False
    if not decodable(str(rel_path)):
        return False
    if not _inside(root, Path(os.path.realpath(abs_path))):
        return False
    if options.skips(root / rel_path):
        return False
    parts = rel_path.parts
    if any(p in DEFAULT_SKIP_DIRS for p in parts[:-1]) or name_skip_reason(parts[-1]):
        return False
    if not options.include_secrets and is_secret_path(rel_path.as_posix()):
        return False
    rules = _root_rules(root, options)
    for depth in range(len(parts)):
        rel = "/".join(parts[: depth + 1])
        is_dir = depth < len(parts) - 1
        if is_dir and depth == 0 and _default_dir(rel, parts[0], rules):
            return False
        if rules.reason(rel, is_dir):
            return False
        if is_dir:
            rules = _dir_rules(root, rules, rel, _ignore)
    return True


def _error_reason(exc: OSError) -> str:
    """The skip reason of an error met while looking at or opening a path."""
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return SkipReason.VANISHED
    if exc.errno == errno.ELOOP:
        return SkipReason.SYMLINK_LOOP
    if exc.errno == errno.ENAMETOOLONG:
        return SkipReason.PATH_TOO_LONG
    return SkipReason.UNREADABLE


@dataclass(frozen=True, slots=True)
class FileRead:
    """A file's bytes, with the size and modification time they were read at (0 when too
    recent to be trusted: `RACY_NS`)."""

    data: bytes
    size: int
    mtime_ns: int


def read_file(root: Path, path: Path, options: DiscoveryOptions) -> FileRead | str:
    """The bytes of a file the walk found (or an editor reported), or the reason it is
    skipped. `root` is resolved.

    The file may have changed since it was looked at, so everything is checked on the file
    descriptor that is read: where it really is (a file swapped for a symlink that leads out
    of the workspace is caught here, not only by the walk), that it is a regular file (not a
    folder, a FIFO or a device put in its place), its size (the read stops at the limit
    whatever the file grew to) and that it did not change while read (tried again, then
    skipped). The size and time returned are the ones from before the read, so a change
    during the read is seen by the next scan; a time too recent to tell is not returned."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return _error_reason(exc)
    try:
        where = _opened_path(fd, path)
        if where is None:
            return SkipReason.VANISHED
        if not _inside(root, where):
            return SkipReason.SYMLINK_OUTSIDE
        for _ in range(READ_ATTEMPTS):
            before = os.fstat(fd)
            racy = time.time_ns() - before.st_mtime_ns < RACY_NS
            if not stat.S_ISREG(before.st_mode):
                return SkipReason.NOT_REGULAR
            if before.st_size > options.max_bytes:
                return SkipReason.TOO_LARGE
            data = _read_at_most(fd, options.max_bytes + 1)
            if len(data) > options.max_bytes:
                return SkipReason.TOO_LARGE
            after = os.fstat(fd)
            if (len(data), after.st_size, after.st_mtime_ns) == (
                    before.st_size, before.st_size, before.st_mtime_ns):
                break
        else:
            return SkipReason.CHANGED_WHILE_READ
    except OSError as exc:
        return _error_reason(exc)
    finally:
        os.close(fd)
    reason = content_skip_reason(data, options.include_secrets)
    if reason:
        return reason
    return FileRead(data, before.st_size, 0 if racy else before.st_mtime_ns)


def _opened_path(fd: int, path: Path) -> Path | None:
    """Where the open file `fd` really is, or None when it is no longer there. Linux says so
    through /proc; elsewhere the path is resolved and must still be the same file."""
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        try:
            real = os.path.realpath(path, strict=True)
            same = os.path.samestat(os.stat(real), os.fstat(fd))
        except OSError:
            return None
        return Path(real) if same else None
    return None if where.endswith(" (deleted)") else Path(where)


def _read_at_most(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes from the start of `fd`."""
    os.lseek(fd, 0, os.SEEK_SET)
    parts: list[bytes] = []
    got = 0
    while got < limit:
        part = os.read(fd, min(limit - got, 1 << 20))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)
