// The extension's pieces that need no VS Code binary: the planctl lookup,
// the plan file selector, the language client's options (driven against the
// real planctl lsp), the launch configurations F5 produces, the command lines
// and the reading of planctl validate's report (from the real binary).

import * as assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import {
  DEFAULT_PLAN_FILES,
  batches,
  cleanToolSource,
  clientSettings,
  debugArgs,
  findPlanctl,
  parseValidateOutput,
  planDocumentSelector,
  resolveLaunch,
  runArgs,
  utf16Column,
  validateArgs,
} from "../src/planctl";
import { makeWorkspace, planctlBinary, repo } from "./helpers";

// VS Code matches a document filter's pattern against the file's path.
function selected(file: string, patterns?: string[]): boolean {
  return planDocumentSelector(patterns).some((f) => path.matchesGlob(file, f.pattern));
}

test("plan files are selected and other JSON files are not", () => {
  for (const f of ["/w/plans/backup.json", "/w/plans/nightly/db.json", "/w/x/plans/a.json", "/w/backup.plan.json", "/w/a/b/c.plan.json"]) {
    assert.ok(selected(f), `${f} should reach planctl lsp`);
  }
  for (const f of ["/w/package.json", "/w/tsconfig.json", "/w/.vscode/launch.json", "/w/plans.json", "/w/plan.json", "/w/myplans/a.json", "/w/plans/readme.md"]) {
    assert.ok(!selected(f), `${f} should not reach planctl lsp`);
  }
  assert.ok(selected("/w/flows/a.json", ["**/flows/*.json"]));
  assert.ok(!selected("/w/plans/a.json", ["**/flows/*.json"]), "the setting replaces the defaults");
  assert.deepEqual(planDocumentSelector([]).map((f) => f.pattern), DEFAULT_PLAN_FILES, "an empty setting keeps the defaults");
  assert.ok(planDocumentSelector(undefined).every((f) => f.scheme === "file"));
});

test("planctl is found through planctl.path or on PATH", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "planctl-path-"));
  const exe = path.join(dir, "planctl");
  fs.writeFileSync(exe, "#!/bin/sh\n", { mode: 0o755 });
  const other = path.join(dir, "planctl-dev");
  fs.writeFileSync(other, "#!/bin/sh\n", { mode: 0o755 });
  const notExec = path.join(dir, "plain");
  fs.writeFileSync(notExec, "", { mode: 0o644 });

  assert.deepEqual(findPlanctl("", undefined, { PATH: `/nonexistent${path.delimiter}${dir}` }), { path: exe });
  assert.deepEqual(findPlanctl(undefined, undefined, { PATH: dir }), { path: exe });
  assert.deepEqual(findPlanctl(other, undefined, { PATH: "" }), { path: other });
  assert.deepEqual(findPlanctl("planctl-dev", undefined, { PATH: dir }), { path: other });
  assert.deepEqual(findPlanctl(`.${path.sep}planctl-dev`, dir, { PATH: "" }), { path: other });

  let r = findPlanctl("", undefined, { PATH: "/nonexistent" });
  assert.ok("error" in r && /not found on PATH/.test(r.error) && /planctl\.path/.test(r.error), JSON.stringify(r));
  r = findPlanctl(notExec, undefined, { PATH: dir });
  assert.ok("error" in r && /not an executable/.test(r.error), JSON.stringify(r));
  r = findPlanctl(path.join(dir, "missing"), undefined, { PATH: dir });
  assert.ok("error" in r && /planctl\.path/.test(r.error), JSON.stringify(r));
  // An empty PATH entry is not the current folder here.
  r = findPlanctl("", undefined, { PATH: "" });
  assert.ok("error" in r);
});

