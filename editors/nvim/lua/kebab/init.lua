--- kebab.nvim: Neovim client for the kebab-lsp offline code-search server.
---
--- Public API:
---   require("kebab").setup(opts)        configure, define commands, autostart clients
---   require("kebab").search(query, opts) kebab/search -> picker -> jump
---   require("kebab").symbols(query, opts) workspace/symbol -> picker -> jump
---   require("kebab").show_status()      kebab/status summary via vim.notify
---   require("kebab").reindex()          workspace/executeCommand kebab.reindex
---   require("kebab").status()           statusline text, e.g. "kebab: indexing 40%"
---   require("kebab").client(bufnr)      the kebab client for a buffer (starting it if needed)

local util = require("kebab.util")

local M = {}

M.name = "kebab"

--- The oldest server this plugin works with (its serverInfo.version, from `initialize`).
M.MIN_SERVER_VERSION = "0.1.0"

M.defaults = {
  -- Command that starts the server (stdio). nil: the private server :KebabInstall made
  -- (stdpath("data")/kebab/venv), else `kebab-lsp` on PATH.
  cmd = nil,
  -- nil: start for every file buffer; a list: only for these filetypes.
  filetypes = nil,
  -- Start a client automatically when a matching buffer is opened (after setup()).
  autostart = true,
  -- Files/dirs marking a project root; the first ancestor holding one wins.
  root_markers = { ".git" },
  -- Fixed root (string) or function(bufnr) -> string|nil. Overrides root_markers.
  root_dir = nil,
  -- Sent as initializationOptions (see kebab_lsp/config.py: index_dir, exclude,
  -- max_file_bytes, workers, default_mode, default_k, symbol_limit, debounce_ms).
  init_options = {},
  -- Sent with workspace/didChangeConfiguration and answered to workspace/configuration,
  -- e.g. { kebab = { default_k = 20 } }.
  settings = {},
  -- Default kebab/search params; nil leaves the choice to the server's settings.
  search = { mode = nil, k = nil },
  -- vim.notify when the first index and each :KebabReindex rebuild finish (the progress of
  -- every run, including background embedding, goes to status() for a statusline).
  notify_progress = true,
  -- Extra client options passed through to vim.lsp.start.
  capabilities = nil,
  on_attach = nil,
  -- How long a command waits for a starting server to finish `initialize` (ms).
  start_timeout_ms = 15000,
}

M.config = vim.deepcopy(M.defaults)
M._setup_done = false

-- client_id -> { title, message, percentage } while an indexing run is in progress.
local progress = {}
-- client_id -> true once the client's first run was announced; client_id -> token of the run
-- whose end is announced (the first index, or the rebuild :KebabReindex asked for).
local announced, announce_token = {}, {}

local function notify(msg, level)
  vim.notify("kebab: " .. msg, level or vim.log.levels.INFO, { title = "kebab" })
end
M._notify = notify

-- ---------------------------------------------------------------------------------------
-- roots and clients
-- ---------------------------------------------------------------------------------------

local function normalize(path)
  if not path or path == "" then
    return nil
  end
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ":p"))
  if #path > 1 then
    path = path:gsub("/+$", "")
  end
  return path
end

local function is_file_buffer(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr)
    and vim.bo[bufnr].buftype == ""
    and vim.api.nvim_buf_get_name(bufnr) ~= ""
end

local function inside(path, root)
  return path == root or vim.startswith(path, root == "/" and "/" or root .. "/")
end

--- The project root for a buffer: `root_dir` if configured, else the nearest ancestor holding
--- one of `root_markers`, else the working directory when the file is under it, else the
--- file's own directory. Home and `/` are refused (nobody wants their home indexed).
function M.root_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local cfg = M.config
  local root
  if type(cfg.root_dir) == "function" then
    root = cfg.root_dir(bufnr)
  elseif type(cfg.root_dir) == "string" then
    root = cfg.root_dir
  else
    local name = is_file_buffer(bufnr) and normalize(vim.api.nvim_buf_get_name(bufnr)) or nil
    local cwd = normalize(vim.fn.getcwd())
    if name then
      root = vim.fs.root(name, cfg.root_markers)
      if not root then
        root = inside(name, cwd) and cwd or vim.fs.dirname(name)
      end
    else
      root = vim.fs.root(cwd, cfg.root_markers) or cwd
    end
  end
  root = normalize(root)
  if root == nil or root == "/" or root == normalize(vim.uv.os_homedir()) then
    return nil
  end
  return root
