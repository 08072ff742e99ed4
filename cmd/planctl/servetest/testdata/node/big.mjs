// The official MCP TypeScript SDK client, over stdio, against a plan whose
// second step answers 5 MiB: what a host built on the SDK sees.
//
//   node big.mjs PLANCTL serve --catalog BIG_CATALOG [flags]
//
// The catalog has "small" (answers {"ok": true}) and "big" (a 5 MiB
// string). Prints one line, "answer <status> <the failed step's error>" or
// "lost <the SDK's error>", then "next <status>" for a small plan sent
// after it, or "next lost <error>" when the session is gone.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [target, ...rest] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: target, args: rest, stderr: "ignore" });
// The SDK reports a message over its stdio limit here, and then closes.
transport.onerror = (e) => console.log(`transport error ${e.message}`);
const client = new Client({ name: "planctl-servetest-big", version: "1.0.0" });
await client.connect(transport);

const opts = { timeout: 60000 };
try {
  const res = await client.callTool({ name: "execute_plan", arguments: { steps: [
    { id: "a", tool: "small", args: {} },
    { id: "b", tool: "big", args: {} },
  ] } }, undefined, opts);
  const sc = res.structuredContent ?? {};
  console.log(`answer ${sc.status} ${sc.steps?.b?.error ?? ""}`);
} catch (e) {
  console.log(`lost ${e.message}`);
}
try {
  const res = await client.callTool({ name: "execute_plan", arguments: { steps: [
    { id: "a", tool: "small", args: {} },
  ] } }, undefined, opts);
  console.log(`next ${res.structuredContent?.status}`);
} catch (e) {
  console.log(`next lost ${e.message}`);
}
await client.close().catch(() => {});
