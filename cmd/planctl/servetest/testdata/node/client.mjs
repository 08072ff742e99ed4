// The official MCP TypeScript SDK client against planctl serve.
//
//   node client.mjs stdio PLANCTL serve --catalog SLOW_CATALOG
//   node client.mjs http URL            (a --stateless server)
//   node client.mjs http-stateful URL   (a server with sessions)
//
// Over HTTP the bearer token is taken from $MCP_TOKEN (planctl serve
// prints the one it generates).
//
// The server must serve the catalog cmd/planctl/servetest/testdata/slow.json.
// Prints one line per check; exits non-zero at the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, target, ...rest] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args: rest, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(target), process.env.MCP_TOKEN
    ? { requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } } }
    : undefined);

function check(ok, what, detail) {
  if (!ok) {
    console.log(`FAIL ${what}: ${JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok ${what}`);
}

const client = new Client({ name: "planctl-servetest", version: "1.0.0" });
// The SDK reports here a response or a progress notification for a request
// it no longer waits for: what a server sends after a cancellation.
const strays = [];
client.onerror = (e) => strays.push(e.message);
await client.connect(transport);

const { tools } = await client.listTools();
check(tools.length === 1 && tools[0].name === "execute_plan", "tools/list lists execute_plan", tools.map((t) => t.name));
check(tools[0].description.includes("  slow(n?: integer [sharable])\n    Answer after an hour, unless cancelled."), "the description lists the tools as Concierge does", tools[0].description);
check(tools[0].outputSchema?.type === "object", "execute_plan has an outputSchema", tools[0].outputSchema);

// Progress notifications are recorded by our own handler: the SDK's
// per-call onprogress loses a notification that arrives in the same read as
// the answer (typescript-sdk issue 2580), which a fast plan's last step
// always risks. Passing onprogress still makes the SDK send a progressToken.
const progress = [];
let onProgress = () => {};
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  progress.push(n.params);
  onProgress(n.params);
});
const settle = () => new Promise((r) => setImmediate(r));

// A plan with a progress token: one notification per finished step. The SDK
// also checks structuredContent against the outputSchema.
const done = await client.callTool(
  { name: "execute_plan", arguments: { steps: [
    { id: "a", tool: "fast", args: { n: 1 } },
    { id: "b", tool: "fast", args: { n: { output_by_reference: { a: ["n"] } } } },
  ] } },
  undefined,
  { onprogress: () => {} },
);
await settle();
check(!done.isError && done.structuredContent?.status === "completed" && done.structuredContent.steps.b.result.n === 1,
  "execute_plan runs a plan with references", done);
check(JSON.stringify(JSON.parse(done.content[0].text)) === JSON.stringify(done.structuredContent), "text and structuredContent agree", done);
check(progress.length === 2 && progress[0].progressToken === progress[1].progressToken &&
  progress[0].progress === 1 && progress[1].progress === 2 && progress[1].total === 2 && progress[1].message === "step b (fast) ok",
  "one progress notification per finished step", progress);

const refused = await client.callTool({ name: "execute_plan", arguments: { steps: [{ id: "x", tool: "nope", args: {} }] } });
check(refused.isError === true && typeof refused.structuredContent?.error === "string", "a refused plan is isError with {error}", refused);

// Cancel a slow plan once its first step has finished.
const abort = new AbortController();
onProgress = () => abort.abort("enough");
let cancelled = null;
try {
  await client.callTool(
    { name: "execute_plan", arguments: { steps: [
      { id: "first", tool: "fast", args: { n: 1 } },
      { id: "wait", tool: "slow", args: { n: 2 } },
    ] } },
    undefined,
    { signal: abort.signal, onprogress: () => {}, timeout: 600000 },
  );
} catch (e) {
  cancelled = e;
}
check(cancelled !== null, "cancelling a slow plan ends the call", String(cancelled));

const after = await client.callTool({ name: "execute_plan", arguments: { steps: [{ id: "c", tool: "fast", args: { n: 3 } }] } });
check(after.structuredContent?.status === "completed", "the server answers after a cancellation", after);
if (mode !== "http") {
  // The ping's answer follows anything written for the cancelled call
  // (over HTTP with sessions, the cancelled call's stream has ended by
  // then). Without a session a cancellation names no one's request: the
  // server ignores it.
  await client.ping();
  check(!strays.some((m) => m.includes("unknown message ID") || m.includes("unknown token")),
    "no answer and no progress for the cancelled call", strays);
}

await client.close();
console.log("PASS");