end

local function kebab_clients(filter)
  -- `_uninitialized`: 0.11 hides clients still in `initialize`; a starting client must be
  -- found (and reused) too, or a second one would start for the same root.
  filter = vim.tbl_extend("force", filter or {}, { name = M.name, _uninitialized = true })
  return vim.lsp.get_clients(filter)
end

--- Client capabilities: Neovim's defaults, the user's additions, and one pinned entry.
--- kebab-lsp reports every position in UTF-16 (its wire schema says so), while Neovim offers
--- utf-8 first and pygls would pick it; offering only utf-16 makes both sides agree, so jumps
--- land on the right byte after non-ASCII text.
function M.capabilities(extra)
  return vim.tbl_deep_extend(
    "force",
    vim.lsp.protocol.make_client_capabilities(),
    extra or {},
    { general = { positionEncodings = { "utf-16" } } }
  )
end

--- The server to start and where it came from: `cmd` from setup() ("cmd"), the private venv
--- of :KebabInstall ("venv"), or `kebab-lsp` on PATH ("path"). nil when there is none.
function M.server_cmd()
  if M.config.cmd ~= nil then
    return M.config.cmd, "cmd"
  end
  local private = require("kebab.install").server()
  if private then
    return { private }, "venv"
  end
  if vim.fn.executable("kebab-lsp") == 1 then
    return { "kebab-lsp" }, "path"
  end
  return nil, nil
end

-- Servers (command and version) already warned about being too old: once each per session.
local warned_versions = {}

--- Warn once when the server that answered `initialize` is older than this plugin needs.
local function check_version(client, result, source)
  local info = type(result) == "table" and type(result.serverInfo) == "table" and result.serverInfo or {}
  local version = info.version
  if type(version) == "string" and require("kebab.install").at_least(version, vim.tbl_map(tonumber,
    vim.split(M.MIN_SERVER_VERSION, ".", { plain = true }))) then
    return
  end
  local cmd = client.config and client.config.cmd
  local key = (type(cmd) == "table" and table.concat(cmd, " ") or tostring(cmd)) .. "@" .. tostring(version)
  if warned_versions[key] then
    return
  end
  warned_versions[key] = true
  local fix = source == "venv" and "run :KebabInstall to upgrade it"
    or ("run :KebabInstall (a private server from this plugin's checkout, used when `cmd` is not set), "
      .. "or reinstall yours from it: pipx install --force "
      .. (require("kebab.install").source() or "/path/to/kebab-lsp"))
  vim.schedule(function()
    notify(
      ("kebab-lsp %s is older than this plugin needs (%s or newer): %s"):format(
        type(version) == "string" and version or "(no version reported)",
        M.MIN_SERVER_VERSION,
        fix
      ),
      vim.log.levels.WARN
    )
  end)
end

local function start(root, bufnr, auto)
  local cfg = M.config
  local cmd, source = M.server_cmd()
  if cmd == nil then
    -- Autostart asks again for every file opened: it is told once (per install); a command
    -- the user runs is always answered.
    local installing = require("kebab.install").running
    if auto and M._missing_told == installing then
      return nil
    end
    M._missing_told = installing
    if installing then
      notify("the server is still being installed (:KebabInstall); it starts when that is done", vim.log.levels.WARN)
    else
      notify(
        "kebab-lsp is not installed: run :KebabInstall (a private copy under "
          .. require("kebab.install").dir()
          .. "), or put kebab-lsp on PATH, or set `cmd` in setup()",
        vim.log.levels.ERROR
      )
    end
    return nil
  end
  local exe = type(cmd) == "table" and cmd[1] or nil
  if exe and vim.fn.executable(exe) == 0 then
    -- Told once per command for autostart too (as a missing server is); a command the user
    -- runs is always answered.
    if auto and M._bad_cmd_told == exe then
      return nil
    end
    M._bad_cmd_told = exe
    notify(
      ("cannot start the server: %q is not executable (run :KebabInstall, or fix `cmd` in setup())"):format(exe),
      vim.log.levels.ERROR
    )
    return nil
  end
  local config = {
    name = M.name,
    cmd = cmd,
    on_init = function(client, result)
      check_version(client, result, source)
    end,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    -- An empty Lua table would go out as a JSON list; the server wants an object.
    init_options = next(cfg.init_options or {}) and cfg.init_options or vim.empty_dict(),
    settings = next(cfg.settings or {}) and cfg.settings or vim.empty_dict(),
    capabilities = M.capabilities(cfg.capabilities),
    on_attach = cfg.on_attach,
  }
  if bufnr and is_file_buffer(bufnr) then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  if util.has_011 then
    return vim.lsp.start(config, { attach = false })
  end
  return vim.lsp.start_client(config) -- Neovim 0.10: no `attach = false`
