// What every client script here shares: `planctl lsp` spawned over stdio
// as an editor spawns it, with Microsoft's protocol connection
// (vscode-languageserver-protocol) on its pipes; and, for the scripts that
// check, the "ok NAME" / "FAIL NAME: why" lines and the PASS or FAILED
// the Go tests read.
import { spawn } from "node:child_process";
import lspNode from "vscode-languageserver-protocol/node";

export const lsp = lspNode;

// startLsp starts `planctl lsp --stdio` (bin, with flags) in cwd; its
// stderr goes to the script's, for the Go test to show.
export function startLsp(bin, cwd, ...flags) {
  const child = spawn(bin, ["lsp", "--stdio", ...flags], { cwd, stdio: ["pipe", "pipe", "inherit"] });
  const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(child.stdout), new lsp.StreamMessageWriter(child.stdin));
  return { child, conn };
}

let failed = 0;

// check prints one check's outcome; a failed one makes finish say FAILED.
export function check(name, cond, detail) {
  if (cond) console.log("ok " + name);
  else {
    failed++;
    console.log("FAIL " + name + ": " + JSON.stringify(detail));
  }
}

// finish prints PASS, or FAILED if a check failed, and exits with it.
export function finish() {
  console.log(failed ? "FAILED" : "PASS");
  process.exit(failed ? 1 : 0);
}

// shutdown ends the session as an editor does (shutdown, then exit),
// checks that the server then exits with 0, and finishes.
export async function shutdown({ child, conn }, name) {
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await conn.sendRequest(lsp.ShutdownRequest.type);
  conn.sendNotification(lsp.ExitNotification.type);
  const code = await exited;
  check(name, code === 0, code);
  finish();
}
