// extension.ts wired to a stand-in for the vscode module (VS Code's API is
// not available outside VS Code) and to a language client that records how
// it was made: activate registers every command, the debug adapter and the
// configuration provider, and starts the client on plan files; the commands
// start planctl as they should, and Validate Plans in Workspace runs the
// real planctl over the workspace's plans.

import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as Module from "node:module";
import * as path from "node:path";
import { test } from "node:test";
import { COMMANDS } from "../src/planctl";
import { makeWorkspace, planctlBinary } from "./helpers";

class Uri {
  constructor(readonly fsPath: string, readonly scheme = "file") {}
  static file(p: string): Uri {
    return new Uri(p);
  }
  toString(): string {
    return "file://" + this.fsPath;
  }
}

/** fakeVSCode is the part of VS Code's API the extension uses, recording what it is asked. */
function fakeVSCode(settings: Record<string, unknown>, folder: string, files: string[]) {
  const rec = {
    commands: new Map<string, (...a: unknown[]) => unknown>(),
    errors: [] as string[],
    infos: [] as string[],
    terminals: [] as any[],
    factories: new Map<string, any>(),
    providers: new Map<string, any>(),
    diagnostics: new Map<string, any[]>(),
    activeTextEditor: undefined as any,
    textDocuments: [] as any[],
    onOpen: [] as ((d: any) => void)[],
  };
  const wsFolder = { uri: Uri.file(folder), name: path.basename(folder), index: 0 };
  const vscode = {
    Uri,
    Range: class {
      constructor(readonly startLine: number, readonly startCharacter: number, readonly endLine: number, readonly endCharacter: number) {}
    },
    Diagnostic: class {
      code?: string;
      source?: string;
      constructor(readonly range: unknown, readonly message: string, readonly severity: number) {}
    },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    RelativePattern: class {
      constructor(readonly base: unknown, readonly pattern: string) {}
    },
    DebugAdapterExecutable: class {
      constructor(readonly command: string, readonly args: string[]) {}
    },
    window: {
      createOutputChannel: () => ({ appendLine() {}, dispose() {} }),
      showErrorMessage: (m: string) => {
        rec.errors.push(m);
        return Promise.resolve(undefined);
      },
      showInformationMessage: (m: string) => {
        rec.infos.push(m);
        return Promise.resolve(undefined);
      },
      createTerminal: (o: any) => {
        rec.terminals.push(o);
        return { show() {} };
      },
      get activeTextEditor() {
        return rec.activeTextEditor;
      },
    },
    languages: {
      // VS Code's match, for the filters the extension gives: scheme and path glob.
      match: (sel: { scheme: string; pattern: string }[], doc: any) =>
        sel.some((f) => f.scheme === doc.uri.scheme && path.matchesGlob(doc.uri.fsPath, f.pattern)) ? 10 : 0,
      createDiagnosticCollection: () => ({
        set: (u: Uri, d: any[]) => rec.diagnostics.set(u.fsPath, d),
        delete: (u: Uri) => rec.diagnostics.delete(u.fsPath),
        clear: () => rec.diagnostics.clear(),
        dispose() {},
      }),
    },
    debug: {
      registerDebugAdapterDescriptorFactory: (t: string, f: any) => (rec.factories.set(t, f), { dispose() {} }),
      registerDebugConfigurationProvider: (t: string, p: any) => (rec.providers.set(t, p), { dispose() {} }),
    },
    commands: {
      registerCommand: (id: string, f: any) => (rec.commands.set(id, f), { dispose() {} }),
      executeCommand: () => Promise.resolve(),
    },
    workspace: {
      workspaceFolders: [wsFolder],
      getWorkspaceFolder: () => wsFolder,
      getConfiguration: (section: string) => ({
        get: (key: string) => settings[`${section}.${key}`],
      }),
      findFiles: async (p: any) => files.filter((f) => path.matchesGlob(f, path.join(folder, p.pattern))).map((f) => Uri.file(f)),
      onDidChangeTextDocument: () => ({ dispose() {} }),
      onDidOpenTextDocument: (f: (d: any) => void) => (rec.onOpen.push(f), { dispose() {} }),
      get textDocuments() {
        return rec.textDocuments;
      },
      onDidChangeConfiguration: () => ({ dispose() {} }),
    },
  };
  return { vscode, rec, wsFolder };
}