end

--- The kebab client already serving a file buffer: attached to it, or its root's, or one
--- whose root holds the file. nil when none does.
local function client_of_file(bufnr)
  local attached = kebab_clients({ bufnr = bufnr })[1]
  if attached then
    return attached
  end
  local root = M.root_for(bufnr)
  local all = kebab_clients()
  for _, c in ipairs(all) do
    if root and normalize(c.root_dir) == root then
      return c
    end
  end
  local name = normalize(vim.api.nvim_buf_get_name(bufnr))
  for _, c in ipairs(all) do
    local croot = normalize(c.root_dir)
    if croot and name and inside(name, croot) then
      return c
    end
  end
end

--- The file buffer a user came from to a quickfix, help or scratch buffer: the previous
--- window's, else the alternate buffer. nil when neither is a file.
local function origin_of(bufnr)
  if vim.api.nvim_get_current_buf() == bufnr then
    local prev = vim.fn.winnr("#")
    if prev > 0 and prev ~= vim.fn.winnr() then
      local buf = vim.fn.winbufnr(prev)
      if buf > 0 and is_file_buffer(buf) then
        return buf
      end
    end
    local alt = vim.fn.bufnr("#")
    if alt > 0 and alt ~= bufnr and is_file_buffer(alt) then
      return alt
    end
  end
end

--- The kebab client serving `bufnr` (0: current buffer). With `start` it is started when
--- missing (one client per root, reused). A buffer that is not a file (quickfix, help,
--- scratch) uses the client of the file it was reached from (previous window, alternate
--- buffer), else the project of the working directory or the only client; with several
--- projects open and none of these telling which, it fails naming them: a server is never
--- started on a folder the user did not open. Returns nil and explains why when there is none.
function M.client(bufnr, start_missing)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not is_file_buffer(bufnr) then
    local origin = origin_of(bufnr)
    if origin then
      return M.client(origin, start_missing)
    end
  end
  local found = is_file_buffer(bufnr) and client_of_file(bufnr) or kebab_clients({ bufnr = bufnr })[1]
  if found then
    return found
  end
  local root = M.root_for(bufnr)
  local all = kebab_clients()
  if not is_file_buffer(bufnr) then
    for _, c in ipairs(all) do
      if root and normalize(c.root_dir) == root then
        return c -- the project of the working directory
      end
    end
    if #all == 1 then
      return all[1] -- the only project open
    end
    if #all > 1 then
      if not start_missing then
        return nil
      end
      local roots = vim.tbl_map(function(c)
        return c.root_dir or "?"
      end, all)
      table.sort(roots)
      notify(
        ("which project? this buffer is not a file of one, and kebab serves %d: %s; run the command from a file of one (or :cd into it)")
          :format(#roots, table.concat(roots, ", ")),
        vim.log.levels.ERROR
      )
      return nil
    end
  end
  if not start_missing then
    return nil
  end
  if not root then
    notify(
      "no project root for this buffer (home or /); open a file in a project or set `root_dir`",
      vim.log.levels.ERROR
    )
    return nil
  end
  local id = start(root, bufnr)
  return id and vim.lsp.get_client_by_id(id) or nil
end

--- Run `fn(client)` once `client` has finished `initialize` (at once if it has).
local function when_ready(client, fn)
  if client.initialized then
    return util.safe(fn)(client)
  end
  local waited, step = 0, 50
  local timer = vim.uv.new_timer()
  timer:start(
    step,
    step,
    vim.schedule_wrap(function()
      waited = waited + step
      local stopped = util.is_stopped(client)
      if client.initialized or stopped or waited >= M.config.start_timeout_ms then
        timer:stop()
        if not timer:is_closing() then
          timer:close()
        end
        if client.initialized then
          util.safe(fn)(client)
        elseif stopped then
          notify("the server exited during start-up (see :LspLog)", vim.log.levels.ERROR)
        else
          notify("the server did not finish starting in time", vim.log.levels.ERROR)
        end
      end
    end)
  )
end

--- Send `method` to the buffer's kebab client (starting it if needed) and call
--- `on_result(result, client)` on success. RPC errors become one vim.notify error line.
function M.request(method, params, on_result, what)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr, true)
  if not client then
    return false
  end
  when_ready(client, function()
    local ok = util.request(client, method, params, function(err, result)
      if err then
        notify(("%s failed: %s"):format(what or method, util.format_error(err)), vim.log.levels.ERROR)
        return
      end
      util.safe(on_result)(result, client)
    end, bufnr)
    if not ok then
      notify(("%s failed: the server is not running"):format(what or method), vim.log.levels.ERROR)
    end
  end)
  return true
