--- User commands. Defined by plugin/kebab.lua on load and again by setup(); defining them
--- starts nothing: a client starts when a command is first run or when setup() autostarts.
---
---   :KebabSearch[!] [mode=M] [k=N] [lang=L[,L]] [kind=K[,K]] [path=GLOB] [query...]
---       kebab/search; ! sends every hit to the quickfix list instead of a picker.
---   :KebabSymbols[!] [query]   workspace/symbol; ! sends them to the quickfix list.
---   :KebabUsages[!] [k=N]      usages of the name under the cursor (kebab/references), N of
---                              them (default 100).
---   :[range]KebabSimilar[!] [k=N]  code like the range (default: the current line), by vector
---                              (kebab/similar), N hits (default search.k); ! sends them to the
---                              quickfix list.
---   :KebabStatus               kebab/status summary.
---   :KebabReindex              rebuild the index from scratch (kebab.reindex).
---   :KebabInstall [python]     the server, into a private venv from this plugin's checkout.

local M = {}

local OPTION_KEYS = {
  mode = "mode",
  k = "k",
  lang = "lang",
  kind = "kind",
  path = "path_glob",
  glob = "path_glob",
  path_glob = "path_glob",
}

--- Split `:KebabSearch` arguments into (query, opts). Leading `key=value` words with a known
--- key are options; everything from the first other word on is the query, verbatim. An
--- explicit filter with no value (`lang=`, `kind=,`) is an error: (nil, nil, message).
function M.parse_search_args(args)
  local opts = {}
  local rest = args or ""
  while true do
    local word, tail = rest:match("^%s*(%S+)%s*(.*)$")
    if not word then
      rest = ""
      break
    end
    local key, value = word:match("^([%w_]+)=(.*)$")
    local field = key and OPTION_KEYS[key:lower()]
    if not field then
      break
    end
    if field == "k" then
      opts.k = tonumber(value) or value -- a non-number is left for the server to reject
    elseif field == "lang" or field == "kind" then
      local list = vim.split(value, ",", { trimempty = true })
      if #list == 0 then
        -- Sent as an empty list, it would read as no filter at all.
        local example = field == "lang" and "python or %s=python,go" or "function or %s=class,method"
        return nil, nil, ("`%s` needs a value, e.g. %s=" .. example):format(word, key, key)
      end
      opts[field] = #list == 1 and list[1] or list
    else
      opts[field] = value
    end
    rest = tail
  end
  return vim.trim(rest), opts
end

--- `:KebabUsages` and `:KebabSimilar` arguments: `k=N` or nothing. Returns opts, or nil and
--- a message naming `usage`, the command's own synopsis.
function M.parse_k_args(args, usage)
  local opts = {}
  for _, word in ipairs(vim.split(args or "", "%s+", { trimempty = true })) do
    local value = word:match("^[kK]=(.*)$")
    if not value then
      return nil, ("unknown argument %q: %s"):format(word, usage or ":KebabUsages[!] [k=N]")
    end
    opts.k = tonumber(value) or value -- a non-number is left for the server to reject
  end
  return opts
end

local function complete_search(arglead)
  local words = {
    "mode=auto",
    "mode=lexical",
    "mode=vector",
    "mode=hybrid",
    "k=",
    "lang=",
    "kind=",
    "path=",
  }
  return vim.tbl_filter(function(w)
    return vim.startswith(w, arglead)
  end, words)
end

local function complete_k(arglead)
  return vim.startswith("k=", arglead) and { "k=" } or {}
end

function M.define()
  local create = vim.api.nvim_create_user_command
  create("KebabSearch", function(cmd)
    local query, opts, err = M.parse_search_args(cmd.args)
    if err then
      return require("kebab")._notify(":KebabSearch: " .. err, vim.log.levels.ERROR)
    end
    opts.quickfix = cmd.bang
    require("kebab").search(query, opts)
  end, {
    nargs = "*",
    bang = true,
    complete = complete_search,
    desc = "kebab: search the workspace (! = quickfix list)",
  })
  create("KebabSymbols", function(cmd)
    local query = cmd.args ~= "" and cmd.args or nil
    require("kebab").symbols(query, { quickfix = cmd.bang })
  end, { nargs = "*", bang = true, desc = "kebab: workspace symbols (! = quickfix list)" })
  create("KebabUsages", function(cmd)
    local opts, err = M.parse_k_args(cmd.args, ":KebabUsages[!] [k=N]")
    if err then
      return require("kebab")._notify(":KebabUsages: " .. err, vim.log.levels.ERROR)
    end
    opts.quickfix = cmd.bang
    require("kebab").usages(opts)
  end, {
    nargs = "?",
    bang = true,
    complete = complete_k,
    desc = "kebab: usages of the name under the cursor (! = quickfix list)",
  })
  create("KebabSimilar", function(cmd)
    local opts, err = M.parse_k_args(cmd.args, ":[range]KebabSimilar[!] [k=N]")
    if err then
      return require("kebab")._notify(":KebabSimilar: " .. err, vim.log.levels.ERROR)
    end
    opts.quickfix = cmd.bang
    require("kebab").similar(cmd.line1, cmd.line2, opts)
  end, {
    nargs = "?",
    bang = true,
    range = true,
    complete = complete_k,
    desc = "kebab: code similar to the range (! = quickfix list)",
  })
  create("KebabStatus", function()
    require("kebab").show_status()
  end, { nargs = 0, desc = "kebab: index status" })
  create("KebabReindex", function()
    require("kebab").reindex()
  end, { nargs = 0, desc = "kebab: rebuild the index from scratch" })
  create("KebabInstall", function(cmd)
    require("kebab.install").install({ python = cmd.args ~= "" and vim.fn.expand(cmd.args) or nil })
  end, {
    nargs = "?",
    complete = "file",
    desc = "kebab: install the server into a private venv (stdpath('data')/kebab/venv)",
  })
end

return M
