// The VS Code side of planctl: a language client for plan files (planctl
// lsp), the planctl debug type (planctl dap over stdio) and three commands.
// What each piece decides lives in planctl.ts, where tests reach it.

import { execFile } from "child_process";
import * as path from "path";
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";
import {
  COMMANDS,
  DEBUG_TYPE,
  ToolSource,
  batches,
  cleanToolSource,
  clientSettings,
  debugArgs,
  findPlanctl,
  parseValidateOutput,
  planDocumentSelector,
  resolveLaunch,
  runArgs,
  validateArgs,
} from "./planctl";

let client: LanguageClient | undefined;
let starting: Promise<void> | undefined;
// gaveUp is set when planctl or its settings are wrong: the error was shown
// once, and opening more plans does not repeat it until the settings change.
let gaveUp = false;
let output: vscode.OutputChannel;

/** activate starts the language server and registers the debugger and commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("planctl");
  const found = vscode.languages.createDiagnosticCollection("planctl validate");
  context.subscriptions.push(output, found);

  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      createDebugAdapterDescriptor(session) {
        const exe = planctlOrError(session.workspaceFolder);
        return exe ? new vscode.DebugAdapterExecutable(exe, ["dap"]) : undefined;
      },
    }),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
      resolveDebugConfiguration(folder, config) {
        const editor = vscode.window.activeTextEditor;
        const src = toolSource(folder?.uri);
        if (!src) {
          return undefined;
        }
        const r = resolveLaunch(config, {
          activeFile: editor?.document.uri.scheme === "file" ? editor.document.uri.fsPath : undefined,
          activeLanguage: editor?.document.languageId,
          folder: folder?.uri.fsPath,
          source: src,
        });
        if ("error" in r) {
          void vscode.window.showErrorMessage(r.error);
          return undefined;
        }
        return r.config as vscode.DebugConfiguration;
      },
    }),
    vscode.commands.registerCommand(COMMANDS.validateWorkspace, () => validateWorkspace(found)),
    vscode.commands.registerCommand(COMMANDS.runPlan, () => inTerminal("run")),
    vscode.commands.registerCommand(COMMANDS.debugPlanInTerminal, () => inTerminal("debug")),
    vscode.commands.registerCommand(COMMANDS.restartLanguageServer, () => restartClient(true)),
    // Findings of a workspace validation go stale as soon as the file changes;
    // the language server reports on open plans from then on.
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) {
        found.delete(e.document.uri);
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("planctl.path") || e.affectsConfiguration("planctl.planFiles") || e.affectsConfiguration("planctl.toolSource")) {
        void restartClient();
      }
    }),
  );
  // planctl lsp starts with the first plan file opened, not with every JSON
  // file that activates the extension.
  const startOnPlan = (doc: vscode.TextDocument) => {
    if (!client && !starting && !gaveUp && isPlan(doc)) {
      void startClient();
    }
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(startOnPlan));
  vscode.workspace.textDocuments.forEach(startOnPlan);
  await starting;
}

function isPlan(doc: vscode.TextDocument): boolean {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const patterns = vscode.workspace.getConfiguration("planctl", folder?.uri ?? doc.uri).get<string[]>("planFiles");
  return vscode.languages.match(planDocumentSelector(patterns), doc) > 0;
}

/** deactivate stops the language server. */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

function firstFolder(): vscode.WorkspaceFolder | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
}

function planctlOrError(folder: vscode.WorkspaceFolder | undefined): string | undefined {
  const setting = vscode.workspace.getConfiguration("planctl", folder?.uri).get<string>("path");
  const r = findPlanctl(setting, folder?.uri.fsPath);
  if ("error" in r) {
    void vscode.window.showErrorMessage(r.error, "Open Settings").then((pick) => {
      if (pick) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "planctl.path");
      }
    });
    return undefined;
  }
  return r.path;
}

function toolSource(scope: vscode.Uri | undefined): ToolSource | undefined {
  const r = cleanToolSource(vscode.workspace.getConfiguration("planctl", scope).get("toolSource"));
  if ("error" in r) {
    void vscode.window.showErrorMessage(r.error);
    return undefined;
  }
  return r.source;
}

function startClient(): Promise<void> {
  starting = startClientNow().finally(() => {
    starting = undefined;
  });
  return starting;
}

