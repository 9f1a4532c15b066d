"""The suite runs with the network blocked; prove the guard is active here and in the
subprocesses the tests start (servers, CLI), and that loopback still works."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest


def test_guard_blocks_non_loopback_in_this_process() -> None:
    with pytest.raises(OSError, match="kebab test guard"):
        socket.create_connection(("192.0.2.1", 80), timeout=1)
    with pytest.raises(OSError, match="kebab test guard"):
        socket.getaddrinfo("pypi.org", 443)


def test_loopback_still_works() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname(), timeout=1)
    client.close()
    server.close()


def test_guard_is_active_in_subprocesses() -> None:
    code = ("import socket\n"
            "try:\n    socket.create_connection(('192.0.2.1', 80), timeout=1)\n"
            "except OSError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=30)
    assert "kebab test guard" in out.stdout
