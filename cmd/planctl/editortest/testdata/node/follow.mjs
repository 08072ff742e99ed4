// Drives `planctl lsp` through Microsoft's LSP client
// (vscode-languageserver-protocol) as an editor that watches files and
// changes settings: the server registers its file watchers, reloads the
// tools when a watched file changes or the settings do, validates the open
// plans again, keeps the trust rules, answers a request before initialize
// with -32002, refuses a change past the end of a document, skips present
// keys in completion, and offers no quick fix that adds errors.
//
// usage: node follow.mjs PLANCTL WORKSPACE BACKUP_CATALOG DEMO_CATALOG
//   WORKSPACE holds .planctl.json {"catalog": "tools/a.json"} and
//   tools/a.json (the backup catalog, which has no run_migration).
// Prints "ok NAME" per passing check, "FAIL NAME: why" per failing one,
// then PASS or FAILED.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { lsp, startLsp, check, shutdown } from "./client.mjs";

const [bin, workspace, backupCatalog, demoCatalog] = process.argv.slice(2);
const server = startLsp(bin, workspace);
const { conn } = server;

function timeout(what) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error("timed out waiting for " + what)), 20000).unref());
}

// next(uri) is the next diagnostics published for uri from now on.
const waiting = [];
conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
  for (const w of waiting.splice(0)) {
    if (w.uri === p.uri) w.resolve(p);
    else waiting.push(w);
  }
});
function next(uri) {
  return Promise.race([new Promise((resolve) => waiting.push({ uri, resolve })), timeout("diagnostics of " + uri)]);
}
// message() is the next window/showMessage from now on.
const messageWaiters = [];
conn.onNotification(lsp.ShowMessageNotification.type, (m) => {
  for (const w of messageWaiters.splice(0)) w(m);
});
function message() {
  return Promise.race([new Promise((resolve) => messageWaiters.push(resolve)), timeout("a message")]);
}
// The client's side of dynamic registration: what the server registered.
const registrations = [];
let registered = null;
const unregistered = [];
conn.onRequest(lsp.RegistrationRequest.type, (p) => {
  for (const r of p.registrations) {
    registrations.push(r);
    if (registered) registered(r);
  }
});
conn.onRequest(lsp.UnregistrationRequest.type, (p) => {
  unregistered.push(...p.unregisterations);
});
function registration() {
  return Promise.race([new Promise((resolve) => (registered = resolve)), timeout("a registration")]);
}
conn.listen();

// 1. A request before initialize.
try {
  await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri: "file:///x.json" }, position: { line: 0, character: 0 } });
  check("a request before initialize is refused", false, "it was answered");
} catch (e) {
  check("a request before initialize gets -32002 (ServerNotInitialized)", e.code === -32002 && /initialize/.test(e.message), { code: e.code, message: e.message });
}

// 2. Initialize as a client that lets the server register watchers.
const firstRegistration = registration();
await conn.sendRequest(lsp.InitializeRequest.type, {
  processId: process.pid,
  rootUri: pathToFileURL(workspace).href,
  workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: "ws" }],
  capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
});
conn.sendNotification(lsp.InitializedNotification.type, {});
const settingsFile = path.join(workspace, ".planctl.json");
const catalogA = path.join(workspace, "tools", "a.json");
const globs = (r) => r.registerOptions.watchers.map((w) => w.globPattern);
{
  const r = await firstRegistration;
  check("watchers registered for .planctl.json and its catalog",
    r.method === "workspace/didChangeWatchedFiles" && globs(r).includes(settingsFile) && globs(r).includes(catalogA), r);
}

const planFile = path.join(workspace, "plan.json");
const planText = '{"steps": [{"id": "m", "tool": "run_migration", "args": {"database": "prod", "backup_id": "b", "target_version": "042"}}]}';
const planURI = pathToFileURL(planFile).href;
const unknown = (p) => p.diagnostics.some((d) => d.code === "UNKNOWN_TOOL");
let d = next(planURI);
conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri: planURI, languageId: "json", version: 1, text: planText } });
check("against the workspace's catalog, run_migration is unknown", unknown(await d), (await d).diagnostics);

// changed(file) tells the server a watched file changed, as the client's
// watcher would, and returns the plan's next diagnostics.
async function changed(file, type = lsp.FileChangeType.Changed) {
  const p = next(planURI);
  conn.sendNotification(lsp.DidChangeWatchedFilesNotification.type, { changes: [{ uri: pathToFileURL(file).href, type }] });
  return p;
}

// 3. The catalog changes on disk: reload, and the open plan revalidated.
fs.copyFileSync(demoCatalog, catalogA);
check("the catalog changed on disk: reloaded, the plan revalidated", !unknown(await changed(catalogA)), "UNKNOWN_TOOL still");

// 4. A catalog caught broken keeps the tools loaded before.
fs.writeFileSync(catalogA, "{");
{
  const m = message();
  const p = await changed(catalogA);
  const msg = await m;
  check("a broken catalog: the user is told, the tools kept", msg.type === lsp.MessageType.Error && /keeping the tools loaded before/.test(msg.message) && !unknown(p), { msg, p });
}

