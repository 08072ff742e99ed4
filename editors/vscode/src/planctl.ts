// The extension's decisions, kept apart from the vscode module so that node's
// test runner checks them without a VS Code binary: which planctl to start,
// which files are plans, what the language client is given, what a launch
// configuration becomes and how `planctl validate --format json` is read.
// extension.ts only wires these into VS Code.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The plan file patterns used when the planctl.planFiles setting is not changed. */
export const DEFAULT_PLAN_FILES: readonly string[] = ["**/plans/**/*.json", "**/*.plan.json"];

/** The debug type the extension contributes; launch.json entries name it. */
export const DEBUG_TYPE = "planctl";

/** The commands the extension registers, as the manifest declares them. */
export const COMMANDS = {
  validateWorkspace: "planctl.validateWorkspace",
  runPlan: "planctl.runPlan",
  debugPlanInTerminal: "planctl.debugPlanInTerminal",
  restartLanguageServer: "planctl.restartLanguageServer",
} as const;

/**
 * A tool source as planctl lsp's initializationOptions and .planctl.json
 * spell it (the keys of the command line's tool source flags).
 */
export interface ToolSource {
  catalog?: string;
  server?: string;
  url?: string;
  header?: string[];
  config?: string;
  name?: string;
  replay?: string;
  sharable?: string[];
}

const stringKeys = ["catalog", "server", "url", "config", "name", "replay"] as const;
const listKeys = ["header", "sharable"] as const;

/**
 * Checks a planctl.toolSource setting and returns it without empty entries,
 * or an error naming the key that is wrong (settings.json is hand-written).
 */
export function cleanToolSource(value: unknown): { source: ToolSource } | { error: string } {
  if (value === undefined || value === null) {
    return { source: {} };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    return { error: "planctl.toolSource must be an object such as {\"catalog\": \"tools.json\"}" };
  }
  const out: ToolSource = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if ((stringKeys as readonly string[]).includes(key)) {
      if (typeof v !== "string") {
        return { error: `planctl.toolSource.${key} must be a string` };
      }
      if (v !== "") {
        (out as Record<string, string>)[key] = v;
      }
    } else if ((listKeys as readonly string[]).includes(key)) {
      if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
        return { error: `planctl.toolSource.${key} must be a list of strings` };
      }
      if (v.length > 0) {
        (out as Record<string, string[]>)[key] = v as string[];
      }
    } else {
      return {
        error: `planctl.toolSource has an unknown key "${key}": use catalog, server, url, header, config, name, replay or sharable`,
      };
    }
  }
  return { source: out };
}

/** toolSourceFlags is a tool source as planctl's command line flags. */
export function toolSourceFlags(source: ToolSource): string[] {
  const flags: string[] = [];
  for (const key of stringKeys) {
    const v = source[key];
    if (v) {
      flags.push(`--${key}`, v);
    }
  }
  for (const key of listKeys) {
    for (const v of source[key] ?? []) {
      flags.push(`--${key}`, v);
    }
  }
  return flags;
}

/** runArgs runs one plan to its end (`planctl run`). */
export function runArgs(file: string, source: ToolSource): string[] {
  return ["run", ...toolSourceFlags(source), "--", file];
}

/** debugArgs opens one plan in the terminal debugger (`planctl debug`). */
export function debugArgs(file: string, source: ToolSource): string[] {
  return ["debug", ...toolSourceFlags(source), "--", file];
}

/** validateArgs checks plan files and reports in JSON (`planctl validate`). */
export function validateArgs(files: string[], source: ToolSource): string[] {
  return ["validate", "--format", "json", ...toolSourceFlags(source), "--", ...files];
}

/** Environment of the planctl lookup: the process's, or a test's. */
export interface LookupEnv {
  PATH?: string;
  PATHEXT?: string;
  platform?: NodeJS.Platform;
}

/**
 * findPlanctl is the planctl executable: the planctl.path setting (relative
 * to the workspace folder when not absolute, ~ for the home directory), else
 * the first planctl on PATH. The error says how to fix it.
 */
