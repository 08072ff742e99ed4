-- planctl lsp for plan files, with Neovim's own LSP client (0.7 or later; no plugin).
-- Plan files are JSON files under a plans/ folder and *.plan.json files: other JSON
-- files (package.json, tsconfig.json, ...) never reach planctl. Change the patterns
-- to where your plans live; a pattern with a "/" is matched against the whole path.
-- The tools come from .planctl.json at the root (see docs/editors.md), or add
-- init_options = { catalog = "tools.json" } to the table given to start() below.
local plan_files = { "*/plans/*.json", "*.plan.json" }

local function plan_root(file)
  local dir = vim.fn.fnamemodify(file, ":p:h")
  local marker = vim.fn.findfile(".planctl.json", dir .. ";")
  if marker ~= "" then
    return vim.fn.fnamemodify(marker, ":p:h")
  end
  local git = vim.fn.finddir(".git", dir .. ";")
  if git ~= "" then
    return vim.fn.fnamemodify(git, ":p:h:h")
  end
  return dir
end

local started = {} -- root -> client id, for Neovim 0.7 (0.8 added vim.lsp.start, which reuses clients itself)

vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
  group = vim.api.nvim_create_augroup("planctl_lsp", { clear = true }),
  pattern = plan_files,
  callback = function(args)
    local root = plan_root(vim.api.nvim_buf_get_name(args.buf))
    local config = {
      name = "planctl",
      cmd = { "planctl", "lsp" },
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    }
    if vim.lsp.start then
      vim.lsp.start(config, { bufnr = args.buf })
      return
    end
    local id = started[root]
    local client = id and vim.lsp.get_client_by_id(id)
    if not client or client.is_stopped() then
      id = vim.lsp.start_client(config)
      started[root] = id
    end
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
