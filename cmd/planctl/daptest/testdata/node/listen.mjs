// Two local clients of `planctl dap --listen`, each Microsoft's DebugClient
// (@vscode/debugadapter-testsupport) connected to the port as VS Code's
// "debugServer" connects: a stranger who comes first, without the token
// (a wrong one, then none), whose launch would start a command that
// leaves a marker; then the editor, with the token, which runs the plan
// to its end while the stranger is still connected.
//
// usage: node listen.mjs PORT PLAN TOKEN MARKER
// Prints "ok NAME" per passing check, "FAIL NAME: why" per failing one,
// and PASS at the end when every check passed.
import net from "node:net";
import { DebugClient } from "@vscode/debugadapter-testsupport";
import { check, finish } from "./check.mjs";

const [port, program, token, marker] = process.argv.slice(2);
async function refused(p) {
  try {
    await p;
    return null;
  } catch (e) {
    return e.message;
  }
}

const stranger = new DebugClient("node", "unused", "planctl");
stranger.defaultTimeout = 20000;
await stranger.start(Number(port));
const strangerGone = new Promise((resolve) => stranger._socket.once("close", resolve));
await stranger.initializeRequest({ adapterID: "planctl" });
const server = `sh -c 'id > ${marker}'`;
let msg = await refused(stranger.launchRequest({ program, server }));
check("no token: launch refused, naming the token", msg !== null && /takes launches only with its token/.test(msg), msg);
msg = await refused(stranger.attachRequest({ program, server, token: "0".repeat(token.length) }));
check("a wrong token: attach refused", msg !== null && /is not this adapter's/.test(msg), msg);
msg = await refused(stranger.sourceRequest({ sourceReference: 1 }));
check("no plan to read back without a launch", msg !== null && /no plan is launched/.test(msg), msg);

// The editor connects second, while the stranger holds its connection.
const editor = new DebugClient("node", "unused", "planctl");
editor.defaultTimeout = 20000;
await editor.start(Number(port));
await editor.initializeRequest({ adapterID: "planctl" });
const initialized = editor.waitForEvent("initialized");
await editor.launchRequest({ program, token });
await initialized;
const terminated = editor.waitForEvent("terminated");
await editor.configurationDoneRequest();
await terminated;
check("the editor with the token ran the plan to its end", true);
const src = await editor.sourceRequest({ sourceReference: 1 });
check("source serves the launched plan", /"tool"/.test(src.body.content), src.body);
msg = await refused(editor.sourceRequest({ source: { path: "/etc/passwd" }, sourceReference: 2 }));
check("source serves nothing else", msg !== null && /only the launched plan/.test(msg), msg);

// Once the editor holds the session, the port is closed to others.
const third = await new Promise((resolve) => {
  const s = net.connect(Number(port), "127.0.0.1");
  s.on("connect", () => { s.destroy(); resolve("connected"); });
  s.on("error", (e) => resolve(e.code));
});
check("a third client cannot connect", third === "ECONNREFUSED", third);

await editor.stop();
// The adapter closes the stranger's connection when the editor gives the
// token: this waits for that close (it never comes if the connection is kept).
await strangerGone;
check("the stranger's connection was closed", true);
finish();
