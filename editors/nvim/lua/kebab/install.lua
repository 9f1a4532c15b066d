--- :KebabInstall: a private virtualenv under stdpath("data")/kebab/venv with the kebab-lsp
--- server installed from this plugin's own checkout (the repository the plugin lives in), so
--- the plugin finds its server without PATH or `cmd`. Made for a plugin manager's build step
--- (lazy.nvim: `build = ":KebabInstall"`), and safe to run again to upgrade.
---
--- Steps, each a job that does not block the editor: find a Python 3.11+, `python -m venv`,
--- `pip install --upgrade <checkout>` (its pinned dependencies from the package index; with
--- the checkout's constraints.txt when there is one). Output goes to
--- stdpath("data")/kebab/install.log. PYTHONPATH, PYTHONHOME and VIRTUAL_ENV are kept out of
--- every step, so the venv is built the same whatever shell Neovim was started from.

local M = {}

M.MIN_PYTHON = { 3, 11 }

--- true while an install runs; the result of the last one: { ok = bool, message = string }.
M.running = false
M.last = nil

local windows = vim.fn.has("win32") == 1

function M.dir()
  return vim.fs.normalize(vim.fn.stdpath("data") .. "/kebab")
end

function M.venv()
  return M.dir() .. "/venv"
end

function M.log_path()
  return M.dir() .. "/install.log"
end

--- A program in the private venv (nil if it is not there).
function M.venv_bin(name)
  local path = M.venv() .. (windows and ("/Scripts/" .. name .. ".exe") or ("/bin/" .. name))
  if vim.fn.executable(path) == 1 then
    return path
  end
end

--- The private server, when :KebabInstall has made it.
function M.server()
  return M.venv_bin("kebab-lsp")
end

--- The checkout this plugin lives in: this file is <root>/editors/nvim/lua/kebab/install.lua.
function M.source()
  local here = vim.fs.normalize(debug.getinfo(1, "S").source:sub(2))
  local root = vim.fn.fnamemodify(here, ":p:h:h:h:h:h")
  root = root:gsub("/$", "")
  if vim.fn.filereadable(root .. "/pyproject.toml") == 1 then
    return root
  end
end

--- The environment for every step: the user's, less what would leak another Python in.
local function clean_env()
  local env = vim.fn.environ()
  env.PYTHONPATH, env.PYTHONHOME, env.VIRTUAL_ENV, env.PIP_REQUIRE_VIRTUALENV = nil, nil, nil, nil
  return env
end

--- "3.11.7" -> { 3, 11, 7 }
local function parse_version(text)
  local parts = {}
  for n in tostring(text):gmatch("%d+") do
    parts[#parts + 1] = tonumber(n)
  end
  return parts
end

local function at_least(version, want)
  local v = parse_version(version)
  for i = 1, #want do
    local a, b = v[i] or 0, want[i]
    if a ~= b then
      return a > b
    end
  end
  return true
end
M.at_least = at_least

--- The version ("3.11.7") of a Python executable, or nil and why not.
function M.python_version(python)
  if vim.fn.executable(python) ~= 1 then
    return nil, "not found"
  end
  local ok, res = pcall(function()
    return vim.system({ python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])" },
      { text = true, env = clean_env(), clear_env = true }):wait(15000)
  end)
  if not ok or res.code ~= 0 then
    return nil, "does not run"
  end
  return vim.trim(res.stdout)
end

--- A Python 3.11+ to build the venv with: `opts.python`, else g:kebab_python, else the first
--- of python3.13, python3.12, python3.11, python3, python on PATH. Returns path, version; or
--- nil and a message saying what was tried.
function M.find_python(python)
  local candidates = python and { python }
    or (vim.g.kebab_python and { vim.g.kebab_python })
    or { "python3.13", "python3.12", "python3.11", "python3", "python" }
  local tried = {}
  for _, candidate in ipairs(candidates) do
    local version, why = M.python_version(candidate)
    if version and at_least(version, M.MIN_PYTHON) then
      return vim.fn.exepath(candidate), version
    end
    if version or #candidates == 1 then
      tried[#tried + 1] = ("%s: %s"):format(candidate, version or why)
    end
  end
  local seen = #tried > 0 and (" (" .. table.concat(tried, "; ") .. ")") or " on PATH"
  return nil, ("no Python 3.11 or newer%s: install one, or name it with `:KebabInstall /path/to/python3`"):format(seen)
end

local function notify(msg, level)
  vim.schedule(function()
    vim.notify("kebab: " .. msg, level or vim.log.levels.INFO, { title = "kebab" })
  end)
end

--- Run the install. opts: python (an interpreter to use), source (a checkout; default the
--- plugin's own), on_done(ok, message), wait (block until done, in ms; for scripts).
function M.install(opts)
  opts = opts or {}
  if M.running then
    notify("an install is already running (see " .. M.log_path() .. ")", vim.log.levels.WARN)
    return false
  end
  local source = opts.source or M.source()
  local function finish(ok, message)
    M.running = false
    M.last = { ok = ok, message = message }
    notify(message, ok and vim.log.levels.INFO or vim.log.levels.ERROR)
    if opts.on_done then
      vim.schedule(function()
        opts.on_done(ok, message)
      end)
    end
    if ok then
      vim.schedule(function()
        require("kebab")._installed()
      end)
    end
  end
  if not source then
    finish(false, "cannot find the kebab-lsp checkout this plugin belongs to (no pyproject.toml above editors/nvim)")
    return false
  end
  local python, version = M.find_python(opts.python)
  if not python then
    finish(false, "cannot install the server: " .. version)
    return false
  end

  M.running = true
  M.last, M.last_version = nil, nil
  vim.fn.mkdir(M.dir(), "p")
  local log = io.open(M.log_path(), "w")
  local function write(text)
    if log and text and text ~= "" then
      log:write(text)
      log:flush()
    end
  end
  write(("kebab: installing %s into %s with %s (Python %s)\n"):format(source, M.venv(), python, version))

  local venv_python = M.venv() .. (windows and "/Scripts/python.exe" or "/bin/python")
  local steps = {}
  local have, _ = M.python_version(venv_python)
  if not (have and at_least(have, M.MIN_PYTHON)) then
    steps[#steps + 1] = { "creating the venv", { python, "-m", "venv", "--clear", M.venv() } }
  end
  local pip = { venv_python, "-m", "pip", "install", "--disable-pip-version-check", "--upgrade" }
  if vim.fn.filereadable(source .. "/constraints.txt") == 1 then
    vim.list_extend(pip, { "-c", source .. "/constraints.txt" })
  end
  pip[#pip + 1] = source
  steps[#steps + 1] = { "installing kebab-lsp and its dependencies (a minute or two)", pip }
  steps[#steps + 1] = { "checking the server", { venv_python, "-m", "kebab_lsp.cli", "--version" } }

  notify(("installing the server into %s (log: %s)"):format(M.venv(), M.log_path()))
  local function run(i)
    local step = steps[i]
    if not step then
      if log then
        log:close()
      end
      local server = M.server()
      if not server then
        return finish(false, "the install ended without a kebab-lsp in " .. M.venv())
      end
      return finish(true, ("installed %s (Python %s): %s"):format(M.last_version or "kebab-lsp", version, server))
    end
    write(("\n$ %s\n"):format(table.concat(step[2], " ")))
    local ok, err = pcall(vim.system, step[2], {
      text = true,
      env = clean_env(),
      clear_env = true,
      stdout = function(_, data)
        write(data)
        if i == #steps and data and data:match("^kebab ") then
          M.last_version = vim.trim(data)
        end
      end,
      stderr = function(_, data)
        write(data)
      end,
    }, function(res)
      if res.code ~= 0 then
        if log then
          log:close()
        end
        return finish(false, ("%s failed (exit %d); see %s"):format(step[1], res.code, M.log_path()))
      end
      run(i + 1)
    end)
    if not ok then
      finish(false, ("%s failed: %s"):format(step[1], tostring(err)))
    end
  end
  run(1)
  if opts.wait then
    vim.wait(opts.wait, function()
      return not M.running
    end, 200)
  end
  return true
end

return M
