"""Test-only network guard, loaded into every Python process of the test run (pytest itself
and every server or CLI subprocess, via PYTHONPATH).

kebab-lsp promises to work offline. With this guard, any attempt to resolve a non-local name
or connect a socket anywhere but loopback (or a Unix socket) raises at once, so a code path
that would reach the network fails the suite instead of passing quietly on a connected machine.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


class NetworkBlocked(OSError):
    pass


def _local_host(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    if str(host).lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family == getattr(socket, "AF_UNIX", None):
        return
    host = address[0] if isinstance(address, tuple) else address
    if not _local_host(host):
        raise NetworkBlocked(f"kebab test guard: network access to {address!r} is blocked")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check(self, address)
    _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check(self, address)
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _local_host(host):
        raise NetworkBlocked(f"kebab test guard: name lookup of {host!r} is blocked")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
socket.getaddrinfo = _guarded_getaddrinfo
