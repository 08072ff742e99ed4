// Every launch shape the extension produces (launch.json's initial
// configuration, each snippet as VS Code inserts it, what F5 gives with no
// launch.json, the settings' tool source), and the configuration of the
// nvim-dap snippet in editors/nvim when nvim is installed, sent to the real
// `planctl dap` by Microsoft's DebugClient the way VS Code sends them: with
// the label "name", "type", "request" and VS Code's own keys, variables
// substituted.

import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { DebugClient } from "@vscode/debugadapter-testsupport";
import { DEBUG_TYPE, resolveLaunch } from "../src/planctl";
import { Workspace, makeWorkspace, manifest, planctlBinary, repo } from "./helpers";

const dbg = manifest().contributes.debuggers.find((d: any) => d.type === DEBUG_TYPE);

/**
 * asInserted is a snippet body as VS Code writes it into launch.json:
 * ^"..." is the JSON text of the value (so \${file} stays a variable) and
 * each ${N:default} placeholder keeps its default.
 */
function asInserted(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== "string") {
      out[k] = v;
      continue;
    }
    let s = v.startsWith('^"') && v.endsWith('"') ? v.slice(2, -1) : v;
    s = s.replace(/\$\{\d+:([^}]*)\}/g, "$1").replace(/\\\$/g, "$");
    out[k] = s;
  }
  return out;
}

/** substitute does what VS Code does to ${file} and ${workspaceFolder}, then adds its own keys. */
function asSent(config: Record<string, unknown>, ws: Workspace, file: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    out[k] = typeof v === "string" ? v.replaceAll("${file}", file).replaceAll("${workspaceFolder}", ws.dir) : v;
  }
  assert.ok(!JSON.stringify(out).includes("${"), `a variable is left: ${JSON.stringify(out)}`);
  return { ...out, __configurationTarget: 6, __sessionId: randomUUID() };
}

function ev(dc: DebugClient, name: string): Promise<any> {
  const p = dc.waitForEvent(name);
  p.catch(() => undefined);
  return p;
}

/**
 * debugOnce launches with args, expects a stop on entry at the first step
 * (unless noDebug), continues to the end and returns the debug console output.
 */
