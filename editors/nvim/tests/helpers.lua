--- Shared by the headless specs and the tmux init: a tiny test runner that always ends Neovim
--- (`qall!` when everything passed, `cquit 1` otherwise), the fixture workspace, and waits.
---
--- Failures and the closing "N passed, N failed" line go to stderr. Real server, real
--- Neovim: nothing is mocked except the UI prompts a headless Neovim cannot answer.

local H = {}

H.passed = 0
H.failed = 0
H.notes = {} -- every vim.notify call: { msg = , level = }

local function log(s)
  io.stderr:write(s .. "\n")
end
H.log = log

-- The fixture workspace. Lines and columns asserted by the specs are derived from these.
H.FILES = {
  ["app/users.py"] = table.concat({
    '"""User lookups."""',
    "",
    "MAX_USERS = 100",
    "",
    "",
    "class UserService:",
    '    """Finds users."""',
    "",
    "    def get_user_by_id(self, user_id: int) -> dict:",
    '        return {"id": user_id}',
    "",
    "    def delete_user(self, user_id: int) -> None:",
    "        pass",
    "",
    "",
    "def parse_config(path: str) -> dict:",
    '    """Reads the YAML config file."""',
    "    return {}",
    "",
  }, "\n"),
  ["tests/test_users.py"] = table.concat({
    "from app.users import parse_config",
    "",
    "",
    "def test_parse_config():",
    '    assert parse_config("x") == {}',
    "",
  }, "\n"),
  -- Non-ASCII before the definition: LSP columns are UTF-16, Neovim's are bytes.
  ["web/cafe.js"] = table.concat({
    "// Café helpers.",
    'const café = "☕"; export function brewCoffee(cups) { return cups; }',
    "",
    "export class Barista {",
    "  pour(cup) {",
    "    return cup;",
    "  }",
    "}",
    "",
  }, "\n"),
  ["svc/server.go"] = table.concat({
    "package svc",
    "",
    "type Server struct {",
    "\tPort int",
    "}",
    "",
    "func NewServer(port int) *Server {",
    "\treturn &Server{Port: port}",
    "}",
    "",
  }, "\n"),
  ["docs/guide.md"] = table.concat({
    "# Guide",
    "",
    "## Installing",
    "",
    "Run the installer and configure the retry policy.",
    "",
  }, "\n"),
}

--- Make relative 'runtimepath' entries (`set rtp^=editors/nvim`) absolute, so a spec can
--- :cd into its workspace and still `require` the plugin's modules.
function H.absolute_rtp()
  local entries = {}
  for _, p in ipairs(vim.opt.runtimepath:get()) do
    entries[#entries + 1] = vim.fn.fnamemodify(p, ":p"):gsub("/$", "")
  end
  vim.opt.runtimepath = entries
end

--- Write the fixture into $KEBAB_TEST_WORKSPACE (or a fresh temp dir) and return its path.
function H.workspace()
  local root = vim.env.KEBAB_TEST_WORKSPACE
  if not root or root == "" then
    root = vim.fn.tempname() .. "-ws"
  end
  root = vim.fs.normalize(vim.fn.fnamemodify(root, ":p")):gsub("/$", "")
  for rel, text in pairs(H.FILES) do
    local path = root .. "/" .. rel
    vim.fn.mkdir(vim.fs.dirname(path), "p")
    vim.fn.writefile(vim.split(text, "\n", { plain = true }), path, "b")
  end
  vim.fn.mkdir(root .. "/.git", "p") -- a root marker, as in a real project
  return root
end

--- Fail the current check with a message.
function H.fail(msg)
  error(msg, 2)
end

function H.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(("%s: expected %s, got %s"):format(what or "value", vim.inspect(want), vim.inspect(got)), 2)
  end
end

function H.truthy(v, what)
  if not v then
    error((what or "condition") .. " is false", 2)
  end
  return v
end

--- Wait (pumping the event loop) until `pred()` is truthy; fail after `ms`.
function H.wait(ms, pred, what)
  local ok = vim.wait(ms, function()
    local good, res = pcall(pred)
    return good and res
  end, 20)
  if not ok then
    error(("timed out after %d ms waiting for %s"):format(ms, what or "condition"), 2)
  end
end

--- Record vim.notify calls (still shown on stderr for the log).
function H.capture_notify()
  vim.notify = function(msg, level)
    table.insert(H.notes, { msg = tostring(msg), level = level or vim.log.levels.INFO })
    log(("  [notify %s] %s"):format(tostring(level), tostring(msg)))
  end
end

--- Hand every answer `module[name]` gets (its last argument's `on_result`) to `fn` too, as a
--- command calls it; returns the function that puts the original back.
function H.on_result(module, name, fn)
  local orig = module[name]
  module[name] = function(...)
    local opts = select(select("#", ...), ...)
    opts.on_result = fn
    return orig(...)
  end
  return function()
    module[name] = orig
  end
end

--- The first recorded notification matching `pattern` (plain find) at `level` (optional),
--- recorded at or after index `from`.
function H.find_note(pattern, level, from)
  for i = from or 1, #H.notes do
    local n = H.notes[i]
    if n.msg:find(pattern, 1, true) and (level == nil or n.level == level) then
      return n
    end
  end
end

--- Run one named check; a Lua error in it is a failure, never a crash.
function H.check(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    H.passed = H.passed + 1
    log("ok   - " .. name)
  else
    H.failed = H.failed + 1
    log("FAIL - " .. name .. "\n" .. tostring(err))
  end
  return ok
end

--- Poll kebab/status until the first index is complete.
function H.wait_indexed(bufnr, ms)
  local last
  H.wait(ms or 20000, function()
    local res = vim.lsp.buf_request_sync(bufnr, "kebab/status", vim.empty_dict(), 2000)
    for _, r in pairs(res or {}) do
      last = r.result
      if r.result and r.result.building == false and r.result.folders[1]
        and r.result.folders[1].files > 0 then
        return true
      end
    end
    vim.wait(50)
    return false
  end, "the index to finish building (last status: " .. vim.inspect(last) .. ")")
  return last
end

--- End Neovim: exit 0 when every check passed, 1 otherwise.
function H.finish()
  log(("%d passed, %d failed"):format(H.passed, H.failed))
  for _, c in ipairs(vim.lsp.get_clients()) do
    pcall(function()
      c:stop()
    end)
  end
  if H.failed == 0 and H.passed > 0 then
    vim.cmd("qall!")
  else
    vim.cmd("cquit 1")
  end
end

--- Run `body` as a whole spec with a watchdog: whatever happens, Neovim exits.
function H.run(body, timeout_ms)
  local timer = vim.uv.new_timer()
  timer:start(timeout_ms or 60000, 0, vim.schedule_wrap(function()
    log("FAIL - spec timed out")
    vim.cmd("cquit 1")
  end))
  H.absolute_rtp()
  local ok, err = xpcall(body, debug.traceback)
  if not ok then
    H.failed = H.failed + 1
    log("FAIL - spec aborted\n" .. tostring(err))
  end
  local finished, err2 = pcall(H.finish)
  if not finished then
    log("FAIL - finish: " .. tostring(err2))
    vim.cmd("cquit 1")
  end
end

return H
