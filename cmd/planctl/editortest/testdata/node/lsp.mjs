// Drives `planctl lsp` with Microsoft's LSP client stack
// (vscode-languageserver-protocol: JSON-RPC framing, requests, notifications)
// over the child's stdio, on real plan files, and checks each feature.
// Positions are computed here from the text with JavaScript's own string
// indexes, which count UTF-16 code units as LSP does.
//
// usage: node lsp.mjs PLANCTL WORKSPACE MODE SAMPLES
//   MODE: demo (no configuration), init (initializationOptions name the
//   catalog), file (.planctl.json in WORKSPACE names it)
// Prints "ok NAME" per passing check, "FAIL NAME: why" per failing one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { lsp, startLsp, check, shutdown as endSession } from "./client.mjs";

const [bin, workspace, mode, samples] = process.argv.slice(2);
const server = startLsp(bin, workspace);
const { conn } = server;


// Diagnostics arrive as notifications; wait for those of a version.
const published = new Map();
const waiting = [];
conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
  published.set(p.uri, p);
  for (const w of waiting.splice(0)) {
    if (w.uri === p.uri && (w.version === undefined || p.version === w.version)) w.resolve(p);
    else waiting.push(w);
  }
});
const messages = [];
conn.onNotification(lsp.ShowMessageNotification.type, (m) => messages.push(m));
function diagnostics(uri, version) {
  const p = published.get(uri);
  if (p && (version === undefined || p.version === version)) return Promise.resolve(p);
  return new Promise((resolve, reject) => {
    waiting.push({ uri, version, resolve });
    setTimeout(() => reject(new Error(`no diagnostics for ${uri} version ${version}`)), 20000).unref();
  });
}
conn.listen();

// pos is the LSP position of the n-th occurrence of needle in text, plus delta.
function pos(text, needle, delta = 0, n = 0) {
  let i = -1;
  for (let k = 0; k <= n; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`${needle} not in text`);
  }
  i += delta;
  const before = text.slice(0, i).split("\n");
  return { line: before.length - 1, character: before[before.length - 1].length };
}
const same = (a, b) => a.line === b.line && a.character === b.character;

// sameAsValidate: the diagnostics are those of `planctl validate --format
// json` (code, severity, message), at the same places: validate counts
// columns in code points, LSP in UTF-16 code units.
function sameAsValidate(file, text, diags) {
  let out;
  try {
    out = execFileSync(bin, ["validate", "--format", "json", file], { encoding: "utf8" });
  } catch (e) {
    out = e.stdout; // exit 1: the plan has errors
  }
  const want = JSON.parse(out).diagnostics;
  const lines = text.split("\n");
  const column = (p) => [...lines[p.line].slice(0, p.character)].length + 1;
  const sev = { ERROR: 1, WARNING: 2, INFO: 3 };
  return want.length > 0 && want.length === diags.length && want.every((w, i) => {
    const d = diags[i];
    return d.code === w.code && d.message === w.message && d.severity === sev[w.severity] &&
      d.range.start.line + 1 === w.line && column(d.range.start) === w.column &&
      d.range.end.line + 1 === w.end_line && column(d.range.end) === w.end_column;
  });
}

async function open(file, text) {
  const uri = pathToFileURL(file).href;
  text ??= fs.readFileSync(file, "utf8");
  conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "json", version: 1, text },
  });
  return { uri, text, diags: (await diagnostics(uri, 1)).diagnostics };
}

const catalogPath = path.join(samples, "catalogs", "backup.json");
const init = await conn.sendRequest(lsp.InitializeRequest.type, {
  processId: process.pid,
  rootUri: pathToFileURL(workspace).href,
  workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: "ws" }],
  capabilities: {},
  initializationOptions: mode === "init" ? { catalog: catalogPath } : undefined,
});
conn.sendNotification(lsp.InitializedNotification.type, {});
const caps = init.capabilities;
check("initialize", caps.hoverProvider && caps.definitionProvider && caps.referencesProvider && caps.completionProvider &&
  caps.documentSymbolProvider && caps.codeActionProvider && caps.textDocumentSync.change === 2, caps);

