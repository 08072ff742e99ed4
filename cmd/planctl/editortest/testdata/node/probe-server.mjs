// A minimal MCP server over stdio (newline-delimited JSON-RPC, no SDK) whose
// tool list shows what planctl gave it: env_VALUE with $PROBE_VALUE (or
// env_unset), root_NAME_here or root_NAME_missing for each root of its
// roots/list answer (the folder's name, and whether the path exists),
// level_LEVEL once a client set its log level (logging/setLevel), and
// read_it / write_it with readOnlyHint true / false. Every tool answers
// "ok".
//
// usage: node probe-server.mjs
import readline from "node:readline";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
let asksRoots = false;
let roots = null; // the roots/list answer once it came
let level = ""; // the level logging/setLevel set
const pending = []; // tools/list requests waiting for it

function tools() {
  const list = [
    { name: "read_it", annotations: { readOnlyHint: true } },
    { name: "write_it", annotations: { readOnlyHint: false } },
    { name: "env_" + (process.env.PROBE_VALUE || "unset") },
  ];
  if (level) list.push({ name: "level_" + level });
  for (const r of roots || []) {
    const p = r.uri.startsWith("file:") ? fileURLToPath(r.uri) : r.uri;
    list.push({ name: "root_" + path.basename(p) + (fs.existsSync(p) ? "_here" : "_missing") });
  }
  return list.map((t) => ({ inputSchema: { type: "object", properties: {} }, ...t }));
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    asksRoots = !!m.params.capabilities?.roots;
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "probe", version: "1.0.0" } } });
  } else if (m.method === "notifications/initialized") {
    if (asksRoots) send({ id: "roots", method: "roots/list" });
    else roots = [];
  } else if (m.id === "roots" && m.method === undefined) {
    roots = m.result?.roots || [];
    for (const id of pending.splice(0)) send({ id, result: { tools: tools() } });
  } else if (m.method === "tools/list") {
    if (roots === null) pending.push(m.id);
    else send({ id: m.id, result: { tools: tools() } });
  } else if (m.method === "logging/setLevel") {
    level = m.params.level;
    send({ id: m.id, result: {} });
  } else if (m.method === "tools/call") {
    send({ id: m.id, result: { content: [{ type: "text", text: "ok" }] } });
  } else if (m.method === "ping") {
    send({ id: m.id, result: {} });
  } else if (m.id !== undefined && m.method !== undefined) {
    send({ id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
  }
});
