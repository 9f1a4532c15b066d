-- Headless spec: loading the plugin starts nothing; commands work without setup(), starting
-- the REAL server on demand from a scratch buffer; a missing server binary is one clear
-- error; `:KebabSearch` argument parsing.
--
--   nvim --headless -n -u NONE --cmd 'set rtp^=editors/nvim' \
--        -c 'luafile editors/nvim/tests/spec_lazy.lua'

local here = vim.fs.dirname(vim.fs.normalize(debug.getinfo(1, "S").source:sub(2)))
local H = dofile(here .. "/helpers.lua")

H.run(function()
  H.capture_notify()
  local ws = H.workspace()
  local users = ws .. "/app/users.py"

  H.check("plugin/kebab.lua defines the commands and starts nothing", function()
    vim.cmd("runtime plugin/kebab.lua") -- -u NONE does not load plugins by itself
    H.eq(vim.g.loaded_kebab, true, "g:loaded_kebab")
    for _, name in ipairs({ "KebabSearch", "KebabSymbols", "KebabStatus", "KebabReindex" }) do
      H.eq(vim.fn.exists(":" .. name), 2, name .. " defined")
    end
    vim.cmd.edit(vim.fn.fnameescape(users))
    vim.wait(300)
    H.eq(#vim.lsp.get_clients(), 0, "clients after opening a file without setup()")
    H.eq(vim.fn.exists("#kebab_autostart"), 0, "no autostart autocmds")
    H.eq(package.loaded["kebab"], nil, "kebab module not even loaded")
  end)

  H.check(":KebabSearch argument parsing", function()
    local parse = require("kebab.commands").parse_search_args
    local q, o = parse("mode=lexical k=5 lang=python,go kind=function path=src/** parse config")
    H.eq(q, "parse config", "query")
    H.eq(o, { mode = "lexical", k = 5, lang = { "python", "go" }, kind = "function", path_glob = "src/**" }, "opts")
    q, o = parse("x=1 mode=vector")
    H.eq(q, "x=1 mode=vector", "unknown key starts the query")
    H.eq(o, {}, "no opts")
    q, o = parse("  ")
    H.eq({ q, o }, { "", {} }, "empty")
    q, o = parse("k=many foo")
    H.eq(o.k, "many", "a bad k is passed on for the server to reject")
    local params = require("kebab").search_params("foo", { lang = "python", k = 2 })
    H.eq(params, { query = "foo", k = 2, filters = { lang = "python" } }, "params")
  end)

  H.check(":KebabSymbols without setup() starts the server from a scratch buffer", function()
    vim.cmd.cd(vim.fn.fnameescape(ws))
    vim.cmd("enew")
    local picked
    vim.ui.select = function(items, opts, on_choice)
      for i, item in ipairs(items) do
        local line = opts.format_item(item)
        if vim.startswith(line, "app/users.py:16:1  parse_config (Function)") then
          picked = line
          return on_choice(item, i)
        end
      end
      picked = vim.inspect(vim.tbl_map(opts.format_item, items))
      on_choice(nil)
    end
    vim.cmd("KebabSymbols parse_config")
    H.wait(15000, function()
      return #vim.lsp.get_clients({ name = "kebab" }) == 1
    end, "the client to start")
    local client = vim.lsp.get_clients({ name = "kebab" })[1]
    H.eq(client.root_dir, ws, "root from cwd's .git")
    -- The first answer may come before the index is complete: wait for it, then ask again.
    H.wait(20000, function()
      local done
      client:request("kebab/status", vim.empty_dict(), function(_, r)
        done = r and r.building == false and r.folders[1] and r.folders[1].files == 5
      end)
      vim.wait(1000, function()
        return done ~= nil
      end, 10)
      return done
    end, "indexing")
    picked = nil
    vim.cmd("KebabSymbols parse_config")
    H.wait(5000, function()
      return picked ~= nil
    end, "the picker")
    H.truthy(vim.startswith(picked, "app/users.py:16:1"), "picked " .. picked)
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == users
    end, "the jump")
    H.eq(vim.api.nvim_win_get_cursor(0), { 16, 0 }, "cursor")
    H.eq(require("kebab").status(0), "kebab", "status() for the jumped-to buffer")
  end)

  H.check("a missing server binary is one clear error", function()
    local other = vim.fn.tempname() .. "-other"
    vim.fn.mkdir(other .. "/.git", "p")
    vim.fn.writefile({ "x = 1" }, other .. "/x.py")
    require("kebab").setup({ cmd = { "definitely-not-kebab-lsp" }, autostart = false })
    vim.cmd.edit(vim.fn.fnameescape(other .. "/x.py"))
    vim.v.errmsg = ""
    local from = #H.notes + 1
    local ok, err = pcall(vim.cmd, "KebabSearch foo")
    H.truthy(ok, "command raised " .. tostring(err))
    local note = H.find_note('"definitely-not-kebab-lsp" is not executable', vim.log.levels.ERROR, from)
    H.truthy(note, "error notification among " .. vim.inspect(H.notes))
    H.eq(vim.v.errmsg, "", "v:errmsg")
    H.eq(#vim.lsp.get_clients({ name = "kebab" }), 1, "no second client")
  end)

  H.check("a `cmd` that is not executable: autostart tells once, a command always", function()
    local proj = vim.fn.tempname() .. "-typo"
    vim.fn.mkdir(proj .. "/.git", "p")
    for i = 1, 3 do
      vim.fn.writefile({ ("x%d = %d"):format(i, i) }, ("%s/f%d.py"):format(proj, i))
    end
    -- setup() autostarts for the files already open, then for each file opened.
    local from = #H.notes + 1
    require("kebab").setup({ cmd = { "kebab-lsp-typo" } })
    for i = 1, 3 do
      vim.cmd.edit(vim.fn.fnameescape(("%s/f%d.py"):format(proj, i)))
    end
    local told = 0
    for i = from, #H.notes do
      if H.notes[i].msg:find('"kebab-lsp-typo" is not executable', 1, true) then
        told = told + 1
      end
    end
    H.eq(told, 1, "errors for setup() and 3 files opened")
    from = #H.notes + 1
    vim.cmd("KebabStatus")
    H.truthy(H.find_note('"kebab-lsp-typo" is not executable', vim.log.levels.ERROR, from), "the command's error")
    require("kebab").setup({ autostart = false })
  end)

  H.check("setup() rejects bad option types without throwing", function()
    local from = #H.notes + 1
    local ok = pcall(require("kebab").setup, { cmd = "kebab-lsp", autostart = false })
    H.truthy(ok, "setup did not throw")
    H.truthy(H.find_note("`cmd` must be a table", vim.log.levels.ERROR, from), "error notification")
    H.eq(require("kebab").config.cmd, nil, "default cmd kept (nil: the private venv, else PATH)")
  end)
  H.check(":checkhealth kebab reports the server and the running client", function()
    require("kebab").setup({ autostart = false })
    vim.cmd("checkhealth kebab")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    H.truthy(text:find("server: " .. vim.fn.exepath("kebab-lsp"), 1, true), "server line in:\n" .. text)
    H.truthy(text:find("root " .. ws, 1, true), "client line in:\n" .. text)
    H.truthy(not text:find("ERROR", 1, true), "no ERROR in:\n" .. text)
    H.truthy(text:find("from PATH", 1, true), "where the server came from, in:\n" .. text)
    H.truthy(text:find("Python 3%.1%d+%.%d+ %("), "the Python line in:\n" .. text)
    H.truthy(text:find("index: " .. vim.env.KEBAB_INDEX_DIR, 1, true), "the index line in:\n" .. text)
    H.truthy(text:find("embedding model loads: ", 1, true), "the model line in:\n" .. text)
  end)

  H.check(":checkhealth kebab: an index location that cannot be written is an ERROR", function()
    -- The real server and CLI, through wrappers that drop root's power to write anything
    -- (as the CLI's own tests do), so that a read-only cache folder is one.
    local bin = vim.fn.tempname() .. "-bin"
    vim.fn.mkdir(bin, "p")
    local drop = "if [ \"$(id -u)\" = 0 ]; then set -- setpriv --bounding-set -dac_override,-dac_read_search"
      .. " --inh-caps -dac_override,-dac_read_search -- \"$@\"; fi"
    for _, name in ipairs({ "kebab-lsp", "kebab" }) do
      vim.fn.writefile({ "#!/bin/sh", "set -- " .. vim.fn.shellescape(vim.fn.exepath(name)) .. " \"$@\"",
        drop, "exec \"$@\"" }, bin .. "/" .. name)
      vim.fn.setfperm(bin .. "/" .. name, "rwxr-xr-x")
    end
    require("kebab").setup({ cmd = { bin .. "/kebab-lsp" }, autostart = false })
    local cache = vim.fn.tempname() .. "-ro-cache"
    vim.fn.mkdir(cache, "p")
    vim.fn.setfperm(cache, "r-xr-xr-x")
    local saved = { xdg = vim.env.XDG_CACHE_HOME, index = vim.env.KEBAB_INDEX_DIR }
    vim.env.XDG_CACHE_HOME, vim.env.KEBAB_INDEX_DIR = cache, nil
    vim.cmd("checkhealth kebab")
    vim.env.XDG_CACHE_HOME, vim.env.KEBAB_INDEX_DIR = saved.xdg, saved.index
    vim.fn.setfperm(cache, "rwxr-xr-x")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    vim.cmd("bwipeout!")
    require("kebab").setup({ autostart = false })
    H.truthy(text:find("ERROR index: " .. cache .. "/kebab-lsp cannot be used: " .. cache .. " cannot be written", 1, true),
      "the index ERROR in:\n" .. text)
    H.truthy(not text:find("OK index:", 1, true), "no OK index line in:\n" .. text)
  end)

  H.check(":checkhealth kebab runs the whole `cmd`: one that cannot start kebab-lsp is an ERROR", function()
    local python = vim.env.KEBAB_TEST_PYTHON
    local cases = {
      -- cmd[1] runs, the rest fails: no such module.
      { { python, "-m", "kebab_lsp.no_such_module" }, "kebab_lsp.no_such_module --version` fails (exit 1" },
      -- It runs and answers, but it is Python, not kebab-lsp.
      { { python }, "printed \"Python 3." },
    }
    for _, case in ipairs(cases) do
      require("kebab").setup({ cmd = case[1], autostart = false })
      vim.cmd("checkhealth kebab")
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
      vim.cmd("bwipeout!")
      H.truthy(text:find(case[2], 1, true), "the reason (" .. case[2] .. ") in:\n" .. text)
      H.truthy(text:find("ERROR server: `" .. table.concat(case[1], " "), 1, true), "an ERROR naming the cmd in:\n" .. text)
      H.truthy(not text:find("OK server:", 1, true), "no OK server line in:\n" .. text)
    end
    -- A cmd with arguments that does start kebab-lsp is OK.
    local version = vim.trim(vim.fn.system({ "kebab-lsp", "--version" })):match("^kebab%-lsp (%S+)$")
    require("kebab").setup({ cmd = { python, "-c", "from kebab_lsp.cli import serve_main; serve_main()" }, autostart = false })
    vim.cmd("checkhealth kebab")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    vim.cmd("bwipeout!")
    H.truthy(text:find("OK server: " .. python .. " " .. H.truthy(version, "kebab-lsp --version"), 1, true), "OK server line in:\n" .. text)
    require("kebab").setup({ autostart = false })
  end)

  H.check("a server older than the plugin needs: one warning with the upgrade command", function()
    -- The real server, told to report an old version.
    local old = vim.fn.tempname() .. "-old-kebab-lsp"
    local code = "import kebab_lsp; kebab_lsp.__version__ = '0.0.1'; "
      .. "from kebab_lsp.cli import serve_main; serve_main()"
    vim.fn.writefile({ "#!/bin/sh", ("exec %s -c %s \"$@\""):format(
      vim.fn.shellescape(vim.env.KEBAB_TEST_PYTHON), vim.fn.shellescape(code)) }, old)
    vim.fn.setfperm(old, "rwxr-xr-x")
    local proj = vim.fn.tempname() .. "-oldproj"
    vim.fn.mkdir(proj .. "/.git", "p")
    vim.fn.writefile({ "def old_server(): pass" }, proj .. "/x.py")
    require("kebab").setup({ cmd = { old }, autostart = false })
    vim.cmd.edit(vim.fn.fnameescape(proj .. "/x.py"))
    local from = #H.notes + 1
    vim.cmd("KebabStatus")
    H.wait(20000, function()
      return H.find_note("(root " .. proj, nil, from)
    end, "the status answer")
    local note = H.find_note("is older than this plugin needs", vim.log.levels.WARN, from)
    H.truthy(note, "a warning among " .. vim.inspect(H.notes))
    H.truthy(note.msg:find("kebab-lsp 0.0.1 is older than this plugin needs (0.1.0 or newer)", 1, true), note.msg)
    H.truthy(note.msg:find(":KebabInstall", 1, true) and note.msg:find("pipx install --force /", 1, true), note.msg)
    -- The same server again: no second warning.
    local client = vim.lsp.get_clients({ name = "kebab", bufnr = 0 })[1]
    vim.lsp.stop_client(client.id)
    H.wait(10000, function()
      return #vim.lsp.get_clients({ name = "kebab", bufnr = 0 }) == 0
    end, "the client to stop")
    local again = #H.notes + 1
    vim.cmd("KebabStatus")
    H.wait(20000, function()
      return H.find_note("(root " .. proj, nil, again)
    end, "the second status answer")
    H.eq(H.find_note("is older than", nil, again), nil, "a second warning")
  end)
end, 60000)
