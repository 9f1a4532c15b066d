--- Small helpers shared by the kebab modules, including the shims between Neovim 0.10
--- (`client.request(...)`) and 0.11+ (`client:request(...)`, the dot form is deprecated).

local M = {}

M.has_011 = vim.fn.has("nvim-0.11") == 1

function M.request(client, method, params, handler, bufnr)
  if M.has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.is_stopped(client)
  if M.has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- Wrap `fn` so an error in it becomes one vim.notify line instead of a Lua traceback.
function M.safe(fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      vim.schedule(function()
        vim.notify("kebab: internal error: " .. tostring(err), vim.log.levels.ERROR, { title = "kebab" })
      end)
    end
    return ok
  end
end

--- An LSP ResponseError (or anything else) as one readable line.
function M.format_error(err)
  if type(err) ~= "table" then
    return tostring(err)
  end
  local message = err.message
  if type(message) ~= "string" or message == "" then
    message = vim.inspect(err)
  end
  local names = { [-32602] = "invalid params", [-32601] = "method not found", [-32603] = "internal error",
                  [-32800] = "request cancelled", [-32801] = "content modified", [-32002] = "server not initialized" }
  local code = err.code and names[err.code]
  return code and ("%s (%s)"):format(message, code) or message
end

--- Byte index in `line` of an LSP `character` offset in `encoding` (utf-8|utf-16|utf-32),
--- clamped to the line's length.
function M.byte_col(line, character, encoding)
  if encoding == "utf-8" then
    return math.min(character, #line)
  end
  local ok, byte
  if M.has_011 then
    ok, byte = pcall(vim.str_byteindex, line, encoding, character, false)
  else
    ok, byte = pcall(vim.str_byteindex, line, character, encoding == "utf-16")
  end
  return ok and byte or math.min(character, #line)
end

function M.one_line(s)
  if type(s) ~= "string" then
    return s == nil and "" or tostring(s)
  end
  return (s:gsub("[\r\n\t]+", " "))
end

--- First non-blank line of a snippet, trimmed and cut to `width` characters.
function M.first_line(text, width)
  if type(text) ~= "string" then
    return ""
  end
  width = width or 80
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    local trimmed = vim.trim(line)
    if trimmed ~= "" then
      if vim.fn.strchars(trimmed) > width then
        trimmed = vim.fn.strcharpart(trimmed, 0, width - 1) .. "…"
      end
      return (trimmed:gsub("\t", " "))
    end
  end
  return ""
end

return M