async function debugOnce(args: Record<string, unknown>): Promise<string> {
  const dc = new DebugClient(planctlBinary(), "dap", "planctl");
  dc.defaultTimeout = 20000;
  const out: string[] = [];
  dc.on("output", (e: any) => out.push(e.body.output));
  await dc.start();
  try {
    await dc.initializeRequest({ adapterID: "planctl", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
    const initialized = ev(dc, "initialized");
    const stopped = ev(dc, "stopped");
    const terminated = ev(dc, "terminated");
    const launched = await dc.launchRequest(args as any).catch((e: Error) => e);
    assert.ok(!(launched instanceof Error), `launch ${JSON.stringify(args)}: ${launched}`);
    await initialized;
    await dc.configurationDoneRequest();
    if (!args.noDebug) {
      const s = await stopped;
      assert.equal(s.body.reason, "entry");
      const st = await dc.stackTraceRequest({ threadId: 1 });
      assert.equal(st.body.stackFrames[0].name, "backup (create_backup)");
      assert.equal(st.body.stackFrames[0].line, 2);
      await dc.continueRequest({ threadId: 1 });
    }
    await terminated;
    return out.join("");
  } finally {
    await dc.stop();
  }
}

function workspaceWithTrace(): Workspace & { trace: string } {
  const ws = makeWorkspace();
  // The snippets' placeholders name plans/plan.json, mcp.json's "server" and trace.json.
  fs.copyFileSync(ws.plan, path.join(ws.dir, "plans", "plan.json"));
  const cfg = JSON.parse(fs.readFileSync(ws.config, "utf8"));
  cfg.mcpServers.server = cfg.mcpServers.tools;
  fs.writeFileSync(ws.config, JSON.stringify(cfg));
  const trace = path.join(ws.dir, "trace.json");
  execFileSync(planctlBinary(), ["run", "--catalog", ws.catalog, "--trace", trace, ws.plan], { cwd: ws.dir });
  return { ...ws, trace };
}

test("launch.json's initial configuration, as VS Code sends it", async () => {
  const ws = workspaceWithTrace();
  const out = await debugOnce(asSent(dbg.initialConfigurations[0], ws, ws.plan));
  assert.match(out, /"status": "completed"/);
});

test("restart after editing the plan on disk, as VS Code sends it (the configuration again)", async () => {
  const ws = workspaceWithTrace();
  const config = asSent(dbg.initialConfigurations[0], ws, ws.plan);
  const dc = new DebugClient(planctlBinary(), "dap", "planctl");
  dc.defaultTimeout = 20000;
  await dc.start();
  try {
    await dc.initializeRequest({ adapterID: "planctl", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
    const initialized = ev(dc, "initialized");
    let stopped = ev(dc, "stopped");
    await dc.launchRequest(config as any);
    await initialized;
    await dc.configurationDoneRequest();
    await stopped;
    // The plan now starts with another step.
    const plan = JSON.parse(fs.readFileSync(ws.plan, "utf8"));
    plan.steps.unshift({ id: "first", tool: "db_stats", args: { database: "prod" } });
    fs.writeFileSync(ws.plan, JSON.stringify(plan, null, 2));
    stopped = ev(dc, "stopped");
    await dc.send("restart", { arguments: { ...config, __sessionId: randomUUID() } });
    const s = await stopped;
    assert.equal(s.body.reason, "entry");
    const st = await dc.stackTraceRequest({ threadId: 1 });
    assert.equal(st.body.stackFrames[0].name, "first (db_stats)");
  } finally {
    await dc.stop();
  }
});

for (const snippet of dbg.configurationSnippets) {
  test(`snippet "${snippet.label}", as VS Code inserts and sends it`, async () => {
      const ws = workspaceWithTrace();
    const config = asInserted(snippet.body);
    assert.ok(!JSON.stringify(config).includes("${1"), JSON.stringify(config));
    const out = await debugOnce(asSent(config, ws, ws.plan));
    assert.match(out, /"status": "completed"/);
  });
}

test("F5 with no launch.json, and Run Without Debugging", async () => {
  const ws = workspaceWithTrace();
  const r = resolveLaunch({}, { activeFile: ws.plan, activeLanguage: "json", folder: ws.dir, source: {} });
  assert.ok("config" in r);
  assert.match(await debugOnce(asSent(r.config, ws, ws.plan)), /"status": "completed"/);
  assert.match(await debugOnce({ ...asSent(r.config, ws, ws.plan), noDebug: true }), /"status": "completed"/);
});

test("a configuration that takes planctl.toolSource (a server from an mcpServers file)", async () => {
  const ws = workspaceWithTrace();
  const base = { type: "planctl", request: "launch", name: "Debug this plan", program: "${file}", stopOnEntry: true };
  const r = resolveLaunch(base, { folder: ws.dir, source: { config: "mcp.json", name: "tools" } });
  assert.ok("config" in r && r.config.serverName === "tools" && r.config.cwd === ws.dir, JSON.stringify(r));
  assert.match(await debugOnce(asSent(r.config, ws, ws.plan)), /"status": "completed"/);
});

function hasNvim(): boolean {
  try {
    execFileSync("nvim", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

test("the nvim-dap snippet's configuration, as nvim-dap sends it", { skip: !hasNvim() && !process.env.CI && "nvim is not installed" }, async () => {
  const ws = workspaceWithTrace();
  // nvim-dap is not installed here: a stand-in "dap" module holds the user's
  // other configuration, which the snippet must keep.
  const dump = path.join(ws.dir, "dump.lua");
  fs.writeFileSync(
    dump,
    `package.loaded.dap = {adapters = {}, configurations = {json = {{type = "other", request = "launch", name = "mine"}}}}
dofile(${JSON.stringify(path.join(repo, "editors", "nvim", "planctl-dap.lua"))})
local dap = package.loaded.dap
io.stdout:write(vim.fn.json_encode({adapter = dap.adapters.planctl, configurations = dap.configurations.json}))
`,
  );
  const text = execFileSync("nvim", ["--headless", "-u", "NONE", "-c", `luafile ${dump}`, "-c", "qa!"], { encoding: "utf8" });
  const got = JSON.parse(text);
  assert.deepEqual(got.adapter.args, ["dap"]);
  assert.equal(got.configurations.length, 2, "the user's own json configuration is kept");
  assert.equal(got.configurations[0].name, "mine");
  // nvim-dap sends the whole table, variables expanded, as the launch arguments.
  const mine = got.configurations[1];
  const sent: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(mine)) {
    sent[k] = typeof v === "string" ? v.replaceAll("${file}", ws.plan).replaceAll("${workspaceFolder}", ws.dir) : v;
  }
  assert.match(await debugOnce(sent), /"status": "completed"/);
});
