"""workspace/symbol end to end: exact URIs and ranges for every kind of query."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import Session, StartFn, range_of, span, write_tree
from lsprotocol import types


def uri(root: Path, rel: str) -> str:
    return (root / rel).resolve().as_uri()


def names(symbols: list[types.SymbolInformation]) -> list[str]:
    return [s.name for s in symbols]


async def ready(start_server: StartFn, workspace: Path, **kwargs: object) -> Session:
    session = await start_server([workspace], **kwargs)
    await session.wait_idle()
    return session


async def test_exact_prefix_camel_initials(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace)

    exact = await s.symbols("get_user_by_id")
    top = exact[0]
    assert top.name == "get_user_by_id"
    assert top.kind == types.SymbolKind.Method
    assert top.container_name == "UserService"
    assert top.location.uri == uri(workspace, "app/users.py")
    assert range_of(top.location) == span("app/users.py", "def get_user_by_id",
                                          'return {"id": user_id}')
    # The test file's function is a weaker (substring) match and a test: it comes last.
    assert names(exact)[-1] == "test_get_user_by_id"

    prefix = await s.symbols("parse_con")
    assert prefix[0].name == "parse_config"
    assert prefix[0].kind == types.SymbolKind.Function
    assert prefix[0].location.uri == uri(workspace, "app/users.py")
    assert range_of(prefix[0].location) == span("app/users.py", "def parse_config",
                                                "return {}")

    initials = await s.symbols("gubi")
    assert initials[0].name == "getUserById"
    assert initials[0].kind == types.SymbolKind.Function
    assert initials[0].location.uri == uri(workspace, "web/api.ts")
    assert range_of(initials[0].location) == span("web/api.ts", "function getUserById",
                                                  'return { id, name: "x" };\n}')
    assert "get_user_by_id" in names(initials)  # snake_case initials match too


async def test_container_qualified_query(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace)
    for query, expected_name in (("Greeter.greet", "Greeter.greet"),
                                 ("Greeter::greet", "Greeter::greet")):
        found = await s.symbols(query)
        assert len(found) == 1, names(found)
        # Qualified `name` so a client that fuzzy-filters on name keeps the answer.
        assert found[0].name == expected_name
        assert found[0].container_name == "Greeter"
        assert found[0].kind == types.SymbolKind.Method
        assert found[0].location.uri == uri(workspace, "web/api.ts")
        assert range_of(found[0].location) == span("web/api.ts", "greet(name",
                                                   'return "hello " + name;\n  }')
    # The container filters: `greet` under another container does not match.
    assert await s.symbols("UserService.greet") == []
    go = await s.symbols("Server.Start")
    assert [(x.name, x.container_name) for x in go] == [("Server.Start", "Server")]
    assert go[0].location.uri == uri(workspace, "svc/server.go")


async def test_empty_query_lists_top_symbols(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace)
    top = await s.symbols("")
    assert top, "an empty query must list the workspace's top symbols (Neovim pickers)"
    listed = {(x.name, x.location.uri) for x in top}
    assert ("UserService", uri(workspace, "app/users.py")) in listed
    assert ("Greeter", uri(workspace, "web/api.ts")) in listed
    assert ("Server", uri(workspace, "svc/server.go")) in listed
    # Top-level definitions only, and nothing from the test file.
    assert all(x.container_name is None for x in top)
    assert not any("test_users" in x.location.uri for x in top)
    greeter = next(x for x in top if x.name == "Greeter")
    assert range_of(greeter.location) == span("web/api.ts", "class Greeter",
                                              'return "hello " + name;\n  }\n}')


async def test_cap_and_partial_results(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace, init_options={"symbolLimit": 2})
    capped = await s.symbols("e")  # matches many symbols as a subsequence
    assert len(capped) == 2

    token = "partial-1"
    result = await s.client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query="user", partial_result_token=token))
    assert result == []  # everything went out as partial results
    partial = s.recorder.partial[token]
    assert [p["name"] for p in partial] == names(await s.symbols("user"))
    assert all(p["location"]["uri"].startswith("file://") for p in partial)


async def test_positions_are_utf16_even_when_the_client_prefers_utf8(
    start_server: StartFn, tmp_path: Path
) -> None:
    root = tmp_path / "uni"
    root.mkdir()
    (root / "coffee.ts").write_text('const s = "☕"; export function afterCoffee() {}\n')
    s = await start_server([root])
    caps = s.init_result.capabilities  # type: ignore[union-attr]
    assert caps.position_encoding == "utf-16"
    await s.wait_idle()
    found = [x for x in await s.symbols("afterCoffee") if x.name == "afterCoffee"]
    # The symbol's range starts at `function` (UTF-16 column 22; UTF-8 would say 24).
    assert found and found[0].location.range.start.character == 22
    hit = (await s.search({"query": "afterCoffee", "mode": "lexical"}))["hits"][0]
    assert hit["selection"]["start"]["character"] == 31  # the name; UTF-8: 33
    assert hit["location"]["range"]["start"]["character"] == 22  # the definition it cites


RUST: dict[str, str] = {
    "src/lib.rs": """pub mod walk {
    pub fn visit(path: &str) -> usize {
        path.len()
    }
}

#[cfg(test)]
mod tests {
    fn visit(path: &str) -> usize {
        path.len() + 1
    }

    #[test]
    fn visits() {
        assert_eq!(super::walk::visit("a"), visit(""));
    }
}
""",
}


D: dict[str, str] = {
    "source/walk.d": """module walk;

unittest
{
    size_t visit(string path) { return path.length + 1; }
    assert(.visit("a") == visit(""));
}

size_t visit(string path)
{
    return path.length;
}
""",
}


# The tree, the file, the containers of `visit` in the order found, the code's first and last
# text. Neither file is a test file, so only where the helper is declared says it is a test's.
OWN_TESTS = [
    # Rust: the enclosing `mod tests`.
    (RUST, "src/lib.rs", ["walk", "tests"], "pub fn visit", "path.len()\n    }"),
    # D: a `unittest` block beside the code, here above it.
    (D, "source/walk.d", [None, "unittest"], "size_t visit(string path)\n{", "path.length;\n}"),
]


@pytest.mark.parametrize(("files", "path", "containers", "first", "last"), OWN_TESTS,
                         ids=["rust", "d"])
async def test_a_files_own_tests_come_after_its_code(
    start_server: StartFn, tmp_path: Path, files: dict[str, str], path: str,
    containers: list[str | None], first: str, last: str,
) -> None:
    # The name ties, and the code's `visit` comes first, as a test file's would.
    root = write_tree(tmp_path / "tree", files)
    s = await ready(start_server, root)
    found = [x for x in await s.symbols("visit") if x.name == "visit"]
    assert [x.container_name for x in found] == containers
    assert range_of(found[0].location) == span(path, first, last, files=files)
