-- Headless spec: the lazy.nvim spec from README.md, run the way lazy.nvim runs it (the plugin
-- loaded and its `config` called, then its `build` command), installs the server into a
-- private venv under stdpath("data"); then, with no kebab-lsp on PATH and no `cmd`, a file is
-- opened, :KebabSearch finds and jumps, and :checkhealth kebab reports the private server.
--
-- Run by tests/editors/test_nvim.py (test_install_through_the_build_step), which gives it a
-- PATH without kebab-lsp and a data dir of its own. Needs the package index (pip).

local here = vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p")))
local H = dofile(here .. "/helpers.lua")
local repo = vim.fn.fnamemodify(here, ":h:h:h")

--- The lazy.nvim spec under "### Neovim (lazy.nvim)" in README.md, pointing at this checkout.
local function readme_spec()
  local lines = vim.fn.readfile(repo .. "/README.md")
  local code, inside, seen = {}, false, false
  for _, line in ipairs(lines) do
    if line:match("^### Neovim %(lazy%.nvim%)") then
      seen = true
    elseif seen and not inside and line == "```lua" then
      inside = true
    elseif inside and line == "```" then
      break
    elseif inside then
      code[#code + 1] = line
    end
  end
  H.truthy(#code > 0, "a lua block under '### Neovim (lazy.nvim)' in README.md")
  local text = table.concat(code, "\n"):gsub(",%s*$", "")
  local dir = text:match('dir = "([^"]+)"')
  H.truthy(dir, "the spec's dir in: " .. text)
  text = text:gsub('dir = "[^"]+"', ("dir = %q"):format(repo))
  local spec = assert(loadstring("return " .. text))()
  return spec, text
end

H.run(function()
  H.capture_notify()
  H.eq(vim.fn.exepath("kebab-lsp"), "", "kebab-lsp on PATH")

  local spec, text
  H.check("README's lazy.nvim spec builds the server into a private venv", function()
    spec, text = readme_spec()
    H.log("spec: " .. text)
    -- What lazy.nvim does for a plugin being built: load it (its dir on 'runtimepath', its
    -- `config`), then run `build`; a string starting with ":" is an Ex command.
    local plugin = vim.tbl_extend("force", spec, { name = "kebab-lsp" })
    vim.opt.runtimepath:append(plugin.dir)
    plugin.config(plugin, {})
    H.eq(type(spec.build), "string", "build")
    H.eq(spec.build:sub(1, 1), ":", "build is an Ex command")
    vim.api.nvim_cmd(vim.api.nvim_parse_cmd(spec.build:sub(2), {}), { output = true })
    local install = require("kebab.install")
    H.truthy(install.running, "the install runs in the background")
    H.wait(540000, function()
      return not install.running
    end, "the install to finish (log: " .. install.log_path() .. ")")
    if not (install.last and install.last.ok) then
      H.log(table.concat(vim.fn.readfile(install.log_path()), "\n"))
    end
    H.truthy(install.last and install.last.ok, "install result " .. vim.inspect(install.last))
    local venv = vim.fs.normalize(vim.fn.stdpath("data") .. "/kebab/venv")
    H.eq(install.server(), venv .. "/bin/kebab-lsp", "the private server")
    H.wait(5000, function()
      return H.find_note("installed kebab " .. require("kebab").MIN_SERVER_VERSION .. " (Python 3.",
        vim.log.levels.INFO)
    end, "a notification that it is installed")
  end)

  H.check("a file opened: the private server starts without PATH or cmd, :KebabSearch jumps", function()
    local ws = H.workspace()
    vim.cmd.cd(vim.fn.fnameescape(ws))
    vim.cmd.edit(vim.fn.fnameescape(ws .. "/docs/guide.md"))
    H.wait(20000, function()
      return vim.lsp.get_clients({ name = "kebab", bufnr = 0 })[1] ~= nil
    end, "the client to start")
    local client = vim.lsp.get_clients({ name = "kebab", bufnr = 0 })[1]
    H.eq(client.config.cmd, { require("kebab.install").server() }, "the command started")
    H.wait_indexed(0, 60000)
    H.eq(client.server_info and client.server_info.version, require("kebab").MIN_SERVER_VERSION, "serverInfo.version")
    local picked
    vim.ui.select = function(items, opts, on_choice)
      for i, item in ipairs(items) do
        if vim.startswith(opts.format_item(item), "app/users.py:16:5  parse_config (function)") then
          picked = opts.format_item(item)
          return on_choice(item, i)
        end
      end
      picked = vim.inspect(vim.tbl_map(opts.format_item, items))
      on_choice(nil)
    end
    vim.cmd("KebabSearch parse_config")
    H.wait(15000, function()
      return picked ~= nil
    end, "the picker")
    H.truthy(vim.startswith(picked, "app/users.py:16:5"), "picked " .. picked)
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == ws .. "/app/users.py"
    end, "the jump")
    H.eq(vim.api.nvim_win_get_cursor(0), { 16, 4 }, "cursor")
  end)

  H.check(":checkhealth kebab: Python, server and version, index, model", function()
    vim.cmd("checkhealth kebab")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    H.log(text)
    local server = require("kebab.install").server()
    H.truthy(text:find(("server: %s %s (from the private venv of :KebabInstall)"):format(
      server, require("kebab").MIN_SERVER_VERSION), 1, true), "the server line")
    local venv_python = vim.fs.dirname(server) .. "/python"
    H.truthy(text:find("Python 3%.1%d+%.%d+ %(" .. vim.pesc(venv_python)), "the Python line")
    H.truthy(text:find("index: " .. vim.env.KEBAB_INDEX_DIR, 1, true), "the index line")
    H.truthy(text:find("embedding model loads: all-MiniLM", 1, true), "the model line")
    H.truthy(not text:find("ERROR", 1, true), "no ERROR")
  end)
end, 600000)
