-- nvim-dap: debug the plan in the current buffer with planctl dap. The configuration is
-- added to your other JSON ones (dap.configurations.json), never in their place.
local dap = require("dap")
dap.adapters.planctl = { type = "executable", command = "planctl", args = { "dap" } }
dap.configurations.json = dap.configurations.json or {}
table.insert(dap.configurations.json, {
  type = "planctl",
  request = "launch",
  name = "Debug this plan",
  program = "${file}",
  cwd = "${workspaceFolder}",
  stopOnEntry = true,
})