if (mode !== "demo") {
  // The catalog of samples/catalogs/backup.json: two tools, and no echo.
  const { uri, text } = await open(path.join(workspace, "mine.json"),
    '{"steps": [{"id": "a", "tool": "", "args": {}}, {"id": "b", "tool": "echo", "args": {}}]}');
  const items = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(text, '"tool": ""', 9) });
  const labels = items.items.map((i) => i.label).sort();
  check(mode + ": tools from the configured catalog", JSON.stringify(labels) === '["create_backup","validate_backup"]', labels);
  const d = (await diagnostics(uri, 1)).diagnostics;
  check(mode + ": diagnostics against the configured catalog", d.some((x) => x.code === "UNKNOWN_TOOL" && x.message.includes('"echo"')), d);
  await shutdown();
}

// --- the demo catalog: every feature on the samples ---
{
  const file = path.join(samples, "invalid-reference-target.json");
  const { uri, text, diags } = await open(file);
  const undef = diags.find((d) => d.code === "REF_UNDEFINED_STEP");
  check("diagnostics: every validator diagnostic, at its line:column", sameAsValidate(file, text, diags), diags);
  check("diagnostics: exact range", undef && same(undef.range.start, pos(text, '"lcos"')) && same(undef.range.end, pos(text, '"lcos"', 6)), undef);
  check("diagnostics: severity, source, codeDescription", undef.severity === 1 && undef.source === "planctl" &&
    undef.codeDescription.href.endsWith("diagnostics.md#ref_undefined_step"), undef);
  const rel = undef.relatedInformation?.[0];
  check("diagnostics: related information", rel && rel.location.uri === uri && same(rel.location.range.start, pos(text, '"locs"', 0, 0)) &&
    same(rel.location.range.end, pos(text, '"locs"', 6, 0)) && rel.message.includes("defined here"), rel);

  // Quick fix: the did-you-mean.
  const actions = await conn.sendRequest(lsp.CodeActionRequest.type, {
    textDocument: { uri }, range: undef.range, context: { diagnostics: [undef] },
  });
  const fix = actions.find((a) => a.title.includes('"locs"'));
  const edit = fix?.edit?.changes?.[uri]?.[0];
  check("code action: did-you-mean as a quick fix", fix && fix.kind === "quickfix" && edit && edit.newText === '"locs"' &&
    same(edit.range.start, undef.range.start) && same(edit.range.end, undef.range.end), actions);

  // Hover on a tool name: its signature as Concierge renders it.
  let h = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: pos(text, '"get_weather"', 3) });
  check("hover: a tool's Concierge signature", h && h.contents.value.includes("get_weather(lat: number [sharable], lon: number [sharable], start_date: string") &&
    h.contents.value.includes("returns: {"), h);
  // Hover on a reference: the step it reads, the type at the path, sharable.
  h = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: pos(text, '["lat"]', 2) });
  check("hover: a reference", h && h.contents.value.includes("reads step `locs`") && h.contents.value.includes('`["lat"]` → `number`') &&
    h.contents.value.includes("is sharable"), h);
  h = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: pos(text, '"calendar": ["today"]', 2) });
  check("hover: a reference on a parameter that is not sharable", h && h.contents.value.includes("**not sharable**"), h);

  h = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: pos(text, '"locs"', 2, 0) });
  check("hover: a step id, and how many steps read it", h && h.contents.value.includes("calls `search_locations`; 2 later steps read its output"), h);
  h = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: pos(text, '"base_city"', 2) });
  check("hover: an argument name", h && h.contents.value.includes("`base_city: string` (parameter of `search_locations`, required, sharable") &&
    same(h.range.start, pos(text, '"base_city"')), h);

  // Definition: from a reference to the step it reads.
  const def = await conn.sendRequest(lsp.DefinitionRequest.type, { textDocument: { uri }, position: pos(text, '{"locs": ["lat"]}', 3) });
  const loc = Array.isArray(def) ? def[0] : def;
  check("definition: a reference goes to the step's id", loc && same(loc.range.start, pos(text, '"locs"', 0, 0)), def);

  // References: from a step to the steps that read it.
  const refs = await conn.sendRequest(lsp.ReferencesRequest.type, {
    textDocument: { uri }, position: pos(text, '"locs"', 2, 0), context: { includeDeclaration: false },
  });
  const starts = (refs || []).map((r) => r.range.start);
  check("references: the steps that read a step", starts.length === 2 && same(starts[0], pos(text, '"locs"', 0, 1)) &&
    same(starts[1], pos(text, '"locs"', 0, 2)), refs);

  // Document symbols: the steps.
  const syms = await conn.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: { uri } });
  check("document symbols: the steps", syms.map((s) => s.name).join(",") === "locs,wx,tell,calendar" &&
    syms[1].detail === "get_weather" && same(syms[1].selectionRange.start, pos(text, '"wx"')), syms);

  // Completion: earlier step ids inside output_by_reference.
  let c = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(text, '"lcos"', 1) });
  check("completion: earlier step ids in output_by_reference", c.items.map((i) => i.label).join(",") === "locs", c.items.map((i) => i.label));
  // Path keys from the source tool's outputSchema.
  c = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(text, '["lat"]', 2) });
  const keys = c.items.map((i) => i.label).sort().join(",");
  check("completion: path keys from the outputSchema", keys === "lat,lon,name,results" && c.items.find((i) => i.label === "lat").detail === "number", c.items);
  // Tool names, with their documentation.
  c = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(text, '"notify"', 1) });
  const notify = c.items.find((i) => i.label === "notify");
  check("completion: tool names", c.items.length >= 10 && notify && notify.documentation.value.includes("notify(channel: string, message: string [sharable])"), c.items.map((i) => i.label));
  // Argument names from the tool's inputSchema: in the key "channel",
  // "message" (written after it) is not offered again.
  c = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(text, '"channel"', 1) });
  check("completion: argument names, but those written", c.items.map((i) => i.label).sort().join(",") === "channel" &&
    c.items.find((i) => i.label === "channel").detail.includes("required"), c.items);

  // A change: fix the typo by hand, then watch the diagnostic go.
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: edit.range, text: '"locs"' }],
  });
  const after = (await diagnostics(uri, 2)).diagnostics;
  check("diagnostics: on change (incremental)", after.length === diags.length - 1 && !after.some((d) => d.code === "REF_UNDEFINED_STEP"), after.map((d) => d.code));
  // A later step reading it now: references count three.
  const refs2 = await conn.sendRequest(lsp.ReferencesRequest.type, {
    textDocument: { uri }, position: pos(text, '"locs"', 2, 0), context: { includeDeclaration: true },
  });
  check("references: after the change, with the declaration", refs2.length === 4, refs2);
}