end

-- ---------------------------------------------------------------------------------------
-- pickers and jumps
-- ---------------------------------------------------------------------------------------

local function relpath(uri, client)
  local fname = vim.uri_to_fname(uri)
  local root = normalize(client and client.root_dir)
  if root and inside(fname, root) and fname ~= root then
    return fname:sub(#root + 2)
  end
  return vim.fn.fnamemodify(fname, ":~:.")
end

local function position(loc)
  local start_pos = loc.range and loc.range.start or { line = 0, character = 0 }
  return start_pos.line + 1, start_pos.character + 1
end

--- 1-based line and byte column of a Location's start: the column quickfix shows and the
--- cursor lands on. The server's columns are in the negotiated encoding (UTF-16), so the
--- line is read from its buffer if loaded, else from disk, without loading a buffer.
local function byte_position(loc, client)
  local lnum, col = position(loc)
  if loc.range then
    local fname = vim.uri_to_fname(loc.uri)
    local text
    local bufnr = vim.fn.bufnr(fname)
    if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
      text = vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1]
    elseif vim.fn.filereadable(fname) == 1 then
      text = vim.fn.readfile(fname, "", lnum)[lnum]
    end
    if text then
      col = util.byte_col(text, loc.range.start.character, client and client.offset_encoding or "utf-16") + 1
    end
  end
  return lnum, col
end

--- Where a result sends the cursor: a hit's `selection` (its best match) in its location's
--- document when the server sends one, else the location itself (workspace symbols).
function M.target(entry)
  if type(entry.selection) == "table" and entry.location then
    return { uri = entry.location.uri, range = entry.selection }
  end
  return entry.location
end

--- One picker line for a kebab/search hit: `path:line:col  title (kind)  snippet` (col in
--- bytes, as quickfix shows it).
function M.format_hit(hit, client)
  local line, col = byte_position(M.target(hit), client)
  local path = hit.path or relpath(hit.location.uri, client)
  local text = ("%s:%d:%d  %s (%s)"):format(path, line, col, util.one_line(hit.title), hit.kind or "?")
  local snippet = util.first_line(hit.snippet and hit.snippet.text)
  if snippet ~= "" and snippet ~= util.one_line(hit.title) then
    text = text .. "  " .. snippet
  end
  return text
end

--- One picker line for a workspace/symbol result: `path:line:col  name (Kind)  in container`.
function M.format_symbol(sym, client)
  local line, col = byte_position(sym.location, client)
  local text = ("%s:%d:%d  %s (%s)"):format(
    relpath(sym.location.uri, client),
    line,
    col,
    util.one_line(sym.name),
    vim.lsp.protocol.SymbolKind[sym.kind] or "Unknown"
  )
  if sym.containerName and sym.containerName ~= vim.NIL and sym.containerName ~= "" then
    text = text .. "  in " .. sym.containerName
  end
  return text
