// The official MCP TypeScript SDK client sends one plan to planctl serve,
// whose tools come from two servers planctl starts itself.
//
//   node serveboth.mjs PLAN PLANCTL serve --config MCP_JSON
//
// Prints the execute_plan answer's structuredContent as JSON; exits
// non-zero when the call fails.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [planPath, command, ...args] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planPath, "utf8"));
const client = new Client({ name: "planctl-upstreamtest", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const { tools } = await client.listTools();
const names = tools[0].description.match(/^  [a-z_]+\(/gm) ?? [];
console.error(`execute_plan lists ${names.length} tools`);
const res = await client.callTool({ name: "execute_plan", arguments: plan });
await client.close();
if (res.isError) {
  console.error(JSON.stringify(res));
  process.exit(1);
}
console.log(JSON.stringify(res.structuredContent));