// Completion while the text is not valid JSON.
{
  const file = path.join(samples, "typing.json");
  const text = '{"steps": [\n  {"id": "b", "tool": "create_backup", "args": {"database": "prod"}},\n  {"id": "v", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"b": ["ba';
  const { uri } = await open(file, text);
  let c = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(text, '["ba', 4) });
  const item = c.items.find((i) => i.label === "backup_id");
  check("completion: a path in a half-typed plan", item && same(item.textEdit.range.start, pos(text, '["ba', 2)) && same(item.textEdit.range.end, pos(text, '["ba', 4)), c.items);
  const t2 = '[{"id": "x", "tool": "cre';
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: t2 }] });
  c = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: pos(t2, '"cre', 4) });
  check("completion: a tool in a half-typed array of steps", c.items.some((i) => i.label === "create_backup"), c.items.map((i) => i.label));
  const d = (await diagnostics(uri, 2)).diagnostics;
  check("diagnostics: a half-typed plan is a JSON_SYNTAX error", d.length === 1 && d[0].code === "JSON_SYNTAX", d);
}

// UTF-16: a plan with characters outside the Basic Multilingual Plane.
{
  const file = path.join(workspace, "astral.json");
  const { text, diags } = await open(file);
  const d = diags.find((x) => x.code === "UNKNOWN_TOOL");
  check("diagnostics: UTF-16 ranges after astral characters", d && same(d.range.start, pos(text, '"ech0"')) && same(d.range.end, pos(text, '"ech0"', 6)) &&
    sameAsValidate(file, text, diags), diags);
}

// The quick fixes the validator knows besides did-you-mean.
{
  const file = path.join(samples, "invalid-steps.json");
  const { uri, text, diags } = await open(file);
  const all = await conn.sendRequest(lsp.CodeActionRequest.type, {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: pos(text, "]\n}") }, context: { diagnostics: diags },
  });
  const titles = all.map((a) => a.title);
  check("diagnostics: invalid-steps.json as validate reports it", sameAsValidate(file, text, diags), diags);
  check("code actions: each did-you-mean of a file", ['"create_bakup" to "create_backup"', '"name" to "tool"', '"arguments" to "args"'].every((t) => titles.some((x) => x.includes(t))), titles);
}

await shutdown();

async function shutdown() {
  await endSession(server, mode + ": exit after shutdown");
}
