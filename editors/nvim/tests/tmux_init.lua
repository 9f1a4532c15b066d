-- init file for the tmux test (tests/editors/test_nvim.py): a real Neovim in a real terminal,
-- set up the way a user would, with the plugin on 'runtimepath' (so plugin/kebab.lua loads
-- normally) and setup() called. When the first index is complete it writes
-- $KEBAB_TMUX_OUT/ready, so the driver knows when to start typing.
--
--   nvim -n -u editors/nvim/tests/tmux_init.lua

local here = vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p")))
vim.opt.runtimepath:prepend(vim.fs.dirname(here))
local H = dofile(here .. "/helpers.lua")

local ws = H.workspace()
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.o.laststatus = 2
vim.o.statusline = "%f %= %{v:lua.require'kebab'.status()} %l:%c "
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"

require("kebab").setup({ notify_progress = false })
vim.cmd.edit("docs/guide.md")

local out = assert(vim.env.KEBAB_TMUX_OUT, "KEBAB_TMUX_OUT is not set")
local timer = vim.uv.new_timer()
local asking = false
timer:start(100, 100, vim.schedule_wrap(function()
  local client = require("kebab").client(0)
  if asking or not client or not client.initialized then
    return
  end
  asking = true
  client:request("kebab/status", vim.empty_dict(), function(_, result)
    asking = false
    if result and result.building == false and result.folders[1] and result.folders[1].files > 0 then
      if timer:is_active() then
        timer:stop()
        vim.fn.writefile({ "ready" }, out .. "/ready")
      end
    end
  end)
end))
