"""The architecture document stays true, and the package arrows point one way."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("kebab_lsp", "kebab_mcp", "indexing", "search")
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")


def modules() -> set[str]:
    return {p.relative_to(REPO).as_posix() for pkg in PACKAGES
            for p in (REPO / pkg).rglob("*.py") if p.name != "__init__.py"}


def test_every_module_is_in_the_document() -> None:
    named = set(re.findall(r"`((?:kebab_lsp|kebab_mcp|indexing|search)/[\w/]+\.py)`", DOC))
    assert modules() - named == set(), "modules missing from docs/architecture.md"


def test_the_document_names_no_module_that_does_not_exist() -> None:
    named = set(re.findall(r"`((?:kebab_lsp|kebab_mcp|indexing|search)/[\w/*.]+)`", DOC))
    for path in named:
        assert list(REPO.glob(path)), f"docs/architecture.md names {path}, which does not exist"


def _imports(package: str) -> set[tuple[str, str]]:
    found = set()
    for path in (REPO / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add((path.relative_to(REPO).as_posix(), node.module.split(".")[0]))
            elif isinstance(node, ast.Import):
                found.update((path.relative_to(REPO).as_posix(), a.name.split(".")[0])
                             for a in node.names)
    return found


def test_arrows_point_one_way() -> None:
    protocol = {"pygls", "lsprotocol", "mcp"}
    for path, top in _imports("indexing"):
        assert top not in protocol | {"search", "kebab_lsp", "kebab_mcp"}, f"{path} imports {top}"
    for path, top in _imports("search"):
        assert top not in protocol | {"kebab_lsp", "kebab_mcp"}, f"{path} imports {top}"
    for path, top in _imports("kebab_mcp"):
        assert top not in {"pygls", "lsprotocol"}, f"{path} imports {top}"
