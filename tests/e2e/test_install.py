"""The package as a user installs it: `python -m build` makes the sdist and, from that sdist,
the wheel; the wheel goes into a new virtualenv outside the checkout (pip: the local wheel,
its dependencies from the package index); then `kebab index`, `kebab search` and an LSP round
trip (initialize, workspace/symbol, shutdown) run from there.

What this proves: the grammars, the query files, the JSON schema and the embedding model all
install with the package (nothing is read from the checkout: the commands run in another
folder with only the network guard on PYTHONPATH), and nothing is downloaded at run time (the
guard refuses any connection that leaves the machine). Building and installing need the
package index, so those two steps run without the guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import jsonschema
import pytest

import kebab_lsp

REPO = Path(__file__).resolve().parents[2]
GUARD = REPO / "tests" / "offline_guard"
SAMPLE = REPO / "tests" / "fixtures" / "sample_repo"
VERSION = kebab_lsp.__version__

# Building and installing take a minute or two (more on a machine whose pip cache is empty).
pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.model,
              pytest.mark.timeout(900)]


def _online_env() -> dict[str, str]:
    """For building and installing: the package index must be reachable, so no guard, and
    nothing of the checkout's environment leaks into the new venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "HF_HUB_OFFLINE")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _installed_env(tmp: Path) -> dict[str, str]:
    """For running what was installed: the guard and nothing else on PYTHONPATH, a home and
    caches of its own."""
    env = _online_env()
    env.update(PYTHONPATH=str(GUARD), HOME=str(tmp / "home"),
               XDG_CACHE_HOME=str(tmp / "home" / ".cache"),
               KEBAB_INDEX_DIR=str(tmp / "index"), PYTHONDONTWRITEBYTECODE="1")
    return env


def _run(cmd: list[str], *, env: dict[str, str], cwd: Path, timeout: float
         ) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, (f"{' '.join(cmd)} exited {proc.returncode}\n"
                                  f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the venv's bin folder, a scratch folder outside the checkout)."""
    tmp = tmp_path_factory.mktemp("install")
    assert REPO not in tmp.parents
    dist = tmp / "dist"
    env = _online_env()
    started = time.monotonic()
    # sdist first, then the wheel built from the unpacked sdist: both must carry the data.
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], env=env, cwd=tmp,
         timeout=600)
    wheels = sorted(dist.glob(f"kebab_lsp-{VERSION}-py3-none-any.whl"))
    sdists = sorted(dist.glob(f"kebab_lsp-{VERSION}.tar.gz"))
    assert wheels and sdists, sorted(p.name for p in dist.iterdir())
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=env, cwd=tmp, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    _run([*pip, "-c", str(REPO / "constraints.txt"), str(wheels[0])], env=env, cwd=tmp,
         timeout=900)
    print(f"built and installed in {time.monotonic() - started:.0f} s; "
          f"wheel {wheels[0].stat().st_size / 1e3:.0f} kB, "
          f"sdist {sdists[0].stat().st_size / 1e3:.0f} kB")
    yield venv / "bin", tmp


def test_the_installed_package_reads_nothing_from_the_checkout(installed: tuple[Path, Path]
                                                                ) -> None:
    bin_dir, tmp = installed
    probe = ("import json, kebab_lsp, indexing, search, indexing.embed as e;"
             "from importlib.metadata import version;"
             "from importlib.resources import files;"
             "data = [files('indexing') / 'queries' / q.name"
             "        for q in (files('indexing') / 'queries').iterdir()]"
             " + [files('indexing') / 'languages.toml',"
             "    files('indexing') / 'embedding_model' / 'tokenizer.json',"
             "    files('kebab_lsp') / 'schema' / 'search.v1.json', e._bundled_weights()];"
             "print(json.dumps([version('kebab-lsp'), kebab_lsp.__file__, indexing.__file__,"
             " search.__file__, *[str(d) for d in data if d.is_file()]]))")
    out = _run([str(bin_dir / "python"), "-c", probe], env=_installed_env(tmp), cwd=tmp,
               timeout=60)
    installed_version, *files = json.loads(out.stdout)
    assert installed_version == VERSION
    venv = bin_dir.parent.resolve()
    for file in files:
        assert venv in Path(file).resolve().parents, file
    names = {Path(f).name for f in files}
    queries = {p.name for p in (REPO / "indexing" / "queries").iterdir()
               if p.suffix in (".scm", ".toml")}
    assert queries and queries <= names, queries - names
    assert {"languages.toml", "tokenizer.json", "search.v1.json", "model.onnx"} <= names