export function findPlanctl(
  setting: string | undefined,
  folder: string | undefined,
  env: LookupEnv = { PATH: process.env.PATH, PATHEXT: process.env.PATHEXT },
): { path: string } | { error: string } {
  const platform = env.platform ?? process.platform;
  const exts = platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").concat([""]) : [""];
  if (setting && setting.trim() !== "") {
    let p = setting.trim();
    if (p === "~" || p.startsWith("~/")) {
      p = path.join(os.homedir(), p.slice(1));
    }
    if (!path.isAbsolute(p) && p.includes(path.sep) && folder) {
      p = path.join(folder, p);
    }
    if (path.isAbsolute(p)) {
      for (const ext of exts) {
        if (isExecutable(p + ext)) {
          return { path: p + ext };
        }
      }
      return { error: `planctl.path is "${setting}", and ${p} is not an executable file: fix the setting, or empty it to use planctl from PATH` };
    }
    // A bare name, such as "planctl-dev": look it up on PATH like the default.
    return lookPath(p, exts, env) ?? {
      error: `planctl.path is "${setting}", and there is no ${p} on PATH: give its absolute path`,
    };
  }
  return lookPath("planctl", exts, env) ?? {
    error:
      "planctl was not found on PATH: install it (go install github.com/planctl/planctl/cmd/planctl@latest) or set planctl.path to the executable",
  };
}