async function startClientNow(): Promise<void> {
  const folder = firstFolder();
  const exe = planctlOrError(folder);
  const src = toolSource(folder?.uri);
  if (!exe || !src) {
    gaveUp = true;
    return;
  }
  const patterns = vscode.workspace.getConfiguration("planctl", folder?.uri).get<string[]>("planFiles");
  const s = clientSettings(exe, patterns, src, folder?.uri.fsPath);
  const c = new LanguageClient("planctl", "planctl", s.serverOptions, {
    ...s.clientOptions,
    outputChannel: output,
  });
  client = c;
  try {
    await c.start();
  } catch (e) {
    output.appendLine(`planctl lsp did not start: ${(e as Error).message}`);
    void vscode.window.showErrorMessage(`planctl lsp did not start: ${(e as Error).message}`);
  }
}

/** restartClient stops planctl lsp and starts it again when a plan is open (or always, when asked by the command). */
async function restartClient(always = false): Promise<void> {
  await starting;
  gaveUp = false;
  const old = client;
  client = undefined;
  await old?.stop().catch(() => undefined);
  if (always || old || vscode.workspace.textDocuments.some(isPlan)) {
    await startClient();
  }
}

/** inTerminal runs planctl on the active plan in an integrated terminal (the TUI needs one). */
async function inTerminal(what: "run" | "debug"): Promise<void> {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.uri.scheme !== "file") {
    void vscode.window.showErrorMessage(`open a plan file to ${what} it`);
    return;
  }
  if (doc.isDirty && !(await doc.save())) {
    return;
  }
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const exe = planctlOrError(folder);
  const src = toolSource(doc.uri);
  if (!exe || !src) {
    return;
  }
  const file = doc.uri.fsPath;
  const term = vscode.window.createTerminal({
    name: `planctl ${what} ${path.basename(file)}`,
    shellPath: exe,
    shellArgs: what === "run" ? runArgs(file, src) : debugArgs(file, src),
    cwd: folder?.uri.fsPath ?? path.dirname(file),
  });
  term.show();
}

/** validateWorkspace checks every plan file of every folder and fills the Problems panel. */
async function validateWorkspace(found: vscode.DiagnosticCollection): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showErrorMessage("open a folder to validate its plans");
    return;
  }
  found.clear();
  const total = { errors: 0, warnings: 0, infos: 0, files: 0 };
  for (const folder of folders) {
    const exe = planctlOrError(folder);
    const src = toolSource(folder.uri);
    if (!exe || !src) {
      return;
    }
    const patterns = vscode.workspace.getConfiguration("planctl", folder.uri).get<string[]>("planFiles") ?? [];
    const uris = new Map<string, vscode.Uri>();
    for (const p of patterns) {
      for (const u of await vscode.workspace.findFiles(new vscode.RelativePattern(folder, p), "**/node_modules/**")) {
        uris.set(u.fsPath, u);
      }
    }
    const files = [...uris.keys()].map((f) => path.relative(folder.uri.fsPath, f)).sort();
    total.files += files.length;
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const batch of batches(files)) {
      const r = await new Promise<ReturnType<typeof parseValidateOutput>>((resolve) => {
        execFile(exe, validateArgs(batch, src), { cwd: folder.uri.fsPath, maxBuffer: 1 << 30 }, (err, stdout, stderr) => {
          const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
          resolve(parseValidateOutput(stdout, stderr, code, folder.uri.fsPath));
        });
      });
      if ("error" in r) {
        void vscode.window.showErrorMessage(`planctl validate: ${r.error}`);
        return;
      }
      total.errors += r.summary.errors;
      total.warnings += r.summary.warnings;
      total.infos += r.summary.infos;
      for (const f of r.findings) {
        const d = new vscode.Diagnostic(
          new vscode.Range(f.startLine, f.startColumn, f.endLine, f.endColumn),
          f.message,
          f.severity === "error"
            ? vscode.DiagnosticSeverity.Error
            : f.severity === "warning"
              ? vscode.DiagnosticSeverity.Warning
              : vscode.DiagnosticSeverity.Information,
        );
        d.code = f.code;
        d.source = "planctl";
        const list = byFile.get(f.file) ?? [];
        list.push(d);
        byFile.set(f.file, list);
      }
    }
    for (const [file, list] of byFile) {
      found.set(vscode.Uri.file(file), list);
    }
  }
  void vscode.window.showInformationMessage(
    `planctl validate: ${total.files} plan files, ${total.errors} errors, ${total.warnings} warnings, ${total.infos} notes`,
  );
}