// 5. .planctl.json names another catalog: reloaded, watchers replaced.
const catalogC = path.join(workspace, "tools", "c.json");
fs.copyFileSync(backupCatalog, catalogC);
fs.writeFileSync(settingsFile, JSON.stringify({ catalog: "tools/c.json" }));
{
  const r = registration();
  check(".planctl.json names another catalog: reloaded", unknown(await changed(settingsFile)), "run_migration known");
  const reg = await r;
  check("the watchers follow the new catalog", globs(reg).includes(catalogC) && !globs(reg).includes(catalogA) &&
    unregistered.some((u) => u.id === reg.id), { reg, unregistered });
}

// 6. Trust still applies: .planctl.json edited to start a command.
const marker = path.join(workspace, "marker");
fs.writeFileSync(settingsFile, JSON.stringify({ server: `sh -c 'id > ${marker}; exec ${bin} mock'` }));
{
  const m = message();
  const p = await changed(settingsFile);
  const msg = await m;
  check("an edited .planctl.json naming a command runs nothing untrusted", !fs.existsSync(marker) &&
    msg.type === lsp.MessageType.Warning && /is not trusted/.test(msg.message) && !unknown(p), { msg, marker: fs.existsSync(marker) });
}
// A file the server does not watch changes nothing; the trusting
// settings that follow do start the command.
conn.sendNotification(lsp.DidChangeWatchedFilesNotification.type, { changes: [{ uri: pathToFileURL(path.join(workspace, "other.json")).href, type: 2 }] });
{
  const p = next(planURI);
  conn.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: { planctl: { trustWorkspace: true } } });
  await p;
  check("trustWorkspace in the settings: the command runs", fs.existsSync(marker), "no marker");
}

// 7. Settings naming a catalog replace the workspace's source; the
// extension's own keys in the section are ignored.
{
  const p = next(planURI);
  conn.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: { planctl: { catalog: backupCatalog, path: "/usr/bin/planctl" } } });
  check("settings name a catalog: reloaded", unknown(await p), "run_migration known");
  const q = next(planURI);
  conn.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: { planctl: { catalog: demoCatalog } } });
  check("settings name another: reloaded", !unknown(await q), "UNKNOWN_TOOL still");
}

// 8. Completion skips the keys already in the object, after the cursor too.
{
  const text = '{"steps": [{"": 1, "tool": "run_migration", "args": {"database": "prod", "": 2, "dry_run": true}}]}';
  const uri = pathToFileURL(path.join(workspace, "complete.json")).href;
  const p = next(uri);
  conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "json", version: 1, text } });
  await p;
  const at = (needle, n) => {
    let i = -1;
    for (let k = 0; k <= n; k++) i = text.indexOf(needle, i + 1);
    return { line: 0, character: i + 1 };
  };
  const labels = async (position) =>
    (await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position })).items.map((i) => i.label).sort();
  const stepKeys = await labels(at('""', 0));
  check("step keys: only those not written", JSON.stringify(stepKeys) === '["id"]', stepKeys);
  const args = await labels(at('""', 1));
  check("arguments: only those not written", JSON.stringify(args) === '["backup_id","target_version"]', args);
}

// 9. No quick fix adds errors: the stray "step" beside "steps".
{
  const text = '{"steps": [{"id": "m", "tool": "run_migration", "args": {"database": "prod", "backup_id": "b", "target_version": "042"}}], "step": []}';
  const uri = pathToFileURL(path.join(workspace, "stray.json")).href;
  const p = next(uri);
  conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "json", version: 1, text } });
  const diags = (await p).diagnostics;
  const actions = await conn.sendRequest(lsp.CodeActionRequest.type, {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: text.length } }, context: { diagnostics: diags },
  });
  const stray = diags.find((x) => x.code === "UNKNOWN_PLAN_KEY");
  check("the stray \"step\" is to be removed, not renamed to \"steps\"", stray && /remove it/.test(stray.message) &&
    !actions.some((a) => a.edit.changes[uri].some((e) => e.newText === '"steps"')), { stray, actions });
}

// 10. A change past the end of the document is refused, never applied.
{
  const m = message();
  const p = next(planURI);
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: planURI, version: 2 },
    contentChanges: [{ range: { start: { line: 40, character: 0 }, end: { line: 40, character: 3 } }, text: "x" }],
  });
  const msg = await m;
  const cleared = await p;
  check("a change past the end: an error message", msg.type === lsp.MessageType.Error && /refused/.test(msg.message) && /close and reopen/.test(msg.message), msg);
  check("a change past the end: the file's diagnostics cleared", cleared.diagnostics.length === 0, cleared);
  try {
    await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri: planURI }, position: { line: 0, character: 3 } });
    check("the out-of-step document is no longer served", false, "hover answered");
  } catch (e) {
    check("the out-of-step document is no longer served", /not open/.test(e.message), e.message);
  }
  const q = next(planURI);
  conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri: planURI, languageId: "json", version: 3, text: planText } });
  check("reopened: served again", (await q).version === 3, "");
}

await shutdown(server, "exit after shutdown");