/** The language clients the extension made, with their options. */
const clients: { id: string; server: any; options: any; started: boolean; stopped: boolean }[] = [];
class FakeLanguageClient {
  private readonly c: (typeof clients)[number];
  constructor(id: string, _name: string, server: any, options: any) {
    this.c = { id, server, options, started: false, stopped: false };
    clients.push(this.c);
  }
  async start(): Promise<void> {
    this.c.started = true;
  }
  async stop(): Promise<void> {
    this.c.stopped = true;
  }
}

/** load requires extension.js afresh with the stand-ins in place of vscode and the client. */
function load(vscode: unknown): any {
  const M = Module as any;
  const orig = M._load;
  M._load = function (request: string, ...rest: unknown[]) {
    if (request === "vscode") return vscode;
    if (request === "vscode-languageclient/node") return { LanguageClient: FakeLanguageClient };
    return orig.call(this, request, ...rest);
  };
  try {
    const p = require.resolve("../src/extension");
    delete require.cache[p];
    return require(p);
  } finally {
    M._load = orig;
  }
}

test("activate registers everything and starts planctl lsp for plan files", async () => {
  const ws = makeWorkspace();
  const bin = planctlBinary();
  const { vscode, rec, wsFolder } = fakeVSCode(
    { "planctl.path": bin, "planctl.planFiles": ["**/plans/**/*.json", "**/*.plan.json"], "planctl.toolSource": { catalog: "tools.json" } },
    ws.dir,
    [],
  );
  clients.length = 0;
  const ext = load(vscode);
  // A JSON file that is not a plan activates the extension, and starts no planctl.
  rec.textDocuments.push({ uri: Uri.file(path.join(ws.dir, "package.json")), languageId: "json" });
  await ext.activate({ subscriptions: [] });
  assert.deepEqual([...rec.commands.keys()].sort(), Object.values(COMMANDS).sort());
  assert.deepEqual(rec.errors, []);
  assert.equal(clients.length, 0, "planctl lsp started for package.json");
  const plan = { uri: Uri.file(ws.plan), languageId: "json" };
  rec.textDocuments.push(plan);
  rec.onOpen.forEach((f) => f(plan));
  rec.onOpen.forEach((f) => f(plan));
  assert.equal(clients.length, 1, "one client for the plans");
  const c = clients[0];
  assert.ok(c.started);
  assert.deepEqual(c.server, { command: bin, args: ["lsp"], options: { cwd: ws.dir } });
  assert.deepEqual(c.options.documentSelector, [
    { scheme: "file", pattern: "**/plans/**/*.json" },
    { scheme: "file", pattern: "**/*.plan.json" },
  ]);
  assert.deepEqual(c.options.initializationOptions, { catalog: "tools.json" });

  // The debug adapter is planctl dap; F5 on the plan gives a launch configuration.
  const exe = rec.factories.get("planctl").createDebugAdapterDescriptor({ workspaceFolder: wsFolder });
  assert.deepEqual([exe.command, exe.args], [bin, ["dap"]]);
  rec.activeTextEditor = { document: { uri: Uri.file(ws.plan), languageId: "json", isDirty: false } };
  const cfg = rec.providers.get("planctl").resolveDebugConfiguration(wsFolder, {});
  assert.deepEqual(cfg, {
    type: "planctl", request: "launch", name: "Debug this plan", program: "${file}", cwd: "${workspaceFolder}",
    stopOnEntry: true, catalog: "tools.json",
  });

  // Run and the TUI start planctl itself in a terminal, on the plan in the editor.
  await rec.commands.get(COMMANDS.runPlan)!();
  await rec.commands.get(COMMANDS.debugPlanInTerminal)!();
  assert.deepEqual(
    rec.terminals.map((t) => [t.shellPath, t.shellArgs, t.cwd]),
    [
      [bin, ["run", "--catalog", "tools.json", "--", ws.plan], ws.dir],
      [bin, ["debug", "--catalog", "tools.json", "--", ws.plan], ws.dir],
    ],
  );

  // What the run terminal starts, run here: the plan's response.
  const run = rec.terminals[0];
  const response = execFileSync(run.shellPath, run.shellArgs, { cwd: run.cwd, encoding: "utf8" });
  assert.match(response, /"status": "completed"/);

  // Restart stops the old client and makes a new one.
  await rec.commands.get(COMMANDS.restartLanguageServer)!();
  assert.equal(clients.length, 2);
  assert.ok(clients[0].stopped && clients[1].started);
  await ext.deactivate();
  assert.ok(clients[1].stopped);
});