end

--- Jump to an LSP Location in the current window (jumplist and tagstack updated).
function M.jump(location, client)
  local ok = vim.lsp.util.show_document(location, client.offset_encoding or "utf-16", { focus = true })
  if not ok then
    notify("cannot open " .. tostring(location.uri), vim.log.levels.ERROR)
  end
  return ok
end

local function to_quickfix(title, entries, client, text_of)
  local items = {}
  for _, e in ipairs(entries) do
    local loc = M.target(e)
    local lnum, col = byte_position(loc, client)
    items[#items + 1] = { filename = vim.uri_to_fname(loc.uri), lnum = lnum, col = col, text = text_of(e) }
  end
  vim.fn.setqflist({}, " ", { title = title, items = items })
  vim.cmd("botright copen")
end

local function pick(entries, prompt, kind, format, client, on_pick)
  vim.ui.select(entries, {
    prompt = prompt,
    kind = kind,
    format_item = function(e)
      return format(e, client)
    end,
  }, function(choice)
    if choice then
      util.safe(on_pick)(choice)
    end
  end)
end

-- ---------------------------------------------------------------------------------------
-- kebab/search
-- ---------------------------------------------------------------------------------------

--- The count for a title or prompt when the answer holds fewer than all matches:
--- " (20 of 900)", " (20 of at least 900)" when the count is a lower bound, " (20 shown, more
--- matched)" when the server cut the answer short without a larger count; "" when complete.
function M.count_text(meta, shown)
  meta = type(meta) == "table" and meta or {}
  local total = tonumber(meta.total_matches)
  if total and total > shown then
    return (" (%d of %s%d)"):format(shown, meta.count_accuracy == "lower_bound" and "at least " or "", total)
  end
  if type(meta.recall) == "table" and meta.recall.truncated == true then
    return (" (%d shown, more matched)"):format(shown)
  end
  return ""
end

