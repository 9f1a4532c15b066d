"""Framing and message checks of the stdio transport, fed bytes directly."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from kebab_lsp import transport
from kebab_lsp.transport import Dispatcher, id_of, read_bodies


def frame(payload: dict[str, Any] | bytes, sep: bytes = b"\r\n") -> bytes:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return b"Content-Length: " + str(len(body)).encode() + sep + sep + body


def bodies(data: bytes, eof: bool = True, expect: int = 0) -> tuple[list[bytes], list[str]]:
    """Feed `data`; without end of input the reader waits for more, as it would for a live
    client, so it is stopped once `expect` bodies have arrived."""

    async def run() -> tuple[list[bytes], list[str]]:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        if eof:
            reader.feed_eof()
        got: list[bytes] = []
        junk: list[str] = []
        task = asyncio.ensure_future(read_bodies(reader, got.append, junk.append))
        for _ in range(200):
            if task.done() or (expect and len(got) >= expect):
                break
            await asyncio.sleep(0.05)
        task.cancel()
        return got, junk

    return asyncio.run(run())


A = {"jsonrpc": "2.0", "id": 1, "method": "kebab/status"}
B = {"jsonrpc": "2.0", "id": 2, "method": "kebab/status"}


def test_good_frames_with_crlf_or_lf_and_extra_headers() -> None:
    b = json.dumps(B).encode()
    data = frame(A) + b"content-length: " + str(len(b)).encode() + (
        b"\nContent-Type: application/json\n\n") + b
    got, junk = bodies(data)
    assert [json.loads(b)["id"] for b in got] == [1, 2] and junk == []


@pytest.mark.parametrize("bad_length", [b"abc", b"-5", b"2147483648", b""])
def test_an_impossible_length_is_refused_and_the_stream_resynchronises(bad_length: bytes) -> None:
    data = b"Content-Length: " + bad_length + b"\r\n\r\n" + json.dumps(A).encode() + frame(B)
    got, junk = bodies(data)
    assert [json.loads(b)["id"] for b in got] == [2]
    assert any("refused Content-Length" in j for j in junk)


def test_a_body_without_a_header_is_skipped() -> None:
    got, junk = bodies(json.dumps(A).encode() + b"\r\n" + frame(B))
    assert [json.loads(b)["id"] for b in got] == [2] and junk


def test_a_short_length_costs_one_message() -> None:
    body = json.dumps(A).encode()
    data = b"Content-Length: 10\r\n\r\n" + body + frame(B)
    got, junk = bodies(data)
    assert got[0] == body[:10]  # answered as malformed JSON by the dispatcher
    assert json.loads(got[-1])["id"] == 2  # the header after the junk was found


def test_a_long_length_is_cut_at_a_stall_and_both_messages_arrive(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "STALL_S", 0.2)
    body = json.dumps(A).encode()
    data = b"Content-Length: 500\r\n\r\n" + body + frame(B)
    got, junk = bodies(data, eof=False, expect=2)  # a client waits for answers: no end
    assert [json.loads(b)["id"] for b in got] == [1, 2]
    assert any("stopped after" in j for j in junk)


class FakeProtocol:
    """Stands in for pygls's protocol to see what the dispatcher sends and hands on."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.handled: list[Any] = []
        self._shutdown = False

    def _send_data(self, data: dict[str, Any]) -> None:
        self.sent.append(data)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if data.get("method") == "workspace/symbol" and not isinstance(data["params"], dict):
            from pygls.exceptions import JsonRpcInvalidParams

            raise JsonRpcInvalidParams("query is required")
        return data

    def handle_message(self, message: Any) -> None:
        self.handled.append(message)


def dispatch(*raw: bytes, initialized: bool = True) -> FakeProtocol:
    protocol = FakeProtocol()
    dispatcher = Dispatcher(protocol)
    dispatcher.initialized = initialized
    for body in raw:
        dispatcher.handle(body)
    return protocol


def test_bad_bodies_get_errors_that_carry_their_id() -> None:
    p = dispatch(b'{"jsonrpc": "2.0", "id": 7, "method": "kebab/search", "params": {',
                 b'{"jsonrpc":"2.0","id":"x1","method":"kebab/status","params":"caf\xe9"}',
                 b'[{"jsonrpc": "2.0", "id": 3, "method": "kebab/status"}]',
                 b'{"id": 4, "method": "kebab/status"}',
                 b'{"jsonrpc": "2.0", "id": 5, "method": "workspace/symbol"}')
    assert [(m["id"], m["error"]["code"]) for m in p.sent] == [
        (7, -32700), ("x1", -32700), (None, -32600), (4, -32600), (5, -32602)]
    assert "not UTF-8" in p.sent[1]["error"]["message"]
    assert p.handled == []


def test_omitted_params_are_none_and_the_request_goes_through() -> None:
    p = dispatch(b'{"jsonrpc": "2.0", "id": 1, "method": "kebab/status"}')
    assert p.sent == [] and p.handled[0]["params"] is None


def test_requests_before_initialize_and_after_shutdown_are_refused() -> None:
    p = dispatch(b'{"jsonrpc": "2.0", "id": 1, "method": "kebab/status"}',
                 b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}',
                 initialized=False)
    assert [(m["id"], m["error"]["code"]) for m in p.sent] == [(1, -32002)]
    assert p.handled == []  # the early notification is dropped, as LSP says
    p = dispatch()
    p._shutdown = True
    Dispatcher(p).handle(b'{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}}')
    d = Dispatcher(p)
    d.initialized = True
    d.handle(b'{"jsonrpc": "2.0", "id": 3, "method": "kebab/status"}')
    d.handle(b'{"jsonrpc": "2.0", "method": "exit"}')
    assert (p.sent[-1]["id"], p.sent[-1]["error"]["code"]) == (3, -32600)
    assert p.handled[-1]["method"] == "exit"


def test_id_of_a_broken_body() -> None:
    assert id_of(b'{"jsonrpc": "2.0", "id": 12, "method": ') == 12
    assert id_of(b'{"id": "abc\\"d", ') == 'abc"d'
    assert id_of(b"garbage") is None