function lookPath(name: string, exts: string[], env: LookupEnv): { path: string } | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") {
      continue; // an empty entry is the current folder, which VS Code's is not meant to be
    }
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (isExecutable(p)) {
        return { path: p };
      }
    }
  }
  return undefined;
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform !== "win32") {
      fs.accessSync(p, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/** A document filter as vscode-languageclient takes it. */
export interface PlanDocumentFilter {
  scheme: string;
  pattern: string;
}

/**
 * planDocumentSelector is where the language server runs: files on disk whose
 * path matches a plan pattern, whatever their language id (so ordinary JSON
 * files, package.json among them, never reach planctl lsp).
 */
export function planDocumentSelector(patterns: readonly string[] | undefined): PlanDocumentFilter[] {
  const list = patterns && patterns.length > 0 ? patterns : DEFAULT_PLAN_FILES;
  return list.map((pattern) => ({ scheme: "file", pattern }));
}

/** The parts of vscode-languageclient's options the extension decides. */
export interface ClientSettings {
  serverOptions: { command: string; args: string[]; options?: { cwd?: string } };
  clientOptions: {
    documentSelector: PlanDocumentFilter[];
    initializationOptions?: ToolSource;
    outputChannelName: string;
  };
}

/**
 * clientSettings is how the language client starts planctl lsp. The tool
 * source goes as initializationOptions only when the settings name one: with
 * none, planctl reads .planctl.json at the workspace root (which a team
 * commits), else the demo catalog.
 */
export function clientSettings(
  planctl: string,
  patterns: readonly string[] | undefined,
  source: ToolSource,
  folder: string | undefined,
): ClientSettings {
  const s: ClientSettings = {
    serverOptions: { command: planctl, args: ["lsp"] },
    clientOptions: {
      documentSelector: planDocumentSelector(patterns),
      outputChannelName: "planctl",
    },
  };
  if (folder) {
    s.serverOptions.options = { cwd: folder };
  }
  if (Object.keys(source).length > 0) {
    s.clientOptions.initializationOptions = source;
  }
  return s;
}

/** A launch configuration as launch.json holds it (VS Code adds the rest). */
export type LaunchConfig = Record<string, unknown>;

const launchSourceKeys = ["catalog", "server", "url", "config", "replay"];

/**
 * resolveLaunch completes a launch configuration before VS Code substitutes
 * its variables: F5 with no launch.json on a plan debugs the active file;
 * a configuration naming no tool source takes planctl.toolSource (under the
 * launch attributes' names: "name" is the configuration's label, so the
 * server in a config file is "serverName"). `activeFile` is the active
 * editor's file, `folder` the workspace folder, if any.
 */
export function resolveLaunch(
  config: LaunchConfig,
  opts: { activeFile?: string; activeLanguage?: string; folder?: string; source: ToolSource },
): { config: LaunchConfig } | { error: string } {
  let c: LaunchConfig = { ...config };
  if (!c.type && !c.request && !c.name) {
    if (!opts.activeFile || (opts.activeLanguage && opts.activeLanguage !== "json" && opts.activeLanguage !== "jsonc")) {
      return { error: "open a plan file (JSON) to debug it, or add a planctl configuration to launch.json" };
    }
    c = {
      type: DEBUG_TYPE,
      request: "launch",
      name: "Debug this plan",
      program: "${file}",
      cwd: opts.folder ? "${workspaceFolder}" : path.dirname(opts.activeFile),
      stopOnEntry: true,
    };
  }
  if (c.request === "attach") {
    return { config: c }; // to a planctl dap --listen: VS Code connects to its debugServer port
  }
  if (c.request !== "launch") {
    return { error: `a planctl configuration's "request" is "launch" or "attach" (this one has ${JSON.stringify(c.request)})` };
  }
  if (typeof c.program !== "string" || c.program === "") {
    return { error: "the planctl launch configuration has no \"program\": give the plan file, e.g. \"program\": \"${file}\"" };
  }
  const hasSource = launchSourceKeys.some((k) => typeof c[k] === "string" && c[k] !== "");
  if (!hasSource && Object.keys(opts.source).length > 0) {
    const s = opts.source;
    for (const k of launchSourceKeys) {
      const v = (s as Record<string, unknown>)[k];
      if (v) {
        c[k] = v;
      }
    }
    if (s.name) {
      c.serverName = s.name;
    }
    if (s.header) {
      c.headers = s.header;
    }
    if (s.sharable && c.sharable === undefined) {
      c.sharable = s.sharable;
    }
    // The setting's paths are relative to the workspace folder.
    if (c.cwd === undefined && opts.folder) {
      c.cwd = opts.folder;
    }
  }
  return { config: c };
}

/** One finding of `planctl validate --format json`, positions 0-based as editors count. */
export interface Finding {
  file: string;
  severity: "error" | "warning" | "info";
  code: string;
  message: string;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

/** The summary of a validation: the counts planctl reports. */
export interface Summary {
  errors: number;
  warnings: number;
  infos: number;
}

/**
 * parseValidateOutput reads `planctl validate --format json`'s envelope;
 * `folder` makes its file names absolute. Exit code 3 (a plan or the tool
 * source unreadable) writes no envelope: its message is on stderr.
 */
export function parseValidateOutput(
  stdout: string,
  stderr: string,
  exitCode: number,
  folder: string,
  readLines: (file: string) => string[] | undefined = linesOnDisk,
): { findings: Finding[]; summary: Summary } | { error: string } {
  if (exitCode !== 0 && exitCode !== 1) {
    return { error: (stderr.trim() || `planctl validate exited with ${exitCode}`).replace(/^planctl: /, "") };
  }
  let env: { diagnostics?: unknown; summary?: Summary };
  try {
    env = JSON.parse(stdout);
  } catch (e) {
    return { error: `planctl validate did not print its JSON report (${(e as Error).message}): ${stderr.trim()}` };
  }
  if (!Array.isArray(env.diagnostics) || !env.summary) {
    return { error: "planctl validate's JSON report has no diagnostics or summary: is planctl.path an older planctl?" };
  }
  const findings: Finding[] = [];
  const files = new Map<string, string[] | undefined>();
  for (const raw of env.diagnostics as Record<string, unknown>[]) {
    const file = path.resolve(folder, String(raw.file ?? ""));
    if (!files.has(file)) {
      files.set(file, readLines(file));
    }
    const lines = files.get(file);
    const line = num(raw.line, 1) - 1;
    const col = num(raw.column, 1) - 1;
    const endLine = num(raw.end_line, line + 1) - 1;
    const endCol = num(raw.end_column, col + 1) - 1;
    const sev = String(raw.severity ?? "ERROR").toLowerCase();
    findings.push({
      file,
      severity: sev === "warning" ? "warning" : sev === "info" ? "info" : "error",
      code: String(raw.code ?? ""),
      message: String(raw.message ?? ""),
      startLine: line,
      startColumn: utf16Column(lines?.[line], col),
      endLine,
      endColumn: utf16Column(lines?.[endLine], endCol),
    });
  }
  return { findings, summary: env.summary };
}

/**
 * utf16Column turns a column counted in code points, as planctl validate
 * counts them, into UTF-16 code units, as VS Code counts them: they differ
 * after a character outside the Basic Multilingual Plane (an emoji).
 */
export function utf16Column(line: string | undefined, codePoints: number): number {
  if (line === undefined) {
    return codePoints;
  }
  let units = 0;
  let n = 0;
  for (const ch of line) {
    if (n === codePoints) {
      break;
    }
    units += ch.length;
    n++;
  }
  return units + (codePoints - n); // past the end: as given
}

function linesOnDisk(file: string): string[] | undefined {
  try {
    return fs.readFileSync(file, "utf8").split(/\r?\n/);
  } catch {
    return undefined;
  }
}

function num(v: unknown, dflt: number): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 1 ? v : dflt;
}

/**
 * batches splits a list of files so that no command line grows past what an
 * operating system takes (Windows: 32767 characters).
 */
export function batches(files: string[], maxChars = 24000): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let size = 0;
  for (const f of files) {
    if (cur.length > 0 && size + f.length + 1 > maxChars) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(f);
    size += f.length + 1;
  }
  if (cur.length > 0) {
    out.push(cur);
  }
  return out;
}
