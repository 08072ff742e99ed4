// Launches `planctl dap` with each configuration docs/debug.md shows, as
// VS Code and nvim-dap send it (hosts_test.go builds them: the host's
// initialize arguments, the launch or attach arguments, the restart
// arguments), through Microsoft's DebugClient: the launch succeeds, the
// run stops on entry in the plan named, then the plan is edited on disk and
// a restart runs the new plan to its end.
//
// usage: node hosts.mjs PLANCTL PLAN HOSTS.json
// Prints "ok HOST NAME: CHECK" per passing check, "FAIL ..." per failing
// one, and PASS at the end when every check passed.
import { readFileSync, writeFileSync } from "node:fs";
import { DebugClient } from "@vscode/debugadapter-testsupport";
import { check, ev, fail, finish } from "./check.mjs";

const [bin, plan, hostsFile] = process.argv.slice(2);
const original = readFileSync(plan, "utf8");
// The plan as edited on disk during the session: other steps, other ids.
const edited = `{"steps": [
  {"id": "fresh", "tool": "db_stats", "args": {"database": "prod"}},
  {"id": "again", "tool": "create_backup", "args": {"database": "prod"}}
]}
`;

for (const h of JSON.parse(readFileSync(hostsFile, "utf8"))) {
  const tag = `${h.host} "${h.config.name}":`;
  writeFileSync(plan, original);
  const outputs = [];
  const dc = new DebugClient(bin, "dap", "planctl");
  dc.defaultTimeout = 20000;
  dc.on("output", (e) => outputs.push(e.body.output));
  await dc.start();
  try {
    await dc.initializeRequest(h.initialize);
    const initialized = ev(dc, "initialized");
    const entry = ev(dc, "stopped");
    const launched = h.config.request === "attach" ? await dc.attachRequest(h.config) : await dc.launchRequest(h.config);
    check(`${tag} ${h.config.request} succeeds with the host's keys`, launched.success, launched);
    await initialized;
    const bps = await dc.setBreakpointsRequest({ source: { path: plan }, breakpoints: [{ line: 6 }] });
    check(`${tag} breakpoint on the plan named by program`, bps.body.breakpoints[0].verified && bps.body.breakpoints[0].line === 6, bps.body);
    const fbps = await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    check(`${tag} setFunctionBreakpoints answers []`, Array.isArray(fbps.body.breakpoints) && fbps.body.breakpoints.length === 0, fbps.body);
    await dc.setExceptionBreakpointsRequest({ filters: [] });
    await dc.configurationDoneRequest();
    const e0 = await entry;
    check(`${tag} stopOnEntry from the configuration`, e0.body.reason === (h.config.stopOnEntry ? "entry" : "breakpoint"), e0.body);
    let st = await dc.stackTraceRequest({ threadId: 1 });
    check(`${tag} the top frame is the plan's first step`, st.body.stackFrames[0].name.startsWith("stats (db_stats)") && st.body.stackFrames[0].source.path === plan, st.body.stackFrames);

    // The plan changes on disk; the host restarts with its configuration.
    writeFileSync(plan, edited);
    const again = ev(dc, "stopped");
    const r = await dc.customRequest("restart", h.restart);
    check(`${tag} restart succeeds`, r.success, r);
    const e1 = await again;
    check(`${tag} restart stops on entry again`, e1.body.reason === (h.config.stopOnEntry ? "entry" : "breakpoint"), e1.body);
    st = await dc.stackTraceRequest({ threadId: 1 });
    check(`${tag} after restart the top frame is the edited plan's first step`, st.body.stackFrames.length === 1 && st.body.stackFrames[0].name.startsWith("fresh (db_stats)") && st.body.stackFrames[0].line === 2, st.body.stackFrames);
    const terminated = ev(dc, "terminated");
    await dc.continueRequest({ threadId: 1 });
    await terminated;
    const end = outputs.join("");
    check(`${tag} the edited plan runs to its end`, /"fresh": \{\s*"status": "ok"/.test(end) && /"again": \{\s*"status": "ok"/.test(end) && !/"backup"/.test(end.slice(end.lastIndexOf("run completed"))), end.slice(-600));
  } catch (e) {
    fail(`FAIL ${tag} exception: ` + (e && e.stack ? e.stack : e));
  } finally {
    await dc.stop().catch(() => {});
  }
}
writeFileSync(plan, original);
finish();
