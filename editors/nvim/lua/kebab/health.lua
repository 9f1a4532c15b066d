--- :checkhealth kebab: Neovim, the server and its version, the Python that runs it, where the
--- index lives, and whether the embedding model loads (asked of the server's own `kebab
--- doctor`, which loads the model and embeds one text).
local M = {}

--- stdout of `cmd` when it exits 0; else nil, why, and its stdout.
local function run(cmd, timeout)
  local ok, res = pcall(function()
    return vim.system(cmd, { text = true }):wait(timeout or 15000)
  end)
  if not ok then
    return nil, tostring(res)
  end
  if res.code ~= 0 then
    local err = vim.trim((res.stderr ~= "" and res.stderr or res.stdout) or "")
    err = err:gsub("\n.*", "")
    return nil, ("exit %s%s"):format(tostring(res.code), err ~= "" and (": " .. err) or ""), res.stdout
  end
  return vim.trim(res.stdout or "")
end

function M.check()
  local health = vim.health
  local kebab = require("kebab")
  local install = require("kebab.install")
  health.start("kebab")
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. tostring(vim.version()))
  else
    health.error("Neovim 0.10 or newer is required")
  end
  if not kebab._setup_done then
    health.info("setup() was not called: commands work, nothing autostarts")
  end

  -- The server: the one a client would start now.
  local cmd, source = kebab.server_cmd()
  local exe = type(cmd) == "table" and vim.fn.exepath(cmd[1]) or ""
  local from = ({ cmd = "`cmd` in setup()", venv = "the private venv of :KebabInstall", path = "PATH" })[source]
  if install.running then
    health.info("an install is running (:KebabInstall); log: " .. install.log_path())
  elseif install.last and not install.last.ok then
    health.error("the last :KebabInstall failed: " .. install.last.message)
  end
  if cmd == nil then
    health.error("no kebab-lsp server: not installed in " .. install.venv() .. ", none on PATH", {
      "run :KebabInstall (installs the server from this plugin's checkout into a private venv)",
      "or put kebab-lsp on PATH (pipx install /path/to/kebab-lsp), or set cmd in setup()",
    })
  elseif type(cmd) ~= "table" then
    health.info("server: started by a function given as `cmd`; nothing more to check")
  elseif exe == "" then
    health.error(("server %q (from %s) is not executable"):format(cmd[1], from), {
      "run :KebabInstall, or fix `cmd` in setup()",
    })
  else
    -- The whole command, as a client would start it, with --version added: its other
    -- arguments (`python -m ...`, a bad flag) are checked too, and the answer must be
    -- kebab-lsp's own ("kebab-lsp X.Y.Z"), not that of whatever cmd[1] is.
    local argv = vim.list_extend({ exe }, vim.list_slice(cmd, 2))
    local shown = table.concat(cmd, " ")
    local version, err = run(vim.list_extend(vim.deepcopy(argv), { "--version" }))
    local want = kebab.MIN_SERVER_VERSION
    local numbers = vim.tbl_map(tonumber, vim.split(want, ".", { plain = true }))
    local v = version and version:match("^kebab%-lsp%s+v?(%d+%.%d+%.%d+)")
    local fix = source == "cmd" and "fix `cmd` in setup() (e.g. { \"kebab-lsp\" }), or remove it to use :KebabInstall's server"
      or "run :KebabInstall"
    if not version then
      health.error(("server: `%s --version` fails (%s): the server cannot start (from %s)"):format(
        shown, tostring(err), from), { fix })
    elseif not v then
      health.error(("server: `%s --version` printed %q, not kebab-lsp's version: this command does not start kebab-lsp (from %s)")
        :format(shown, (version:gsub("\n.*", "")), from), { fix })
    elseif install.at_least(v, numbers) then
      health.ok(("server: %s %s (from %s)"):format(exe, v, from))
    else
      health.warn(("server: %s %s (from %s) is older than this plugin needs (%s or newer)"):format(
        exe, v, from, want), {
        source == "venv" and "run :KebabInstall to upgrade it"
          or ("run :KebabInstall, or reinstall it: pipx install --force " .. (install.source() or "/path/to/kebab-lsp")),
      })
    end
    -- `kebab` sits next to `kebab-lsp` in every install (pip, pipx, uv, :KebabInstall).
    local cli = vim.fs.dirname(exe) .. "/kebab"
    if vim.fn.executable(cli) ~= 1 then
      health.warn(("no `kebab` next to %s: Python, index and model are not checked"):format(exe))
    else
      local args = { cli, "doctor", "--json" }
      local opts = kebab.config.init_options or {}
      local index_dir = opts.index_dir or opts.indexDir
      if type(index_dir) == "string" and index_dir ~= "" then
        vim.list_extend(args, { "--index-dir", index_dir })
      end
      -- It exits 1 when the model does not load, and still reports everything.
      local out, derr, stdout = run(args, 120000)
      local ok, doctor = pcall(vim.json.decode, out or stdout or "")
      if not ok or type(doctor) ~= "table" then
        health.error("`kebab doctor` failed: " .. tostring(derr or out))
      else
        local py_ok = install.at_least(doctor.python_version or "0", install.MIN_PYTHON)
        local py = ("Python %s (%s)"):format(doctor.python_version, doctor.python)
        if py_ok then
          health.ok(py)
        else
          health.error(py .. ": the server needs Python 3.11 or newer", { "run :KebabInstall" })
        end
        local location = doctor.index_location or {}
        if location.ok == false then
          health.error("index: " .. doctor.cache_root .. " cannot be used: " .. tostring(location.error),
            { "make it writable, or set init_options.index_dir to a folder that is" })
        else
          health.ok("index: " .. doctor.cache_root .. " (one folder per workspace; `kebab cache list` shows them)")
        end
        local model = doctor.model or {}
        if model.ok then
          health.ok(("embedding model loads: %s (%.2f s)"):format(model.id, model.seconds or 0))
        else
          health.error("embedding model does not load: " .. tostring(model.error),
            { "vector and hybrid search are off; lexical search works" })
        end
      end
    end
  end

  local clients = vim.lsp.get_clients({ name = kebab.name })
  if #clients == 0 then
    health.info("no kebab client running")
  end
  for _, c in ipairs(clients) do
    local info = c.server_info or {}
    health.ok(("client %d: root %s, server %s"):format(c.id, tostring(c.root_dir), tostring(info.version or "?")))
  end
end

return M
