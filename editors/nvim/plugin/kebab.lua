-- kebab.nvim: defines the :Kebab* commands only. Nothing starts until a command runs or
-- require("kebab").setup() is called (which also autostarts clients for file buffers).
if vim.g.loaded_kebab then
  return
end
vim.g.loaded_kebab = true

if vim.fn.has("nvim-0.10") == 0 then
  vim.api.nvim_echo({ { "kebab.nvim needs Neovim 0.10 or newer", "WarningMsg" } }, true, {})
  return
end

require("kebab.commands").define()
