"""Property-based abuse of the real server over raw stdio (hypothesis). After every generated
message the server must still be up, must have answered every request that carried an id
(with a result or a JSON-RPC error, never silence), and must answer a known query correctly.

Classes of input (each test's `max_examples` is what the README's Reliability section
counts): random bytes as a body, arbitrary JSON values, JSON-RPC calls to every method with
random params, `kebab/search` with hostile params (control characters, lone surrogates, FTS5
syntax, huge queries, exploding globs, wrong types), and framing garbage before a message.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import FILES, RawClient, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = 150
_ids = itertools.count(1000)
METHODS = ["kebab/search", "kebab/status", "workspace/symbol", "workspace/executeCommand",
           "textDocument/didSave", "textDocument/didOpen", "textDocument/didClose",
           "workspace/didChangeWatchedFiles", "workspace/didRenameFiles",
           "workspace/didChangeWorkspaceFolders", "$/cancelRequest", "kebab/unknown",
           "textDocument/hover", ""]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
# Every character, lone surrogates and controls included (hypothesis leaves out surrogates
# unless asked).
any_text = st.text(alphabet=st.characters() | st.integers(0xD800, 0xDFFF).map(chr)
                   | st.integers(0, 31).map(chr), max_size=60)
fts_syntax = st.sampled_from(['"', "(", ")", "*", ":", "^", "NEAR(", "AND", "OR", "NOT", "-",
                              "'", "names:", "{", "}", "NEAR(a b, 2)", "\\", "\x00"])
hostile_query = st.one_of(
    any_text,
    st.lists(fts_syntax | st.text(max_size=5), min_size=1, max_size=12).map(" ".join),
    st.builds(lambda s, n: s * n, st.sampled_from(["a", "é", "\ud83d", "🙂", "x y "]),
              st.integers(1, 12_000)),
    st.sampled_from(["'a OR'", "'names:'", '"', "''", "'*'"]),
)
hostile_glob = st.one_of(
    st.text(max_size=40),
    st.builds(lambda p, n: p * n, st.sampled_from(["**/", "*", "[a-z]", "?", "[!x]", "{a,b}"]),
              st.integers(1, 200)),
    st.sampled_from(["../x", "/etc/**", "[", "]]", "\\", "**/**/**/**/*.py"]),
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawClient]:
    base = tmp_path_factory.mktemp("fuzz")
    root = write_tree(base / "ws", FILES)
    client = RawClient(base)
    client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": root.as_uri(), "capabilities": {},
        "initializationOptions": {"embed": False}}})
    assert "result" in client.answer(1)
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    for i in range(600):
        status = client.status(2 + i)
        if status["folders"] and not status["building"] and status["folders"][0]["files"]:
            break
        time.sleep(0.1)
    client.root = root  # type: ignore[attr-defined]
    yield client
    client.proc.kill()


def still_serving(c: RawClient, asked: list[Any]) -> None:
    """Every id sent was answered, and a known query still finds its definition."""
    probe = f"probe-{next(_ids)}"
    c.send({"jsonrpc": "2.0", "id": probe, "method": "kebab/search",
            "params": {"query": "get_user_by_id", "mode": "lexical"}})
    top = c.answer(probe)["result"]["hits"][0]
    assert (top["path"], top["location"]["range"]["start"]["line"]) == ("app/users.py", 8)
    for msg_id in asked:
        answer = c.answer(msg_id)
        assert ("result" in answer) != ("error" in answer), answer
    assert c.proc.poll() is None


def send_body(c: RawClient, body: bytes) -> None:
    c.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)


fast = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])


@fast
@given(body=st.binary(min_size=1, max_size=2000))
def test_random_bytes(server: RawClient, body: bytes) -> None:
    send_body(server, body)
    still_serving(server, [])


@fast
@given(value=json_values)
def test_arbitrary_json(server: RawClient, value: Any) -> None:
    send_body(server, json.dumps(value).encode())
    still_serving(server, [])


@fast
@given(method=st.sampled_from(METHODS), params=json_values, request=st.booleans())
def test_every_method_with_random_params(server: RawClient, method: str, params: Any,
                                         request: bool) -> None:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    asked = []
    if request:
        msg["id"] = next(_ids)
        asked.append(msg["id"])
    server.send(msg)
    still_serving(server, asked)


@fast
@given(query=hostile_query, mode=st.sampled_from(["auto", "lexical", "vector", "hybrid", "x"]),
       k=st.one_of(st.integers(-5, 600), st.text(max_size=3)), glob=hostile_glob | st.none(),
       kinds=st.lists(st.sampled_from(["function", "klass", "class", 3]), max_size=2))
def test_hostile_search_params(server: RawClient, query: str, mode: str, k: Any,
                               glob: str | None, kinds: list[Any]) -> None:
    msg_id = next(_ids)
    filters: dict[str, Any] = {"kind": kinds}
    if glob is not None:
        filters["path_glob"] = glob
    params = {"query": query, "mode": mode, "k": k, "filters": filters}
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "kebab/search",
                       "params": params}).encode()
    send_body(server, body)
    answer = server.answer(msg_id)
    inside = server.root.resolve().as_uri() + "/"  # type: ignore[attr-defined]
    for hit in (answer.get("result") or {}).get("hits", []):
        assert hit["location"]["uri"].startswith(inside), hit["location"]
        assert not hit["path"].startswith(("/", "..")), hit["path"]
    still_serving(server, [])


@fast
@given(junk=st.lists(st.binary(max_size=80), max_size=4))
def test_framing_garbage_before_a_message(server: RawClient, junk: list[bytes]) -> None:
    msg_id = next(_ids)
    for piece in junk:
        server.raw(piece.replace(b"Content-Length", b"Content_Length") + b"\r\n")
    server.raw(b"\r\n")
    server.send({"jsonrpc": "2.0", "id": msg_id, "method": "kebab/status"})
    still_serving(server, [msg_id])

