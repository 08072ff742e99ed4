// The manifest (package.json) against what the code does: the debug type and
// its launch attributes, the snippets' keys, the commands, the settings'
// defaults, and where the extension starts.

import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { COMMANDS, DEBUG_TYPE, DEFAULT_PLAN_FILES } from "../src/planctl";
import { extensionDir, manifest } from "./helpers";

const m = manifest();
const dbg = m.contributes.debuggers.find((d: any) => d.type === DEBUG_TYPE);

test("the debugger contribution names planctl and its launch attributes", () => {
  assert.ok(dbg, "no debugger of type planctl");
  const props = Object.keys(dbg.configurationAttributes.launch.properties);
  for (const want of ["program", "stopOnEntry", "catalog", "cwd", "serverName", "server", "url", "headers", "config", "replay", "sharable", "stepTimeout",
    "prefixTools", "allowTools", "denyTools", "readOnly", "passEnv", "mcpRoot", "serverLog", "token", "upstreamLogLevel"]) {
    assert.ok(props.includes(want), `launch attribute ${want} is missing`);
  }
  // "name" is the configuration's label in VS Code: it must not be a planctl option.
  assert.ok(!props.includes("name"), "\"name\" is VS Code's label, not a launch attribute");
  assert.deepEqual(dbg.configurationAttributes.launch.required, ["program"]);
  // attach (to planctl dap --listen) takes the same attributes, and the port.
  const attach = Object.keys(dbg.configurationAttributes.attach.properties);
  assert.deepEqual(attach.filter((k) => k !== "debugServer"), props);
  // planctl dap --listen takes a launch or attach only with the token it printed.
  assert.equal(dbg.configurationAttributes.attach.properties.token.type, "string");
  assert.ok(m.contributes.breakpoints.some((b: any) => b.language === "json"), "breakpoints are not enabled in JSON files");
});

test("every launch shape uses only declared attributes", () => {
  const props = new Set(Object.keys(dbg.configurationAttributes.launch.properties));
  const shapes = [...dbg.initialConfigurations, ...dbg.configurationSnippets.map((s: any) => s.body)];
  assert.ok(shapes.length >= 4);
  for (const shape of shapes) {
    assert.equal(shape.type, DEBUG_TYPE);
    assert.equal(shape.request, "launch");
    assert.equal(typeof shape.name, "string");
    assert.ok(shape.program, `${shape.name}: no program`);
    for (const key of Object.keys(shape)) {
      if (!["type", "request", "name"].includes(key)) {
        assert.ok(props.has(key), `${shape.name}: "${key}" is not a declared launch attribute`);
      }
    }
  }
  // A snippet's body is inserted as text: a variable VS Code must keep is written ^"\${...}".
  for (const s of dbg.configurationSnippets) {
    assert.ok(s.label.startsWith("planctl:"), s.label);
    for (const v of Object.values(s.body)) {
      if (typeof v === "string" && v.includes("${file}")) {
        assert.match(v, /^\^"\\\$\{file\}"$/);
      }
    }
  }
});

test("the commands the code registers are the manifest's", () => {
  const declared = m.contributes.commands.map((c: any) => c.command).sort();
  assert.deepEqual(declared, Object.values(COMMANDS).sort());
  const src = fs.readFileSync(path.join(extensionDir, "src", "extension.ts"), "utf8");
  for (const key of Object.keys(COMMANDS)) {
    assert.ok(src.includes(`registerCommand(COMMANDS.${key}`), `${key} is declared but not registered`);
  }
});

test("settings: planctl.path, the plan patterns, the tool source", () => {
  const props = m.contributes.configuration.properties;
  assert.equal(props["planctl.path"].type, "string");
  assert.deepEqual(props["planctl.planFiles"].default, DEFAULT_PLAN_FILES);
  assert.deepEqual(
    Object.keys(props["planctl.toolSource"].properties).sort(),
    ["catalog", "config", "header", "name", "replay", "server", "sharable", "url"],
  );
});

test("activation, entry point and packaging", () => {
  assert.ok(m.activationEvents.includes("onDebugResolve:planctl"));
  // A workspace's settings and .planctl.json name programs to start (planctl.path, a
  // server): in an untrusted workspace the extension must not run.
  assert.equal(m.capabilities.untrustedWorkspaces.supported, false);
  for (const p of DEFAULT_PLAN_FILES) {
    assert.ok(m.activationEvents.includes(`workspaceContains:${p}`), p);
  }
  assert.ok(fs.existsSync(path.join(extensionDir, m.main)), `${m.main} is not built`);
  // The schema comes from the language server, which knows the workspace's tools
  // (see README.md): a static jsonValidation would add a second, stale report.
  assert.equal(m.contributes.jsonValidation, undefined);
  // vsce refuses an engine older than the @types/vscode the code is checked with.
  const typesVersion = JSON.parse(
    fs.readFileSync(path.join(extensionDir, "node_modules", "@types", "vscode", "package.json"), "utf8"),
  ).version;
  assert.equal(m.engines.vscode, `^${typesVersion}`);
  const client = JSON.parse(
    fs.readFileSync(path.join(extensionDir, "node_modules", "vscode-languageclient", "package.json"), "utf8"),
  );
  assert.equal(client.engines.vscode, m.engines.vscode, "vscode-languageclient needs another VS Code");
});

test("the package holds the built extension and its client library, not the sources or tests", () => {
  // vsce ls lists what vsce package puts in the .vsix.
  const files = execFileSync(process.execPath, [path.join(extensionDir, "node_modules", "@vscode", "vsce", "vsce"), "ls"], {
    cwd: extensionDir,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => f !== "");
  for (const want of ["package.json", "LICENSE", "README.md", "out/src/extension.js", "out/src/planctl.js", "node_modules/vscode-languageclient/package.json"]) {
    assert.ok(files.includes(want), `${want} is not packaged`);
  }
  const wrong = files.filter((f) => /^(src|test|out\/test)\/|\.ts$|^node_modules\/(@vscode\/vsce|typescript|@types|@vscode\/debugadapter-testsupport)\//.test(f));
  assert.deepEqual(wrong, [], "packaged by mistake");
});
