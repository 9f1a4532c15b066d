"""LSP features as small classes, each declaring the methods it answers.

A feature never registers itself: `kebab_lsp.server.register_features` is the one place that
turns every feature's `handlers()` into pygls registrations, so the server's whole surface can
be read in one function and two features can both listen to a lifecycle notification.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

if TYPE_CHECKING:
    from kebab_lsp.server import KebabServer


@dataclass(frozen=True, slots=True)
class Handler:
    """One method a feature answers. `command` marks a `workspace/executeCommand` name."""

    method: str
    func: Callable[..., Any]
    options: Any = None
    command: bool = False


class Feature:
    """Base of every feature: holds the server and declares handlers."""

    def __init__(self, server: KebabServer) -> None:
        self.server = server

    def handlers(self) -> Iterable[Handler]:
        return ()


def invalid_params(message: str) -> JsonRpcInvalidParams:
    """A -32602 error whose message is ours, not a generic one."""
    return JsonRpcInvalidParams(message)


#: LSP's RequestFailed: the request was well formed, but the server cannot do what it asks.
REQUEST_FAILED = -32803


def request_failed(message: str) -> JsonRpcException:
    return JsonRpcException(message, code=REQUEST_FAILED)