test("the tool source setting is checked and becomes flags", () => {
  assert.deepEqual(cleanToolSource(undefined), { source: {} });
  assert.deepEqual(cleanToolSource({ catalog: "", header: [] }), { source: {} });
  assert.deepEqual(cleanToolSource({ config: "mcp.json", name: "db", sharable: ["*.id"] }), {
    source: { config: "mcp.json", name: "db", sharable: ["*.id"] },
  });
  for (const bad of [[], "tools.json", { catalog: 1 }, { header: "K: V" }, { serverName: "db" }]) {
    assert.ok("error" in cleanToolSource(bad), JSON.stringify(bad));
  }
  const src = { catalog: "tools.json", header: ["A: 1", "B: 2"], sharable: ["x.y"] };
  assert.deepEqual(runArgs("plans/a.json", src), ["run", "--catalog", "tools.json", "--header", "A: 1", "--header", "B: 2", "--sharable", "x.y", "--", "plans/a.json"]);
  assert.deepEqual(debugArgs("-odd.json", {}), ["debug", "--", "-odd.json"]);
  assert.deepEqual(validateArgs(["a.json", "b.json"], { config: "mcp.json", name: "db" }), ["validate", "--format", "json", "--config", "mcp.json", "--name", "db", "--", "a.json", "b.json"]);
});

test("batches keep every file, in order, under the bound", () => {
  const files = Array.from({ length: 1000 }, (_, i) => `plans/some/deep/folder/plan-${i}.json`);
  const b = batches(files, 2000);
  assert.ok(b.length > 1);
  assert.deepEqual(b.flat(), files);
  for (const x of b) {
    assert.ok(x.join(" ").length <= 2000);
  }
  assert.deepEqual(batches([]), []);
});

test("F5 without launch.json debugs the active plan; a configuration takes the settings' tool source", () => {
  let r = resolveLaunch({}, { activeFile: "/w/plans/a.json", activeLanguage: "json", folder: "/w", source: {} });
  assert.deepEqual(r, {
    config: { type: "planctl", request: "launch", name: "Debug this plan", program: "${file}", cwd: "${workspaceFolder}", stopOnEntry: true },
  });
  r = resolveLaunch({}, { activeFile: "/tmp/x/a.json", activeLanguage: "json", source: {} });
  assert.ok("config" in r && r.config.cwd === "/tmp/x", "with no folder, cwd is the plan's folder");
  assert.ok("error" in resolveLaunch({}, { source: {} }));
  assert.ok("error" in resolveLaunch({}, { activeFile: "/w/a.ts", activeLanguage: "typescript", source: {} }));
  assert.ok("error" in resolveLaunch({ type: "planctl", request: "launch", name: "x" }, { source: {} }));
  assert.ok("error" in resolveLaunch({ type: "planctl", request: "lunch", name: "x", program: "a" }, { source: {} }));
  const attach = { type: "planctl", request: "attach", name: "x", program: "a", debugServer: 4711 };
  assert.deepEqual(resolveLaunch(attach, { source: { catalog: "tools.json" } }), { config: attach });

  const base = { type: "planctl", request: "launch", name: "Debug this plan", program: "${file}" };
  r = resolveLaunch(base, { folder: "/w", source: { config: "mcp.json", name: "db", header: ["A: 1"] } });
  assert.deepEqual(r, { config: { ...base, config: "mcp.json", serverName: "db", headers: ["A: 1"], cwd: "/w" } });
  r = resolveLaunch({ ...base, catalog: "mine.json" }, { folder: "/w", source: { catalog: "tools.json" } });
  assert.deepEqual(r, { config: { ...base, catalog: "mine.json" } }, "a configuration's own tool source wins");
});

function run(bin: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(bin, args, { cwd }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? Number((err as any).code) : 0 });
    });
  });
}

