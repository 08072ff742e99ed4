// The official MCP TypeScript SDK client calls `planctl serve` in front of
// server-everything with a progress token: the progress of the upstream's
// trigger-long-running-operation is the plan's.
//
//   node progress.mjs PLANCTL serve --server '...server-everything... stdio'
//
// Prints the status, then each progress notification as "progress/total message".
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [target, ...rest] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: target, args: rest, stderr: "ignore" });
const client = new Client({ name: "planctl-upstreamtest-progress", version: "1.0.0" });
await client.connect(transport);
const got = [];
const res = await client.callTool({ name: "execute_plan", arguments: { steps: [
  { id: "op", tool: "trigger-long-running-operation", args: { duration: 1, steps: 3 } },
] } }, undefined, { onprogress: (p) => got.push(`${p.progress}/${p.total} ${p.message}`) });
console.log(res.structuredContent?.status);
for (const line of got) console.log(line);
await client.close();
