// Opens a workspace with `planctl lsp` as an editor does, through
// Microsoft's LSP client (vscode-languageserver-protocol), and prints what
// the server told the user (window/showMessage) as JSON lines.
//
// usage: node trust.mjs PLANCTL WORKSPACE INIT_OPTIONS [SETTINGS]
//   INIT_OPTIONS: the initializationOptions as JSON ("null": none)
//   SETTINGS: if given, sent in workspace/didChangeConfiguration after
//   initialized, as a user changing the editor's settings would.
// Ends with "initialized" and "done" lines once the server has shut down.
import { pathToFileURL } from "node:url";
import { lsp, startLsp } from "./client.mjs";

const [bin, workspace, initOptions, settings] = process.argv.slice(2);
const { child, conn } = startLsp(bin, workspace);
conn.onNotification(lsp.ShowMessageNotification.type, (m) => console.log(JSON.stringify({ message: m })));
conn.listen();

const uri = pathToFileURL(workspace).href;
await conn.sendRequest(lsp.InitializeRequest.type, {
  processId: process.pid,
  rootUri: uri,
  workspaceFolders: [{ uri, name: "ws" }],
  capabilities: {},
  initializationOptions: JSON.parse(initOptions),
});
await conn.sendNotification(lsp.InitializedNotification.type, {});
console.log("initialized");
if (settings !== undefined) {
  await conn.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: JSON.parse(settings) });
}
// The server handles messages in order: the answer to shutdown comes
// after the configuration change has been acted on.
await conn.sendRequest(lsp.ShutdownRequest.type);
await conn.sendNotification(lsp.ExitNotification.type);
child.on("exit", (code) => {
  console.log("done " + code);
  process.exit(0);
});
