--- :checkhealth kebab
local M = {}

function M.check()
  local health = vim.health
  local kebab = require("kebab")
  health.start("kebab")
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. tostring(vim.version()))
  else
    health.error("Neovim 0.10 or newer is required")
  end
  if not kebab._setup_done then
    health.info("setup() was not called: commands work, nothing autostarts")
  end
  local cmd = kebab.config.cmd
  if type(cmd) == "table" then
    local exe = vim.fn.exepath(cmd[1])
    if exe ~= "" then
      health.ok(("server: %s"):format(exe))
    else
      health.error(("server %q not found on PATH"):format(cmd[1]), {
        "pip install kebab-lsp (or the project's venv) and put its bin/ on PATH",
        "or set cmd = { '/path/to/kebab-lsp' } in setup()",
      })
    end
  end
  local clients = vim.lsp.get_clients({ name = kebab.name })
  if #clients == 0 then
    health.info("no kebab client running")
  end
  for _, c in ipairs(clients) do
    health.ok(("client %d: root %s"):format(c.id, tostring(c.root_dir)))
  end
end

return M
