// Drives `planctl lsp` through Microsoft's LSP client
// (vscode-languageserver-protocol) as a busy editor does: requests sent
// without waiting for the ones before, cancelled, and overtaken by the
// user's next change. A documentSymbol on a long plan just opened (its
// whole validation still to come) is cancelled through the client's own
// CancellationToken and answered RequestCancelled (-32800); a
// documentSymbol followed at once by a change is answered ContentModified
// (-32801); and each request sent among changes is answered for its own
// version or ContentModified. (The cancellation is read while the request
// runs: a server that answered requests one at a time, on the reading
// goroutine, would answer the documentSymbol.)
//
// usage: node concurrent.mjs PLANCTL WORKSPACE LONG_PLAN
//   LONG_PLAN is a chain of 10,000 steps (plantest.Chain) in WORKSPACE.
// Prints "ok NAME" per passing check, "FAIL NAME: why" per failing one,
// then PASS or FAILED.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { lsp, startLsp, check, shutdown } from "./client.mjs";

const [bin, workspace, longPlan] = process.argv.slice(2);
const server = startLsp(bin, workspace);
const { conn } = server;

const published = new Map(); // uri -> versions published
const waiting = [];
conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
  if (!published.has(p.uri)) published.set(p.uri, new Set());
  published.get(p.uri).add(p.version);
  for (const w of waiting.splice(0)) {
    if (w.uri === p.uri && w.version === p.version) w.resolve(p);
    else waiting.push(w);
  }
});
function diagnostics(uri, version) {
  if (published.get(uri)?.has(version)) return Promise.resolve();
  return new Promise((resolve) => waiting.push({ uri, version, resolve }));
}
// outcome is how a request ended: its result, or its error's code.
async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}
conn.listen();

await conn.sendRequest(lsp.InitializeRequest.type, { processId: process.pid, rootUri: pathToFileURL(workspace).href, capabilities: {} });
conn.sendNotification(lsp.InitializedNotification.type, {});

// A small plan, open and validated: what the requests below are about.
const small = pathToFileURL(path.join(workspace, "small.json")).href;
const smallText = (id) =>
  `{"steps": [\n  {"id": "${id}", "tool": "create_backup", "args": {"database": "orders"}},\n` +
  `  {"id": "check", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"${id}": ["backup_id"]}}}}\n]}\n`;
conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri: small, languageId: "json", version: 1, text: smallText("b1") } });
await diagnostics(small, 1);

// Changes then requests, never waiting between them: each request is
// answered for the change sent before it, or, when a later change came
// in before its turn, ContentModified; never from another version.
let version = 1;
const seen = [];
for (let i = 0; i < 40; i++) {
  version++;
  const id = "b" + version;
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: small, version },
    contentChanges: [{ text: smallText(id) }],
  });
  seen.push({ want: id, got: outcome(conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri: small } })) });
  seen.push({ want: id, got: outcome(conn.sendRequest(lsp.DefinitionRequest.type, { textDocument: { uri: small }, position: { line: 2, character: 83 } })) });
}
let stale = [];
let answered = 0;
for (const s of seen) {
  const o = await s.got;
  if (o.result !== undefined) answered++;
  if (o.result === undefined) {
    if (o.code !== lsp.LSPErrorCodes.ContentModified) stale.push(o);
  } else if (Array.isArray(o.result)) {
    if (o.result[0]?.name !== s.want) stale.push({ want: s.want, got: o.result[0]?.name });
  } else if (o.result?.range?.start?.line !== 1) stale.push({ want: "line 1", got: o.result });
}
check("80 requests sent among 40 changes: each answered for its change, or ContentModified", stale.length === 0, stale.slice(0, 3));
const last = await seen[seen.length - 1].got;
check("the request after the last change is answered", last.result !== undefined, { last, answered });
const ref = await conn.sendRequest(lsp.DefinitionRequest.type, { textDocument: { uri: small }, position: { line: 2, character: 83 } });
check("definition of the last change's reference", ref?.range?.start?.line === 1 && ref.range.start.character === 9, ref);

// A documentSymbol on the long plan just opened, cancelled at once by the
// client's token: it is waiting for or running the plan's first
// validation when the cancellation is read.
const long = pathToFileURL(longPlan).href;
conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
  textDocument: { uri: long, languageId: "json", version: 1, text: fs.readFileSync(longPlan, "utf8") },
});
const src = new lsp.CancellationTokenSource();
const cancelled = outcome(conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri: long } }, src.token));
src.cancel();
const c = await cancelled;
check("a cancelled documentSymbol is answered RequestCancelled", c.code === lsp.LSPErrorCodes.RequestCancelled, c.code ?? c.result?.length);
const syms = await conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri: long } });
check("the next documentSymbol on the long plan has its 10,000 symbols", syms.length === 10000 && syms[5000].name === "step-005000", syms.length);

// A documentSymbol overtaken by a change: sent after a change outside
// the steps (the plan is loaded and validated whole again, a long while),
// and followed at once by a one-character change.
const text = fs.readFileSync(longPlan, "utf8");
const first = text.indexOf("\n") + 1; // the first line ends after its "{"
conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
  textDocument: { uri: long, version: 2 },
  contentChanges: [{ text: text.slice(0, first) + " " + text.slice(first).replace('"step-000000"', '"first"') }],
});
const modified = outcome(conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri: long } }));
// A request on the small plan, sent while the long plan is analysed.
const hover = outcome(conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri: small }, position: { line: 1, character: 25 } }));
conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
  textDocument: { uri: long, version: 3 },
  contentChanges: [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: "" }],
});
const h = await hover;
check("the hover sent after it is answered", typeof h.result?.contents?.value === "string" && h.result.contents.value.includes("create_backup"), h);
const m = await modified;
check("a documentSymbol overtaken by a change is answered ContentModified", m.code === lsp.LSPErrorCodes.ContentModified, m.code ?? m.result?.[0]);
const again = await conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri: long } });
check("asked again, it is the changed plan's", again.length === 10000 && again[0].name === "first", again[0]);
await diagnostics(long, 3);

await shutdown(server, "exit after shutdown");
