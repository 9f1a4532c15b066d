-- Headless end-to-end spec: the plugin's setup() starts the REAL kebab-lsp server on a small
-- real workspace, then every user-facing path is driven and its outcome asserted exactly.
--
--   nvim --headless -n -u NONE --cmd 'set rtp^=editors/nvim' \
--        -c 'luafile editors/nvim/tests/spec_plugin.lua'
--
-- Needs `kebab-lsp` on PATH (or KEBAB_LSP_CMD). Exits 0 when every check passed.

local here = vim.fs.dirname(vim.fs.normalize(debug.getinfo(1, "S").source:sub(2)))
local H = dofile(here .. "/helpers.lua")

H.run(function()
  H.capture_notify()
  local kebab = require("kebab")
  local ws = H.workspace()
  vim.cmd.cd(ws)
  H.log("workspace: " .. ws)

  local cmd = vim.env.KEBAB_LSP_CMD and { vim.env.KEBAB_LSP_CMD } or nil
  kebab.setup({ cmd = cmd, notify_progress = true })

  local users = ws .. "/app/users.py"
  local cafe = ws .. "/web/cafe.js"
  local client

  local function cursor()
    local pos = vim.api.nvim_win_get_cursor(0)
    return { vim.api.nvim_buf_get_name(0), pos[1], pos[2] }
  end

  local function reset_to(path)
    vim.cmd("silent! only")
    vim.cmd.edit(vim.fn.fnameescape(path))
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
  end

  --- Stub vim.ui.select: record the prompt and lines, choose the item `choose` returns.
  local picked
  local function stub_select(choose)
    picked = nil
    vim.ui.select = function(items, opts, on_choice)
      local lines = {}
      for i, item in ipairs(items) do
        lines[i] = opts.format_item and opts.format_item(item) or tostring(item)
      end
      picked = { prompt = opts.prompt, lines = lines, items = items }
      local index = choose(items, lines)
      picked.index = index
      on_choice(index and items[index] or nil, index)
    end
  end

  local function index_of(lines, needle)
    for i, l in ipairs(lines) do
      if vim.startswith(l, needle) then
        return i
      end
    end
  end

  H.check("setup() autostarts one client per root, reused across buffers", function()
    vim.cmd.edit(vim.fn.fnameescape(users))
    vim.cmd.edit(vim.fn.fnameescape(cafe))
    H.wait(15000, function()
      return #vim.lsp.get_clients({ name = "kebab", bufnr = 0 }) == 1
    end, "the kebab client to attach")
    local clients = vim.lsp.get_clients({ name = "kebab" })
    H.eq(#clients, 1, "kebab clients")
    client = clients[1]
    H.eq(client.root_dir, ws, "root_dir")
    H.wait(15000, function()
      return client.initialized
    end, "initialize")
    -- The server reports UTF-16 columns; the plugin pins the negotiation to match.
    H.eq(client.offset_encoding, "utf-16", "negotiated position encoding")
    local users_buf = vim.fn.bufnr(users)
    H.truthy(client.attached_buffers[users_buf], "app/users.py attached")
    H.eq(kebab.client(users_buf).id, client.id, "kebab.client(users.py)")
  end)

  H.check("indexing finishes: kebab/status, $/progress, status()", function()
    local status = H.wait_indexed(0, 20000)
    H.eq(status.folders[1].root, ws, "status root")
    H.eq(status.folders[1].files, 5, "files indexed")
    -- The first run's $/progress end is reported through vim.notify (notify_progress).
    H.wait(5000, function()
      return H.find_note("kebab: Indexing " .. vim.fs.basename(ws) .. ": 5 files, ", vim.log.levels.INFO) ~= nil
    end, "the progress end notification")
    H.eq(kebab.status(0), "kebab", "statusline text when idle")
  end)

  H.check("workspace/symbol returns the exact locations", function()
    local res = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "parse_config" }, 5000)
    local result = H.truthy(res and res[client.id] and res[client.id].result, "a result")
    local found
    for _, s in ipairs(result) do
      if s.name == "parse_config" and s.location.uri == vim.uri_from_fname(users) then
        found = s
      end
    end
    H.truthy(found, "parse_config in app/users.py among " .. vim.inspect(result))
    H.eq(found.kind, vim.lsp.protocol.SymbolKind.Function, "kind")
    H.eq(found.location.range.start, { line = 15, character = 0 }, "range.start")

    res = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "get_user_by_id" }, 5000)
    local first = res[client.id].result[1]
    H.eq(first.name, "get_user_by_id", "name")
    H.eq(first.containerName, "UserService", "containerName")
    H.eq(first.location.uri, vim.uri_from_fname(users), "uri")
    H.eq(first.location.range.start, { line = 8, character = 4 }, "range.start")

    -- After "é" and "☕" the server's UTF-16 column differs from the byte column.
    res = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "brewCoffee" }, 5000)
    first = res[client.id].result[1]
    H.eq(first.name, "brewCoffee", "name")
    H.eq(first.location.uri, vim.uri_from_fname(cafe), "uri")
    H.eq(first.location.range.start, { line = 1, character = 25 }, "range.start (UTF-16)")
  end)

  H.check(":KebabSearch <query> picks a hit and jumps to it", function()
    reset_to(cafe)
    stub_select(function(_, lines)
      return index_of(lines, "app/users.py:16:5  parse_config (function)")
    end)
    vim.cmd("KebabSearch parse_config")
    H.wait(5000, function()
      return picked ~= nil
    end, "the picker")
    H.truthy(picked.index, "the expected line among " .. vim.inspect(picked.lines))
    H.eq(picked.lines[picked.index], "app/users.py:16:5  parse_config (function)  def parse_config(path: str) -> dict:", "picker line")
    H.eq(picked.prompt, "kebab: parse_config [auto]", "prompt")
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == users
    end, "the jump to app/users.py")
    H.eq(cursor(), { users, 16, 4 }, "cursor (line, byte col)")
    H.eq({ vim.fn.line("."), vim.fn.col(".") }, { 16, 5 }, "line('.'), col('.')")
    -- The jump is in the jumplist: <C-o> goes back.
    vim.cmd('execute "normal! \\<C-o>"')
    H.eq(vim.api.nvim_buf_get_name(0), cafe, "buffer after <C-o>")
  end)

  H.check(":KebabSearch jumps to the right byte column after non-ASCII text", function()
    reset_to(users)
    stub_select(function(items)
      for i, hit in ipairs(items) do
        if hit.path == "web/cafe.js" and hit.symbol == "brewCoffee" then
          return i
        end
      end
    end)
    vim.cmd("KebabSearch brewCoffee")
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == cafe
    end, "the jump to web/cafe.js")
    local line = vim.api.nvim_buf_get_lines(0, 1, 2, false)[1]
    local byte = line:find("brewCoffee", 1, true) - 1
    H.eq(byte, 37, "byte column of brewCoffee in the fixture")
    local hit = picked.items[picked.index]
    H.eq(hit.selection.start, { line = 1, character = 34 }, "UTF-16 position from the server")
    H.eq(hit.location.range.start, { line = 1, character = 25 }, "the cited definition starts earlier")
    H.eq(cursor(), { cafe, 2, 37 }, "cursor")
    -- The picker shows the column the cursor lands on (and quickfix shows), not UTF-16's.
    H.truthy(vim.startswith(picked.lines[picked.index], "web/cafe.js:2:38  "),
      "picker line with the byte column: " .. picked.lines[picked.index])
  end)

  H.check(":KebabSearch with options (mode=lexical k=3 lang=python) and a prose query", function()
    reset_to(cafe)
    local got
    local restore = H.on_result(kebab, "search", function(r)
      got = r
    end)
    stub_select(function(items)
      for i, hit in ipairs(items) do
        if hit.path == "app/users.py" and hit.symbol == "parse_config" then
          return i
        end
      end
    end)
    local ok, err = pcall(vim.cmd, "KebabSearch mode=lexical k=3 lang=python YAML config file")
    restore()
    H.truthy(ok, "command ran: " .. tostring(err))
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == users
    end, "the jump to app/users.py")
    H.eq(got.meta.mode, "lexical", "meta.mode")
    H.truthy(#got.hits >= 1 and #got.hits <= 3, "1..3 hits")
    for _, hit in ipairs(got.hits) do
      H.eq(hit.lang, "python", "every hit's lang")
    end
    H.eq(picked.prompt, "kebab: YAML config file [lexical]", "prompt")
    -- A prose hit points at the first matched word: "YAML" in the docstring.
    H.eq(picked.items[picked.index].selection.start, { line = 16, character = 17 }, "hit position")
    H.eq(picked.lines[picked.index], 'app/users.py:17:18  parse_config (function)  """Reads the YAML config file."""', "picker line")
    H.eq(cursor(), { users, 17, 17 }, "cursor")
  end)

  H.check(":KebabSearch without a query prompts with vim.ui.input", function()
    reset_to(cafe)
    local prompted
    local orig_input = vim.ui.input
    vim.ui.input = function(opts, on_confirm)
      prompted = opts.prompt
      on_confirm("get_user_by_id")
    end
    stub_select(function(_, lines)
      return index_of(lines, "app/users.py:9:9  UserService.get_user_by_id (method)")
    end)
    vim.cmd("KebabSearch")
    vim.ui.input = orig_input
    H.eq(prompted, "kebab search: ", "input prompt")
    H.wait(5000, function()
      return picked ~= nil
    end, "the picker")
    H.truthy(picked.index, "the expected line among " .. vim.inspect(picked.lines))
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == users
    end, "the jump")
    H.eq(cursor(), { users, 9, 8 }, "cursor")
  end)

  H.check(":KebabUsages lists calls first and jumps to the chosen one", function()
    reset_to(users)
    vim.api.nvim_win_set_cursor(0, { 16, 6 }) -- on `parse_config` in its definition
    stub_select(function()
      return 1
    end)
    vim.cmd("KebabUsages")
    local test_users = ws .. "/tests/test_users.py"
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == test_users
    end, "the jump to tests/test_users.py")
    H.eq(picked.prompt, "kebab usages: parse_config", "prompt")
    H.eq(#picked.lines, 2, "the call and the import; the definition is not a usage")
    H.truthy(vim.startswith(picked.lines[1], "tests/test_users.py:5:12  test_parse_config (function)"),
      "the call first: " .. picked.lines[1])
    H.truthy(vim.startswith(picked.lines[2], "tests/test_users.py:1:23"), "then the import: " .. picked.lines[2])
    H.eq(picked.items[1].ref.kind, "call", "ref kind")
    H.eq(cursor(), { test_users, 5, 11 }, "cursor on the call")
  end)

  H.check(":[range]KebabSimilar leaves the range out", function()
    reset_to(users)
    local got
    local restore = H.on_result(kebab, "similar", function(r)
      got = r
    end)
    stub_select(function()
      return nil
    end)
    vim.cmd("9,10KebabSimilar")
    H.wait(5000, function()
      return got ~= nil
    end, "a kebab/similar answer")
    restore()
    H.eq(got.meta.intent.name, "similar", "intent")
    H.truthy(#got.hits > 0, "some hits")
    for _, hit in ipairs(got.hits) do
      local inside = hit.path == "app/users.py" and hit.lines.start <= 9 and hit.lines["end"] >= 8
      H.truthy(not inside, "the range itself is left out: " .. vim.inspect(hit.lines))
    end
  end)

  H.check(":KebabSimilar k=1 asks for one hit; a bad argument is one clear error", function()
    reset_to(users)
    local got
    local restore = H.on_result(kebab, "similar", function(r)
      got = r
    end)
    stub_select(function()
      return nil
    end)
    vim.cmd("9,10KebabSimilar k=1")
    H.wait(5000, function()
      return got ~= nil
    end, "a kebab/similar answer")
    restore()
    H.eq(#got.hits, 1, "hits")
    H.truthy(got.meta.total_matches > 1, "more matched than shown: " .. vim.inspect(got.meta))
    local from = #H.notes + 1
    vim.cmd("KebabSimilar 5")
    H.truthy(H.find_note('kebab: :KebabSimilar: unknown argument "5": :[range]KebabSimilar[!] [k=N]',
      vim.log.levels.ERROR, from), "the error among " .. vim.inspect(vim.list_slice(H.notes, from)))
  end)

  H.check(":KebabSearch! fills the quickfix list", function()
    reset_to(cafe)
    vim.fn.setqflist({}, "r")
    vim.cmd("KebabSearch! parse_config")
    H.wait(5000, function()
      return #vim.fn.getqflist() > 0
    end, "quickfix entries")
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    H.eq(qf.title, "kebab search: parse_config", "quickfix title")
    local entry
    for _, item in ipairs(qf.items) do
      if vim.api.nvim_buf_get_name(item.bufnr) == users and item.lnum == 16 then
        entry = item
      end
    end
    H.truthy(entry, "app/users.py:16 in " .. vim.inspect(qf.items))
    H.eq(entry.col, 5, "quickfix col")
    vim.cmd("cclose")
    -- A file not loaded in any buffer: the UTF-16 column is converted from the file on disk.
    vim.cmd("bwipeout! " .. vim.fn.fnameescape(cafe))
    vim.fn.setqflist({}, "r")
    vim.cmd("KebabSearch! brewCoffee")
    H.wait(5000, function()
      return #vim.fn.getqflist() > 0
    end, "quickfix entries")
    local first = vim.fn.getqflist()[1]
    H.eq(vim.api.nvim_buf_get_name(first.bufnr), cafe, "first entry file")
    H.eq({ first.lnum, first.col }, { 2, 38 }, "first entry lnum, byte col")
    vim.cmd("cclose")
  end)

  H.check("meta.warnings are shown with vim.notify", function()
    reset_to(cafe)
    local from = #H.notes + 1
    stub_select(function()
      return nil -- cancel
    end)
    vim.cmd([[KebabSearch mode=lexical parse_config zebra]])
    H.wait(5000, function()
      return H.find_note("contain every term", vim.log.levels.WARN, from) ~= nil
    end, "the warning notification")
    H.eq(vim.api.nvim_buf_get_name(0), cafe, "cancelled pick stays put")
  end)

  H.check(":KebabSymbols <name> picks a symbol and jumps to it", function()
    reset_to(cafe)
    stub_select(function(_, lines)
      return index_of(lines, "app/users.py:9:5  get_user_by_id (Method)")
    end)
    vim.cmd("KebabSymbols get_user_by_id")
    H.wait(5000, function()
      return picked ~= nil
    end, "the picker")
    H.truthy(picked.index, "the expected line among " .. vim.inspect(picked.lines))
    H.eq(picked.lines[picked.index], "app/users.py:9:5  get_user_by_id (Method)  in UserService", "picker line")
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == users
    end, "the jump")
    H.eq(cursor(), { users, 9, 4 }, "cursor")
  end)

  H.check(":KebabSymbols converts UTF-16 columns", function()
    reset_to(users)
    stub_select(function()
      return 1
    end)
    vim.cmd("KebabSymbols brewCoffee")
    H.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == cafe
    end, "the jump")
    local sym = picked.items[1]
    local want_line = vim.api.nvim_buf_get_lines(0, sym.location.range.start.line, sym.location.range.start.line + 1, false)[1]
    local want_col = vim.str_byteindex(want_line, "utf-16", sym.location.range.start.character, false)
    H.truthy(sym.location.range.start.character < want_col, "non-ASCII before the symbol")
    H.eq(cursor(), { cafe, 2, want_col }, "cursor")
    H.truthy(vim.startswith(picked.lines[1], ("web/cafe.js:2:%d  brewCoffee"):format(want_col + 1)),
      "picker line with the byte column: " .. picked.lines[1])
  end)

  H.check("vim.lsp.buf.workspace_symbol fills the quickfix list", function()
    reset_to(cafe)
    vim.fn.setqflist({}, "r")
    vim.lsp.buf.workspace_symbol("parse_config")
    H.wait(5000, function()
      return #vim.fn.getqflist() > 0
    end, "quickfix entries")
    local entry
    for _, item in ipairs(vim.fn.getqflist()) do
      if vim.api.nvim_buf_get_name(item.bufnr) == users and item.text:find("parse_config", 1, true) then
        entry = item
      end
    end
    H.truthy(entry, "parse_config entry in " .. vim.inspect(vim.fn.getqflist()))
    H.eq({ entry.lnum, entry.col }, { 16, 1 }, "lnum, col")
    H.truthy(entry.text:find("[Function]", 1, true), "kind in text: " .. entry.text)
    vim.cmd("cclose")
  end)

  H.check("bad requests show a notify error, never a Lua error", function()
    reset_to(cafe)
    vim.v.errmsg = ""
    local selected = false
    vim.ui.select = function()
      selected = true
    end
    local cases = {
      { "KebabSearch mode=bogus foo", "unknown mode 'bogus'" },
      { "KebabSearch k=lots foo", "'k' must be an integer" },
      { "KebabSearch kind=nope foo", "unknown kind(s) 'nope'" },
    }
    for _, case in ipairs(cases) do
      local from = #H.notes + 1
      local ok, err = pcall(vim.cmd, case[1])
      H.truthy(ok, case[1] .. " raised " .. tostring(err))
      H.wait(5000, function()
        return H.find_note("kebab: kebab/search failed: ", vim.log.levels.ERROR, from) ~= nil
      end, "the error notification for " .. case[1])
      local note = H.find_note("kebab: kebab/search failed: ", vim.log.levels.ERROR, from)
      H.truthy(note.msg:find(case[2], 1, true), "message names the problem: " .. note.msg)
      H.truthy(note.msg:find("(invalid params)", 1, true), "message names the error: " .. note.msg)
    end
    H.eq(selected, false, "no picker on error")
    H.eq(vim.v.errmsg, "", "v:errmsg")
    -- The server is still up and answering.
    local res = vim.lsp.buf_request_sync(0, "kebab/search", { query = "Barista" }, 5000)
    H.truthy(#res[client.id].result.hits > 0, "search after errors")
  end)

  H.check("an explicit filter with no value (lang=, kind=) is an error, not dropped", function()
    reset_to(cafe)
    local selected = false
    vim.ui.select = function()
      selected = true
    end
    for _, case in ipairs({ { "KebabSearch lang= parse_config", "`lang=` needs a value" },
                            { "KebabSearch kind=, parse_config", "`kind=,` needs a value" } }) do
      local from = #H.notes + 1
      local ok, err = pcall(vim.cmd, case[1])
      H.truthy(ok, case[1] .. " raised " .. tostring(err))
      local note = H.find_note("kebab: :KebabSearch: " .. case[2], vim.log.levels.ERROR, from)
      H.truthy(note, "the error for " .. case[1] .. " among " .. vim.inspect(vim.list_slice(H.notes, from)))
    end
    vim.wait(500)
    H.eq(selected, false, "no picker: nothing was searched")
  end)

  H.check("answers cut short say so: :KebabSearch k=1, :KebabUsages k=1 (prompt and title)", function()
    reset_to(users)
    local got
    local restore = H.on_result(kebab, "search", function(r)
      got = r
    end)
    stub_select(function()
      return nil
    end)
    vim.cmd("KebabSearch mode=lexical k=1 parse_config")
    H.wait(5000, function()
      return picked ~= nil
    end, "the picker")
    H.eq(#got.hits, 1, "hits")
    H.truthy(got.meta.total_matches > 1, "more matches than shown: " .. vim.inspect(got.meta))
    H.eq(picked.prompt, ("kebab: parse_config [lexical] (1 of %s%d)"):format(
      got.meta.count_accuracy == "lower_bound" and "at least " or "", got.meta.total_matches), "prompt")
    vim.fn.setqflist({}, "r")
    vim.cmd("KebabSearch! mode=lexical k=1 parse_config")
    restore()
    H.wait(5000, function()
      return #vim.fn.getqflist() > 0
    end, "quickfix entries")
    H.eq(vim.fn.getqflist({ title = 1 }).title, ("kebab search: parse_config (1 of %s%d)"):format(
      got.meta.count_accuracy == "lower_bound" and "at least " or "", got.meta.total_matches), "quickfix title")
    vim.cmd("cclose")
    -- Usages: 2 of them (the call, the import), k=1 asks for one.
    reset_to(users)
    vim.api.nvim_win_set_cursor(0, { 16, 6 })
    stub_select(function()
      return nil
    end)
    vim.cmd("KebabUsages k=1")
    H.wait(5000, function()
      return picked ~= nil
    end, "the usages picker")
    H.eq(#picked.lines, 1, "one usage shown")
    H.eq(picked.prompt, "kebab usages: parse_config (1 of 2)", "usages prompt")
    vim.fn.setqflist({}, "r")
    vim.cmd("KebabUsages! k=1")
    H.wait(5000, function()
      return #vim.fn.getqflist() > 0
    end, "usages in quickfix")
    H.eq(vim.fn.getqflist({ title = 1 }).title, "kebab usages: parse_config (1 of 2)", "usages quickfix title")
    vim.cmd("cclose")
    -- A bad argument is one clear error.
    local from = #H.notes + 1
    vim.cmd("KebabUsages 5")
    H.truthy(H.find_note('kebab: :KebabUsages: unknown argument "5": :KebabUsages[!] [k=N]', vim.log.levels.ERROR, from),
      "the error among " .. vim.inspect(vim.list_slice(H.notes, from)))
  end)

  H.check("no results is an info message, not a picker", function()
    local from = #H.notes + 1
    local selected = false
    vim.ui.select = function()
      selected = true
    end
    vim.cmd("KebabSearch zzqqxxnotthere")
    H.wait(5000, function()
      return H.find_note('no results for "zzqqxxnotthere"', vim.log.levels.INFO, from) ~= nil
    end, "the no-results message")
    H.eq(selected, false, "no picker")
  end)

  H.check(":KebabStatus prints a summary", function()
    local from = #H.notes + 1
    vim.cmd("KebabStatus")
    H.wait(5000, function()
      return H.find_note("kebab: ready (root " .. ws .. ")", vim.log.levels.INFO, from) ~= nil
    end, "the status message")
    local note = H.find_note("kebab: ready", nil, from)
    H.truthy(note.msg:find(ws .. ": 5 files, ", 1, true), "folder line: " .. note.msg)
    -- Neovim cannot report changes made outside it, so the server watches for them itself.
    H.truthy(note.msg:find("changes on disk: a watcher in this process: watching", 1, true),
      "writer line: " .. note.msg)
  end)

  H.check(":KebabReindex rebuilds, with $/progress shown by status()", function()
    local seen = {}
    local id = vim.api.nvim_create_autocmd("LspProgress", {
      callback = function(ev)
        local v = ev.data.params.value
        if type(v) == "table" and v.kind then
          -- status() is read after the plugin's own handler ran (it was registered first).
          table.insert(seen, { kind = v.kind, token = ev.data.params.token, title = v.title, status = kebab.status(0) })
        end
      end,
    })
    local from = #H.notes + 1
    vim.cmd("KebabReindex")
    H.wait(5000, function()
      return H.find_note("kebab: rebuilding 1 folder(s) from scratch", vim.log.levels.INFO, from) ~= nil
    end, "the reindex message")
    H.wait(20000, function()
      return H.find_note("kebab: Rebuilding " .. vim.fs.basename(ws) .. ": 5 files, ", vim.log.levels.INFO, from) ~= nil
    end, "the notification at the end of the rebuild")
    vim.api.nvim_del_autocmd(id)
    H.eq({ seen[1].kind, seen[1].title }, { "begin", "Rebuilding " .. vim.fs.basename(ws) }, "first progress")
    H.truthy(seen[1].status:match("^kebab: rebuilding %d+%%$"), "status() while rebuilding: " .. seen[1].status)
    local ended
    for _, e in ipairs(seen) do
      if e.kind == "end" and e.token == seen[1].token then
        ended = e
      end
    end
    H.truthy(ended, "the rebuild's end in " .. vim.inspect(seen))
    -- Embedding may follow the rebuild; once every run ended, status() is back to idle.
    H.wait(20000, function()
      return kebab.status(0) == "kebab"
    end, "status() back to idle (last: " .. kebab.status(0) .. ")")
    H.wait_indexed(0, 20000)
    local res = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "parse_config" }, 5000)
    H.truthy(#res[client.id].result > 0, "symbols after the rebuild")
  end)

  -- Neovim on Linux cannot register file watchers, so the server watches the folder itself:
  -- a file written behind the editor's back (git, a formatter) is found with no save at all.
  H.check("a file written outside Neovim is indexed without a save", function()
    local outside = ws .. "/app/outside.py"
    vim.fn.writefile({ "", "def arrived_from_outside():", "    return 7" }, outside)
    local found
    H.wait(20000, function()
      local res = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "arrived_from_outside" }, 2000)
      for _, s in ipairs(res and res[client.id] and res[client.id].result or {}) do
        if s.name == "arrived_from_outside" then
          found = s
        end
      end
      return found ~= nil
    end, "the symbol of a file written outside Neovim")
    H.eq(found.location.uri, vim.uri_from_fname(outside), "uri")
    H.eq(found.location.range.start, { line = 1, character = 0 }, "range.start")
  end)
end, 60000)