test("Validate Plans in Workspace runs planctl on every plan file into the Problems panel", async () => {
  const ws = makeWorkspace();
  const broken = path.join(ws.dir, "plans", "nightly", "broken.json");
  fs.mkdirSync(path.dirname(broken));
  fs.writeFileSync(broken, '{"steps": [{"id": "a", "tool": "no_such_tool", "args": {}}]}');
  const other = path.join(ws.dir, "flows", "x.plan.json");
  fs.mkdirSync(path.dirname(other));
  fs.writeFileSync(other, '{"steps": [{"id": "a", "tool": "create_backup"}]}');
  const pkg = path.join(ws.dir, "package.json");
  fs.writeFileSync(pkg, '{"name": "web"}');
  const { vscode, rec } = fakeVSCode(
    { "planctl.path": planctlBinary(), "planctl.planFiles": ["**/plans/**/*.json", "**/*.plan.json"], "planctl.toolSource": { catalog: "tools.json" } },
    ws.dir,
    [ws.plan, broken, other, pkg, ws.catalog, ws.config],
  );
  const ext = load(vscode);
  await ext.activate({ subscriptions: [] });
  await rec.commands.get(COMMANDS.validateWorkspace)!();
  assert.deepEqual(rec.errors, []);
  assert.deepEqual([...rec.diagnostics.keys()].sort(), [other, broken].sort());
  const d = rec.diagnostics.get(broken)![0];
  assert.equal(d.code, "UNKNOWN_TOOL");
  assert.equal(d.source, "planctl");
  assert.equal(d.severity, 0);
  assert.match(rec.infos[0], /^planctl validate: 3 plan files, 2 errors/);
  await ext.deactivate();
});

test("without planctl the extension says how to get it, and starts nothing", async () => {
  const ws = makeWorkspace();
  const savedPath = process.env.PATH;
  process.env.PATH = path.join(ws.dir, "no-bin");
  try {
    const { vscode, rec } = fakeVSCode({ "planctl.path": "" }, ws.dir, []);
    rec.textDocuments.push({ uri: Uri.file(ws.plan), languageId: "json" });
    clients.length = 0;
    const ext = load(vscode);
    await ext.activate({ subscriptions: [] });
    assert.equal(clients.length, 0);
    // More plans opened: the error is not shown again.
    rec.onOpen.forEach((f) => f({ uri: Uri.file(path.join(ws.dir, "plans", "b.json")), languageId: "json" }));
    assert.equal(rec.errors.length, 1);
    assert.match(rec.errors[0], /planctl was not found on PATH: install it .* or set planctl\.path/);
    assert.equal(rec.factories.get("planctl").createDebugAdapterDescriptor({}), undefined);
  } finally {
    process.env.PATH = savedPath;
  }
});
