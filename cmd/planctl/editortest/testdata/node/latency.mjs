// Measures `planctl lsp` as an editor meets it, with Microsoft's LSP client
// stack (vscode-languageserver-protocol) over the child's stdio: a plan is
// opened, then keystrokes are typed into its middle step one at a time
// (a character typed, then deleted, as incremental changes), each timed
// from the didChange sent to the publishDiagnostics of its version; then
// documentSymbol requests are timed; then a burst of changes is sent back
// to back and the validations it caused (publishes) are counted.
//
// usage: node latency.mjs PLANCTL CATALOG PLAN [KEYSTROKES] [SYMBOLS] [BURST] [LSP FLAG...]
// (the flags go to `planctl lsp`, e.g. --debounce 1s). Prints one JSON
// object of figures (milliseconds).
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { lsp, startLsp } from "./client.mjs";

const [bin, catalog, planFile, keys = "40", syms = "10", burstN = "100", ...lspFlags] = process.argv.slice(2);
const { child, conn } = startLsp(bin, path.dirname(planFile), ...lspFlags);

const publishes = []; // every publish: {version, count, at}
const waiting = [];
let lastBytes = 0;
conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
  const rec = { version: p.version, count: p.diagnostics.length, at: performance.now() };
  publishes.push(rec);
  if (p.version === 1) lastBytes = Buffer.byteLength(JSON.stringify(p)); // the first publish's size (not timed)
  for (const w of waiting.splice(0)) {
    if (p.version === w.version) w.resolve(rec);
    else waiting.push(w);
  }
});
function published(version) {
  const p = publishes.find((x) => x.version === version);
  if (p) return Promise.resolve(p);
  return new Promise((resolve, reject) => {
    waiting.push({ version, resolve });
    setTimeout(() => reject(new Error(`no diagnostics for version ${version}`)), 120000).unref();
  });
}
conn.listen();

const text = fs.readFileSync(planFile, "utf8");
const uri = pathToFileURL(planFile).href;
await conn.sendRequest(lsp.InitializeRequest.type, {
  processId: process.pid,
  rootUri: pathToFileURL(path.dirname(planFile)).href,
  capabilities: {},
  initializationOptions: { catalog },
});
conn.sendNotification(lsp.InitializedNotification.type, {});

// The keystroke's place: the end of the first string inside the middle
// step's args (a path key of a reference, or a literal).
const steps = [...text.matchAll(/"id": "step-/g)];
const mid = steps[Math.floor(steps.length / 2)].index;
const m = /[a-z]"(\]|,|\n)/.exec(text.slice(text.indexOf('"args"', mid)));
const at = text.indexOf('"args"', mid) + m.index + 1;
const before = text.slice(0, at).split("\n");
const where = { line: before.length - 1, character: before[before.length - 1].length };
const typed = { range: { start: where, end: where }, text: "x" };
const deleted = { range: { start: where, end: { line: where.line, character: where.character + 1 } }, text: "" };

// cpu is the server's CPU time so far (user and system, ms), from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 10 ms: the kernel's
// USER_HZ, 100 on Linux); null where there is no /proc. Divided among many
// keystrokes it is the server's own cost, which the machine's other load
// does not inflate the way it does a latency.
function cpu() {
  try {
    const stat = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (+f[11] + +f[12]) * 10; // utime and stime: fields 14 and 15 of the whole line
  } catch {
    return null;
  }
}
const perOp = (c0, c1, n) => (c0 === null || c1 === null ? null : +((c1 - c0) / n).toFixed(1));

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(1);
};

let version = 1;
let t0 = performance.now();
conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "json", version, text } });
const opened = await published(version);
const open = performance.now() - t0;
const openCount = opened.count;
const openBytes = lastBytes;

const keystrokes = [];
const keyCPU0 = cpu();
for (let i = 0; i < +keys; i++) {
  version++;
  t0 = performance.now();
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version },
    contentChanges: [i % 2 === 0 ? typed : deleted],
  });
  await published(version);
  keystrokes.push(performance.now() - t0);
}

const keyCPU1 = cpu();

const symbols = [];
let symbolCount = 0;
const symCPU0 = cpu();
for (let i = 0; i < +syms; i++) {
  t0 = performance.now();
  const r = await conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri } });
  symbols.push(performance.now() - t0);
  symbolCount = r.length;
}

const symCPU1 = cpu();

// The burst: changes back to back, then the publishes it caused.
const first = version + 1;
const n0 = publishes.length;
for (let i = 0; i < +burstN; i++) {
  version++;
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version },
    contentChanges: [i % 2 === 0 ? typed : deleted],
  });
}
await published(version);
const burst = publishes.slice(n0).filter((p) => p.version >= first).length;

await conn.sendRequest(lsp.ShutdownRequest.type);
conn.sendNotification(lsp.ExitNotification.type);
console.log(
  JSON.stringify({
    steps: steps.length,
    mb: +(text.length / 1e6).toFixed(1),
    open_ms: +open.toFixed(1),
    published: openCount,
    publish_bytes: openBytes,
    keystroke_p50: pct(keystrokes, 50),
    keystroke_p95: pct(keystrokes, 95),
    keystroke_max: pct(keystrokes, 100),
    keystroke_cpu_ms: perOp(keyCPU0, keyCPU1, +keys),
    symbols: symbolCount,
    symbol_p50: pct(symbols, 50),
    symbol_p95: pct(symbols, 95),
    symbol_cpu_ms: perOp(symCPU0, symCPU1, +syms),
    burst_changes: +burstN,
    burst_validations: burst,
  }),
);
process.exit(0);
