// The official MCP TypeScript SDK client, over stdio, counting the
// progress its per-call onprogress handler gets for plans of N fast steps.
//
//   node progress.mjs N PLANCTL serve --catalog SLOW_CATALOG
//
// Prints "progress <received> of <N>" for each of 5 plans.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [n, target, ...rest] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: target, args: rest, stderr: "ignore" });
const client = new Client({ name: "planctl-servetest-progress", version: "1.0.0" });
await client.connect(transport);
const steps = [];
for (let i = 0; i < Number(n); i++) steps.push({ id: `s${i}`, tool: "fast", args: { n: i } });
for (let round = 0; round < 5; round++) {
  let got = 0;
  const res = await client.callTool({ name: "execute_plan", arguments: { steps } }, undefined, { onprogress: () => { got++; } });
  console.log(`progress ${got} of ${n} ${res.structuredContent?.status}`);
}
await client.close();
