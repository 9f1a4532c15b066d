"""Where a workspace's index lives: the user cache dir, one subfolder per workspace.

Nothing is ever written inside the workspace. The subfolder name carries a hash of the
absolute root so two checkouts with the same folder name never share an index. What all
workspaces share (the embedding model's optimized graph) sits beside them in `_models`, a
name no workspace subfolder can take (those always end in `-<hash>`).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import platformdirs

ENV_INDEX_DIR = "KEBAB_INDEX_DIR"


def cache_root(override: str | Path | None = None) -> Path:
    """`--index-dir` beats `KEBAB_INDEX_DIR` beats the platform's user cache dir."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get(ENV_INDEX_DIR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("kebab-lsp", appauthor=False))


def index_dir_for(root: Path, override: str | Path | None = None) -> Path:
    root = root.resolve()
    digest = hashlib.sha1(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name) or "root"
    return cache_root(override) / f"{name}-{digest}"


def model_cache_dir(override: str | Path | None = None) -> Path:
    return cache_root(override) / "_models"
