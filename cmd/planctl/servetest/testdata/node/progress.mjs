// The official MCP TypeScript SDK client, over stdio, counting the
// progress its per-call onprogress handler gets for plans of N fast steps.
//
//   node progress.mjs N PLANCTL serve --catalog SLOW_CATALOG
//   node progress.mjs N http://HOST:PORT/mcp     (token from $MCP_TOKEN)
//
// Prints "progress <received> of <N>" for each of 5 plans (15 over HTTP,
// three at a time).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [n, target, ...rest] = process.argv.slice(2);
const transport = /^https?:/.test(target)
  ? new StreamableHTTPClientTransport(new URL(target), process.env.MCP_TOKEN
    ? { requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } } }
    : undefined)
  : new StdioClientTransport({ command: target, args: rest, stderr: "ignore" });
const client = new Client({ name: "planctl-servetest-progress", version: "1.0.0" });
await client.connect(transport);
const steps = [];
for (let i = 0; i < Number(n); i++) steps.push({ id: `s${i}`, tool: "fast", args: { n: i } });
// Over HTTP three plans run at once in the session: mcp-go hands a
// session's notifications to any of its open streams.
const parallel = /^https?:/.test(target) ? 3 : 1;
for (let round = 0; round < 5; round++) {
  await Promise.all(Array.from({ length: parallel }, async () => {
    let got = 0;
    const res = await client.callTool({ name: "execute_plan", arguments: { steps } }, undefined, { onprogress: () => { got++; } });
    console.log(`progress ${got} of ${n} ${res.structuredContent?.status}`);
  }));
}
await client.close();