--- What a kebab/search, kebab/references or kebab/similar answer says of itself, read in one
--- place: its warnings are shown with vim.notify; returns the hits, the note for an empty
--- answer (" (index still building)") and the count for the title (M.count_text).
local function read_answer(result)
  local meta = type(result) == "table" and type(result.meta) == "table" and result.meta or {}
  local warnings = type(meta.warnings) == "table" and meta.warnings or {}
  if #warnings > 0 then
    notify(table.concat(warnings, "; "), vim.log.levels.WARN)
  end
  local hits = type(result) == "table" and type(result.hits) == "table" and result.hits or {}
  local building = type(meta.index) == "table" and meta.index.building == true
  return hits, building and " (index still building)" or "", M.count_text(meta, #hits), meta
end

--- Build kebab/search params from a query and options {mode, k, lang, kind, path_glob, explain}.
function M.search_params(query, opts)
  opts = opts or {}
  local params = { query = query }
  params.mode = opts.mode or M.config.search.mode
  params.k = opts.k or M.config.search.k
  if opts.explain ~= nil then
    params.explain = opts.explain
  end
  local filters = {}
  for _, key in ipairs({ "lang", "kind", "path_glob" }) do
    if opts[key] ~= nil then
      filters[key] = opts[key]
    end
  end
  if next(filters) then
    params.filters = filters
  end
  return params
end

--- Search and pick a hit to jump to. opts: mode, k, lang, kind, path_glob, explain,
--- quickfix (send every hit to the quickfix list instead of a picker),
--- on_result(result) (called with the raw response before showing anything).
function M.search(query, opts)
  opts = opts or {}
  if query == nil or query == "" then
    vim.ui.input({ prompt = "kebab search: " }, function(input)
      if input and input ~= "" then
        M.search(input, opts)
      end
    end)
    return
  end
  local params = M.search_params(query, opts)
  return M.request("kebab/search", params, function(result, client)
    if opts.on_result then
      opts.on_result(result)
    end
    local hits, building, count, meta = read_answer(result)
    if #hits == 0 then
      notify(("no results for %q%s"):format(query, building), vim.log.levels.INFO)
      return
    end
    if opts.quickfix then
      return to_quickfix("kebab search: " .. query .. count, hits, client, function(h)
        return util.one_line(h.title) .. " (" .. tostring(h.kind) .. ")"
      end)
    end
    local prompt = ("kebab: %s [%s]%s"):format(query, meta.mode or params.mode or "auto", count)
    pick(hits, prompt, "kebab_search", M.format_hit, client, function(hit)
      M.jump(M.target(hit), client)
    end)
  end, "kebab/search")
end

-- ---------------------------------------------------------------------------------------
-- kebab/references and kebab/similar
-- ---------------------------------------------------------------------------------------

local function show_hits(title, result, client, opts, none)
  if opts.on_result then
    opts.on_result(result)
  end
  local hits, building, count = read_answer(result)
  if #hits == 0 then
    notify(none .. building, vim.log.levels.INFO)
    return
  end
  title = title .. count
  if opts.quickfix then
    return to_quickfix(title, hits, client, function(h)
      local how = type(h.ref) == "table" and h.ref.kind or h.kind
      return util.one_line(h.title) .. " (" .. tostring(how) .. ")"
    end)
  end
  pick(hits, title, "kebab_search", M.format_hit, client, function(hit)
    M.jump(M.target(hit), client)
  end)
end

--- Usages of the name under the cursor (kebab/references), calls and imports first.
--- opts: k (default 100), quickfix, on_result(result).
function M.usages(opts)
  opts = opts or {}
  local client = M.client(vim.api.nvim_get_current_buf(), true)
  if not client then
    return false
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16")
  params.k = opts.k or 100
  local word = vim.fn.expand("<cword>")
  return M.request("kebab/references", params, function(result, c)
    show_hits("kebab usages: " .. word, result, c, opts, ("no usages of %q"):format(word))
  end, "kebab/references")
end

--- Code like lines `first`..`last` (1-based) of the current buffer (kebab/similar), the
--- lines themselves left out. opts: k, quickfix, on_result(result).
function M.similar(first, last, opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr, true)
  if not client then
    return false
  end
  local last_line = vim.api.nvim_buf_get_lines(bufnr, last - 1, last, false)[1] or ""
  local params = vim.lsp.util.make_given_range_params(
    { first, 0 }, { last, #last_line }, bufnr, client.offset_encoding or "utf-16")
  params.k = opts.k or M.config.search.k
  return M.request("kebab/similar", params, function(result, c)
    show_hits(("kebab similar: lines %d-%d"):format(first, last), result, c, opts,
      "no similar code found")
  end, "kebab/similar")
end

-- ---------------------------------------------------------------------------------------
-- workspace/symbol
-- ---------------------------------------------------------------------------------------

--- workspace/symbol and pick one to jump to. opts: quickfix, on_result(result).
function M.symbols(query, opts)
  opts = opts or {}
  if query == nil then
    vim.ui.input({ prompt = "kebab symbol: " }, function(input)
      if input then
        M.symbols(input, opts)
      end
    end)
    return
  end
  return M.request("workspace/symbol", { query = query }, function(result, client)
    if opts.on_result then
      opts.on_result(result)
    end
    local symbols = {}
    for _, s in ipairs(type(result) == "table" and result or {}) do
      if type(s.location) == "table" and s.location.uri then
        symbols[#symbols + 1] = s
      end
    end
    if #symbols == 0 then
      -- workspace/symbol carries no meta: whether the index is still building is asked.
      return M.building(client, function(building)
        notify(("no symbols match %q%s"):format(query, building and " (index still building)" or ""),
          vim.log.levels.INFO)
      end)
    end
    if opts.quickfix then
      return to_quickfix("kebab symbols: " .. query, symbols, client, function(s)
        return ("%s (%s)"):format(s.name, vim.lsp.protocol.SymbolKind[s.kind] or "?")
      end)
    end
    pick(symbols, ("kebab symbols: %s"):format(query), "kebab_symbols", M.format_symbol, client, function(sym)
      M.jump(sym.location, client)
    end)
  end, "workspace/symbol")
end

-- ---------------------------------------------------------------------------------------
-- status, reindex, progress
-- ---------------------------------------------------------------------------------------

--- Whether one of `client`'s $/progress runs is an index being built (the first index or a
--- rebuild; embedding does not count).
local function indexing_run(client)
  for _, run in pairs(progress[client.id] or {}) do
    local verb = type(run.title) == "string" and run.title:match("^(%a+)") or ""
    if verb == "Indexing" or verb == "Rebuilding" then
      return true
    end
  end
  return false
end

--- Call `fn(building)`: whether `client`'s index is still being built, as kebab/status says
--- (the server's own count of its work), else by its $/progress runs. Status first: a run's
--- end and a status answer are two messages, and the one read first must not decide.
function M.building(client, fn)
  local ok = util.request(client, "kebab/status", vim.empty_dict(), function(err, result)
    if err or type(result) ~= "table" then
      return util.safe(fn)(indexing_run(client))
    end
    util.safe(fn)(result.building == true)
  end)
  if not ok then
    fn(indexing_run(client))
  end
end

--- Human summary of a kebab/status response.
function M.format_status(result, client)
  local lines = {
    ("%s (root %s)"):format(result.building and "indexing" or "ready", client.root_dir or "?"),
  }
  for _, f in ipairs(type(result.folders) == "table" and result.folders or {}) do
    local line = ("  %s: %s files, %s symbols, %s chunks"):format(
      f.root or f.uri or "?",
      tostring(f.files),
      tostring(f.symbols),
      tostring(f.chunks)
    )
    if f.building and type(f.progress) == "table" then
      line = line .. (" (indexing %s%%)"):format(tostring(f.progress.percentage))
    end
    if f.index_dir then
      line = line .. "  index: " .. f.index_dir
    end
    lines[#lines + 1] = line
    -- Who keeps the index current, and how changes made outside Neovim reach it.
    if type(f.writer) == "table" and type(f.writer.changes) == "string" then
      lines[#lines + 1] = "    changes on disk: " .. f.writer.changes
    end
    for _, w in ipairs(type(f.warnings) == "table" and f.warnings or {}) do
      lines[#lines + 1] = "    warning: " .. tostring(w)
    end
  end
  return table.concat(lines, "\n")
end

function M.show_status(on_result)
  return M.request("kebab/status", vim.empty_dict(), function(result, client)
    if on_result then
      on_result(result)
    end
    notify(M.format_status(result, client), vim.log.levels.INFO)
  end, "kebab/status")
end

function M.reindex(on_result)
  return M.request(
    "workspace/executeCommand",
    { command = "kebab.reindex", arguments = {} },
    function(result, client)
      announced[client.id] = nil -- announce the end of this rebuild
      if on_result then
        on_result(result)
      end
      local queued = type(result) == "table" and type(result.queued) == "table" and result.queued or {}
      notify(("rebuilding %d folder(s) from scratch"):format(#queued), vim.log.levels.INFO)
    end,
    "kebab.reindex"
  )
end

--- Statusline text: "kebab: indexing 40%" while a run is in progress (the verb is the first
--- word of the server's progress title: indexing, rebuilding, embedding), "kebab" when a
--- client is running, "" otherwise. Cheap: no request is sent.
function M.status(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  -- Runs on every statusline redraw: string comparisons only, no root search on disk.
  local client = kebab_clients({ bufnr = bufnr })[1]
  if not client then
    local all = kebab_clients()
    local name = is_file_buffer(bufnr) and normalize(vim.api.nvim_buf_get_name(bufnr)) or nil
    for _, c in ipairs(all) do
      local croot = normalize(c.root_dir)
      if name and croot and inside(name, croot) then
        client = c
        break
      end
    end
    if not client and not name and #all == 1 then
      client = all[1]
    end
  end
  if not client then
    return ""
  end
  local latest
  for _, run in pairs(progress[client.id] or {}) do
    if not latest or run.seq > latest.seq then
      latest = run
    end
  end
  if not latest then
    return "kebab"
  end
  local verb = type(latest.title) == "string" and latest.title:match("^(%a+)") or nil
  verb = verb and verb:lower() or "indexing"
  if type(latest.percentage) == "number" then
    return ("kebab: %s %d%%"):format(verb, latest.percentage)
  end
  return "kebab: " .. verb
end

local seq = 0

local function on_progress(ev)
  local data = ev.data or {}
  local client = data.client_id and vim.lsp.get_client_by_id(data.client_id)
  if not client or client.name ~= M.name then
    return
  end
  local value = data.params and data.params.value
  if type(value) ~= "table" or not value.kind then
    return -- partial results, not work-done progress
  end
  local token = data.params.token
  local runs = progress[client.id] or {}
  progress[client.id] = runs
  if value.kind == "begin" then
    seq = seq + 1
    runs[token] = { title = value.title, message = value.message, percentage = value.percentage, seq = seq }
    if not announced[client.id] then
      announced[client.id] = true
      announce_token[client.id] = token
    end
  elseif value.kind == "report" then
    local run = runs[token]
    if run then
      run.message = value.message or run.message
      run.percentage = value.percentage or run.percentage
    end
  elseif value.kind == "end" then
    local run = runs[token]
    runs[token] = nil
    if announce_token[client.id] == token then
      announce_token[client.id] = nil
      if M.config.notify_progress then
        local title = run and run.title and (run.title .. ": ") or ""
        notify(title .. (value.message or "done"), vim.log.levels.INFO)
      end
    end
  end
  pcall(vim.cmd.redrawstatus)
end

-- ---------------------------------------------------------------------------------------
-- setup
-- ---------------------------------------------------------------------------------------

local group = vim.api.nvim_create_augroup("kebab", { clear = true })

vim.api.nvim_create_autocmd("LspProgress", { group = group, callback = on_progress })
vim.api.nvim_create_autocmd("LspDetach", {
  group = group,
  callback = function(ev)
    local id = ev.data and ev.data.client_id
    local client = id and vim.lsp.get_client_by_id(id)
    if client and util.is_stopped(client) then
      progress[id], announced[id], announce_token[id] = nil, nil, nil
    end
  end,
})

--- Called when :KebabInstall succeeded: start clients for the file buffers already open.
function M._installed()
  M._missing_told = nil
  if M._setup_done and M.config.autostart then
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) and is_file_buffer(bufnr) and not kebab_clients({ bufnr = bufnr })[1] then
        local ft = vim.bo[bufnr].filetype
        if not M.config.filetypes or vim.tbl_contains(M.config.filetypes, ft) then
          util.safe(M._autostart)(bufnr)
        end
      end
    end
  end
end

local function autostart(bufnr)
  if not is_file_buffer(bufnr) then
    return
  end
  local root = M.root_for(bufnr)
  if root then
    start(root, bufnr, true)
  end
end

function M.setup(opts)
  opts = vim.deepcopy(opts or {})
  local expected = {
    cmd = { "table", "function" },
    filetypes = "table",
    root_markers = "table",
    root_dir = { "string", "function" },
    init_options = "table",
    settings = "table",
    search = "table",
  }
  for key, want in pairs(expected) do
    local got = opts[key]
    want = type(want) == "table" and want or { want }
    if got ~= nil and not vim.tbl_contains(want, type(got)) then
      notify(
        ("setup(): `%s` must be a %s, got %s; using the default"):format(key, table.concat(want, " or "), type(got)),
        vim.log.levels.ERROR
      )
      opts[key] = nil
    end
  end
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts)
  -- Lists replace, they do not merge index by index.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers" }) do
    if opts[key] ~= nil then
      M.config[key] = opts[key]
    end
  end
  M._setup_done = true
  M._autostart = autostart
  require("kebab.commands").define()

  local auto = vim.api.nvim_create_augroup("kebab_autostart", { clear = true })
  if M.config.autostart then
    if M.config.filetypes then
      vim.api.nvim_create_autocmd("FileType", {
        group = auto,
        pattern = M.config.filetypes,
        callback = function(ev)
          util.safe(autostart)(ev.buf)
        end,
      })
    else
      vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
        group = auto,
        callback = function(ev)
          util.safe(autostart)(ev.buf)
        end,
      })
    end
    -- Buffers opened before setup() ran (lazy loading).
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) and is_file_buffer(bufnr) then
        local ft = vim.bo[bufnr].filetype
        if not M.config.filetypes or vim.tbl_contains(M.config.filetypes, ft) then
          util.safe(autostart)(bufnr)
        end
      end
    end
  end
  return M
end

return M
