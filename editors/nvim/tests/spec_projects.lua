-- Headless spec: two projects open at once (one client each), commands run from windows that
-- show no file (quickfix, scratch), and answers the server marks as partial: still building,
-- degraded (no vectors). The REAL server, embeddings off (`embed = false`).
--
--   nvim --headless -n -u NONE --cmd 'set rtp^=editors/nvim' \
--        -c 'luafile editors/nvim/tests/spec_projects.lua'

local here = vim.fs.dirname(vim.fs.normalize(debug.getinfo(1, "S").source:sub(2)))
local H = dofile(here .. "/helpers.lua")

H.run(function()
  H.capture_notify()
  local kebab = require("kebab")
  -- The parent of both projects is the working directory: no root marker of its own, so a
  -- client started "for the working directory" would index both projects again.
  local parent = vim.fs.normalize(vim.fn.tempname() .. "-projects")
  local alpha, beta = parent .. "/alpha", parent .. "/beta"
  local function project(root, files)
    vim.fn.mkdir(root .. "/.git", "p")
    for rel, lines in pairs(files) do
      vim.fn.mkdir(vim.fs.dirname(root .. "/" .. rel), "p")
      vim.fn.writefile(lines, root .. "/" .. rel)
    end
  end
  project(alpha, {
    ["alpha.py"] = { "def alpha_only_function(x):", "    return x + 1", "" },
    ["more.py"] = { "from alpha import alpha_only_function", "", "def helper_in_alpha():",
      "    return alpha_only_function(2)", "" },
  })
  project(beta, {
    ["beta.py"] = { "def beta_only_function(y):", "    return y * 2", "" },
    ["more.py"] = { "from beta import beta_only_function", "", "def helper_in_beta():",
      "    return beta_only_function(3)", "" },
  })
  vim.cmd.cd(vim.fn.fnameescape(parent))
  kebab.setup({ init_options = { embed = false } })

  local function roots()
    local out = vim.tbl_map(function(c)
      return c.root_dir
    end, vim.lsp.get_clients({ name = "kebab" }))
    table.sort(out)
    return out
  end

  --- The projects (alpha, beta, or another folder) of the quickfix entries, sorted.
  local function qf_projects()
    local seen = {}
    for _, item in ipairs(vim.fn.getqflist()) do
      local name = vim.api.nvim_buf_get_name(item.bufnr)
      seen[vim.startswith(name, alpha .. "/") and alpha or vim.startswith(name, beta .. "/") and beta or name] = true
    end
    local out = vim.tbl_keys(seen)
    table.sort(out)
    return out
  end

  local function search_qf(query)
    vim.fn.setqflist({}, "r")
    vim.cmd("KebabSearch! " .. query)
    H.wait(10000, function()
      return #vim.fn.getqflist() > 0
    end, "quickfix entries for " .. query)
  end

  H.check("two projects: one client each", function()
    vim.cmd.edit(vim.fn.fnameescape(alpha .. "/alpha.py"))
    vim.cmd.split(vim.fn.fnameescape(beta .. "/beta.py"))
    H.wait(15000, function()
      return #vim.lsp.get_clients({ name = "kebab" }) == 2
    end, "two clients")
    H.eq(roots(), { alpha, beta }, "client roots")
    H.wait_indexed(vim.fn.bufnr(alpha .. "/alpha.py"), 20000)
    H.wait_indexed(vim.fn.bufnr(beta .. "/beta.py"), 20000)
  end)

  H.check(":KebabSearch! from the quickfix window asks the project of the window it came from", function()
    -- The cursor is in beta's window: the quickfix list gets beta's hits and the focus.
    search_qf("beta_only_function")
    H.eq(vim.bo.buftype, "quickfix", "the cursor is in the quickfix window")
    H.eq(qf_projects(), { beta }, "projects in quickfix")
    -- Again from the quickfix window: beta's client answers; no third client on the parent.
    search_qf("helper_in_beta")
    H.eq(vim.bo.buftype, "quickfix", "still in the quickfix window")
    H.eq(qf_projects(), { beta }, "projects in quickfix (beta's client answered)")
    H.eq(roots(), { alpha, beta }, "client roots")
    -- From alpha's window, then from the quickfix window opened over it: alpha answers.
    vim.cmd("cclose")
    vim.cmd.wincmd("j")
    H.eq(vim.api.nvim_buf_get_name(0), alpha .. "/alpha.py", "in alpha's window")
    search_qf("alpha_only_function")
    H.eq(vim.bo.buftype, "quickfix", "the cursor is in the quickfix window")
    H.eq(qf_projects(), { alpha }, "projects in quickfix")
    search_qf("helper_in_alpha")
    H.eq(qf_projects(), { alpha }, "projects in quickfix (alpha's client answered)")
    H.eq(roots(), { alpha, beta }, "client roots")
    vim.cmd("cclose")
  end)

  H.check("a window that tells no project: a clear 'which project?' error, no new server", function()
    vim.cmd("tabnew")
    vim.bo.buftype = "nofile"
    vim.cmd("file kebab-scratch")
    vim.cmd("enew") -- a new tab, nothing but scratch buffers: no previous window, no file
    local selected = false
    vim.ui.select = function()
      selected = true
    end
    local from = #H.notes + 1
    vim.cmd("KebabSearch beta_only_function")
    H.wait(5000, function()
      return H.find_note("which project?", vim.log.levels.ERROR, from) ~= nil
    end, "the error")
    local note = H.find_note("which project?", vim.log.levels.ERROR, from)
    H.truthy(note.msg:find(alpha .. ", " .. beta, 1, true), "names both projects: " .. note.msg)
    vim.wait(1000)
    H.eq(roots(), { alpha, beta }, "client roots")
    H.eq(selected, false, "no picker")
    vim.cmd("tabclose")
  end)

  H.check(":KebabSimilar shows the server's warnings (no vectors: answered lexically)", function()
    vim.cmd("silent! only")
    vim.cmd.edit(vim.fn.fnameescape(alpha .. "/alpha.py"))
    local got
    local restore = H.on_result(kebab, "similar", function(r)
      got = r
    end)
    vim.ui.select = function(_, _, on_choice)
      on_choice(nil)
    end
    local from = #H.notes + 1
    vim.cmd("1,2KebabSimilar")
    restore()
    H.wait(5000, function()
      return got ~= nil
    end, "a kebab/similar answer")
    H.truthy(#got.meta.warnings > 0, "the server sent warnings: " .. vim.inspect(got.meta))
    H.wait(2000, function()
      return H.find_note("kebab: " .. table.concat(got.meta.warnings, "; "), vim.log.levels.WARN, from) ~= nil
    end, "the warning notification (server sent " .. vim.inspect(got.meta.warnings) .. ")")
    H.truthy(H.find_note("embeddings are off", vim.log.levels.WARN, from), "the no-vectors warning")
  end)

  H.check(":KebabSymbols during the first index says the index is still building", function()
    -- A project big enough that its first index takes a while; the question comes at once.
    local big = parent .. "/big"
    vim.fn.mkdir(big .. "/.git", "p")
    for d = 1, 40 do
      vim.fn.mkdir(("%s/pkg%d"):format(big, d), "p")
      for f = 1, 100 do
        local lines = {}
        for i = 1, 10 do
          lines[#lines + 1] = ("def func_%d_%d_%d(value):"):format(d, f, i)
          lines[#lines + 1] = ("    return value + %d"):format(i)
        end
        vim.fn.writefile(lines, ("%s/pkg%d/mod%d.py"):format(big, d, f))
      end
    end
    vim.cmd("silent! only")
    vim.cmd.edit(vim.fn.fnameescape(big .. "/pkg1/mod1.py"))
    H.wait(15000, function()
      local c = vim.lsp.get_clients({ name = "kebab", bufnr = 0 })[1]
      return c and c.initialized
    end, "the big project's client")
    local from = #H.notes + 1
    vim.cmd("KebabSymbols no_such_symbol_anywhere")
    H.wait(10000, function()
      return H.find_note('no symbols match "no_such_symbol_anywhere"', vim.log.levels.INFO, from) ~= nil
    end, "the answer")
    local note = H.find_note('no symbols match "no_such_symbol_anywhere"', nil, from)
    H.eq(note.msg, 'kebab: no symbols match "no_such_symbol_anywhere" (index still building)', "message")
    -- Once built, the same answer has no note.
    H.wait_indexed(0, 40000)
    from = #H.notes + 1
    vim.cmd("KebabSymbols no_such_symbol_anywhere")
    H.wait(10000, function()
      return H.find_note('no symbols match "no_such_symbol_anywhere"', vim.log.levels.INFO, from) ~= nil
    end, "the answer after the index")
    note = H.find_note('no symbols match "no_such_symbol_anywhere"', nil, from)
    H.eq(note.msg, 'kebab: no symbols match "no_such_symbol_anywhere"', "message once built")
  end)
end, 90000)