def test_kebab_index_and_search_from_the_install(installed: tuple[Path, Path]) -> None:
    bin_dir, tmp = installed
    ws = tmp / "ws-cli"
    _copy_sample(ws)
    env = _installed_env(tmp)
    indexed = _run([str(bin_dir / "kebab"), "index", str(ws), "--json"], env=env, cwd=tmp,
                   timeout=300)
    summary = json.loads(indexed.stdout)
    assert summary["new"] == 6 and summary["skipped"] == 0, summary
    # The bundled model embedded every chunk: the model came with the install.
    assert summary["embedding"]["embedded"] > 0, summary
    found = _run([str(bin_dir / "kebab"), "search", "user by id", str(ws), "--json", "-k", "5",
                  "--mode", "hybrid"], env=env, cwd=tmp, timeout=120)
    wire = json.loads(found.stdout)
    # The answer follows the schema the install carries.
    schema = bin_dir.parent.glob("lib/python3*/site-packages/kebab_lsp/schema/search.v1.json")
    jsonschema.validate(wire, json.loads(next(schema).read_text()))
    titles = [hit["title"] for hit in wire["hits"]]
    assert "UserStore.get_user_by_id" in titles, titles
    # hybrid fails outright when vectors cannot serve; no warning may blame the model either.
    assert not [w for w in wire["meta"]["warnings"] if "model" in w or "embed" in w], wire["meta"]
    version = _run([str(bin_dir / "kebab"), "--version"], env=env, cwd=tmp, timeout=60)
    assert version.stdout.strip() == f"kebab {VERSION}"


def test_lsp_round_trip_from_the_install(installed: tuple[Path, Path]) -> None:
    bin_dir, tmp = installed
    ws = tmp / "ws-lsp"
    _copy_sample(ws)
    proc = subprocess.Popen([str(bin_dir / "kebab-lsp")], env=_installed_env(tmp), cwd=tmp,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    try:
        client = _Client(proc.stdin, proc.stdout)
        init = client.request("initialize", {
            "processId": os.getpid(), "rootUri": ws.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": ws.as_uri(), "name": ws.name}],
            "initializationOptions": {"embed": False}})
        assert init["serverInfo"] == {"name": "kebab-lsp", "version": VERSION}
        client.notify("initialized", {})
        deadline = time.monotonic() + 60
        names: list[str] = []
        while time.monotonic() < deadline:
            symbols = client.request("workspace/symbol", {"query": "get_user_by_id"})
            names = [s["name"] for s in symbols or []]
            if "get_user_by_id" in names:
                break
            time.sleep(0.2)
        assert "get_user_by_id" in names, names
        hit = next(s for s in symbols if s["name"] == "get_user_by_id")
        assert hit["location"]["uri"] == (ws / "src" / "users" / "store.py").as_uri()
        assert client.request("shutdown", None) is None
        client.notify("exit", None)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr
        stderr = proc.stderr.read().decode(errors="replace")
        assert "Traceback" not in stderr, stderr


def _copy_sample(dest: Path) -> None:
    import shutil

    shutil.copytree(SAMPLE, dest)


class _Client:
    """The smallest LSP client: Content-Length framing, requests answered in order,
    notifications and server requests from the server read past."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.stdin, self.stdout, self.next_id = stdin, stdout, 0

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.stdin.flush()

    def _read(self) -> dict[str, Any]:
        length = 0
        while True:
            line = self.stdout.readline()
            assert line, "the server closed its output"
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        message: dict[str, Any] = json.loads(self.stdout.read(length))
        return message

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self._read()
            if "method" in message and "id" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") == self.next_id and "method" not in message:
                assert "error" not in message, message
                return message.get("result")