test("planctl validate's report becomes findings (real binary)", async () => {
  const bin = planctlBinary();
  let out = await run(bin, validateArgs(["samples/invalid-steps.json", "samples/backup.json"], {}), repo);
  let r = parseValidateOutput(out.stdout, out.stderr, out.code, repo);
  assert.ok("findings" in r, JSON.stringify(r));
  const unknown = r.findings.find((f) => f.code === "UNKNOWN_TOOL");
  assert.ok(unknown);
  // planctl says line 3, columns 30-44 (1-based); editors count from 0.
  assert.deepEqual(
    [unknown.file, unknown.severity, unknown.startLine, unknown.startColumn, unknown.endLine, unknown.endColumn],
    [path.join(repo, "samples/invalid-steps.json"), "error", 2, 29, 2, 43],
  );
  assert.equal(r.summary.errors, r.findings.filter((f) => f.severity === "error").length);
  assert.ok(r.findings.every((f) => !f.file.endsWith("backup.json")));

  // Columns: planctl counts code points, VS Code UTF-16 units (an emoji is two).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "planctl-utf16-"));
  fs.writeFileSync(path.join(dir, "u.json"), '{"steps": [{"id": "a", "tool": "😀nope", "args": {}}]}\n');
  out = await run(bin, validateArgs(["u.json"], {}), dir);
  r = parseValidateOutput(out.stdout, out.stderr, out.code, dir);
  assert.ok("findings" in r, JSON.stringify(r));
  const tool = r.findings.find((f) => f.code === "UNKNOWN_TOOL");
  assert.ok(tool, JSON.stringify(r.findings));
  const text = fs.readFileSync(path.join(dir, "u.json"), "utf8");
  assert.equal(text.slice(tool.startColumn, tool.endColumn), '"😀nope"');
  assert.equal(utf16Column("a😀b", 2), 3);
  assert.equal(utf16Column("ab", 5), 5);
  assert.equal(utf16Column(undefined, 4), 4);

  out = await run(bin, validateArgs(["no-such-plan.json"], {}), repo);
  r = parseValidateOutput(out.stdout, out.stderr, out.code, repo);
  assert.ok("error" in r && /no-such-plan\.json/.test(r.error), JSON.stringify(r));
  assert.ok("error" in parseValidateOutput("not json", "", 1, repo));
});

test("the client options start planctl lsp with the settings' tool source (real binary)", async (t) => {
  const ws = makeWorkspace();
  // A tool only the workspace's catalog has: the demo catalog does not know it.
  const cat = JSON.parse(fs.readFileSync(ws.catalog, "utf8"));
  cat.tools.push({ name: "only_in_this_workspace", inputSchema: { type: "object" } });
  fs.writeFileSync(ws.catalog, JSON.stringify(cat));
  const plan = path.join(ws.dir, "plans", "local.json");
  const text = '{"steps": [{"id": "a", "tool": "only_in_this_workspace", "args": {}}]}';
  fs.writeFileSync(plan, text);

  async function codesWith(source: object): Promise<string[]> {
    const s = clientSettings(planctlBinary(), undefined, source, ws.dir);
    assert.ok(planDocumentSelector(undefined).some((f) => path.matchesGlob(plan, f.pattern)));
    const proc = spawn(s.serverOptions.command, s.serverOptions.args, { cwd: s.serverOptions.options?.cwd, stdio: ["pipe", "pipe", "inherit"] });
    const conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    conn.listen();
    try {
      const published = new Promise<any>((resolve) => conn.onNotification("textDocument/publishDiagnostics", resolve));
      await conn.sendRequest("initialize", {
        processId: process.pid,
        rootUri: "file://" + ws.dir,
        workspaceFolders: [{ uri: "file://" + ws.dir, name: "ws" }],
        capabilities: {},
        initializationOptions: s.clientOptions.initializationOptions,
      });
      await conn.sendNotification("initialized", {});
      await conn.sendNotification("textDocument/didOpen", {
        textDocument: { uri: "file://" + plan, languageId: "json", version: 1, text },
      });
      const p = await published;
      return p.diagnostics.map((d: any) => d.code);
    } finally {
      await conn.sendRequest("shutdown").catch(() => undefined);
      await conn.sendNotification("exit").catch(() => undefined);
      conn.dispose();
      proc.kill();
    }
  }
  const s = clientSettings("planctl", undefined, {}, ws.dir);
  assert.equal(s.clientOptions.initializationOptions, undefined, "no setting: planctl reads .planctl.json itself");
  assert.deepEqual(await codesWith({ catalog: "tools.json" }), []);
  assert.ok((await codesWith({})).includes("UNKNOWN_TOOL"), "without the setting the demo catalog is used");
  // .planctl.json at the workspace root is what the empty setting leaves to planctl.
  fs.writeFileSync(path.join(ws.dir, ".planctl.json"), JSON.stringify({ catalog: "tools.json" }));
  assert.deepEqual(await codesWith({}), []);
  t.after(() => fs.rmSync(ws.dir, { recursive: true, force: true }));
});
