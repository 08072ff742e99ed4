// Opens a workspace with `planctl lsp` as an editor does, through
// Microsoft's LSP client (vscode-languageserver-protocol), opens a plan and
// prints the tool names the server completes in a step's "tool" (one JSON
// line: {"tools": [...]}) and what it told the user (window/showMessage,
// {"message": ...} lines). planctl starts in "/", so that a relative path
// in the workspace's .planctl.json resolves against the workspace only.
//
// usage: node tools.mjs PLANCTL WORKSPACE INIT_OPTIONS
import path from "node:path";
import { pathToFileURL } from "node:url";
import { lsp, startLsp } from "./client.mjs";

const [bin, workspace, initOptions] = process.argv.slice(2);
const { child, conn } = startLsp(bin, "/");
conn.onNotification(lsp.ShowMessageNotification.type, (m) => console.log(JSON.stringify({ message: m.message })));
conn.listen();

const root = pathToFileURL(workspace).href;
await conn.sendRequest(lsp.InitializeRequest.type, {
  processId: process.pid,
  rootUri: root,
  workspaceFolders: [{ uri: root, name: "ws" }],
  capabilities: {},
  initializationOptions: JSON.parse(initOptions),
});
await conn.sendNotification(lsp.InitializedNotification.type, {});
const uri = pathToFileURL(path.join(workspace, "plan.json")).href;
const text = '{"steps": [{"id": "a", "tool": "", "args": {}}]}';
await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "json", version: 1, text } });
const at = text.indexOf('"tool": ""') + 9;
const items = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: { line: 0, character: at } });
const list = Array.isArray(items) ? items : items?.items || [];
console.log(JSON.stringify({ tools: list.map((i) => i.label).sort() }));
await conn.sendRequest(lsp.ShutdownRequest.type);
await conn.sendNotification(lsp.ExitNotification.type);
child.on("exit", (code) => {
  console.log("done " + code);
  process.exit(0);
});
