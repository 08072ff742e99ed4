// Drives `planctl dap` over stdio with Microsoft's DebugClient
// (@vscode/debugadapter-testsupport), through the scenario of issue 15:
// launch with stopOnEntry, a breakpoint on a line inside a step (verified,
// moved to the step's first line), continue to it, the top frame's line, the
// variables of each scope, next, a failing step stopping with reason
// "exception" and its message, setVariable then retry, and "terminated".
//
// usage: node dap.mjs PLANCTL PLAN
// Prints "ok NAME" per passing check, "FAIL NAME: why" per failing one,
// and PASS at the end when every check passed.
import { DebugClient } from "@vscode/debugadapter-testsupport";
import { check, ev, fail, finish } from "./check.mjs";

const [bin, program] = process.argv.slice(2);

const outputs = [];
const dc = new DebugClient(bin, "dap", "planctl");
dc.defaultTimeout = 20000;
dc.on("output", (e) => outputs.push(e.body));
await dc.start();
try {
  const init = await dc.initializeRequest({ adapterID: "planctl", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  const filters = (init.body.exceptionBreakpointFilters || []).map((f) => f.filter + (f.default ? "*" : ""));
  check("initialize: exception filters", filters.join(",") === "step-failed*,preflight", filters);

  // launch, then the configuration once "initialized" arrives.
  const initialized = ev(dc, "initialized");
  const entry = ev(dc, "stopped");
  await dc.launchRequest({ program, stopOnEntry: true });
  await initialized;
  const bps = await dc.setBreakpointsRequest({ source: { path: program }, breakpoints: [{ line: 5 }, { line: 1 }] });
  const [inStep, outside] = bps.body.breakpoints;
  check("breakpoint inside a step: verified, moved to its first line", inStep.verified && inStep.line === 4, inStep);
  check("breakpoint outside any step: unverified with a message", !outside.verified && /not inside a step/.test(outside.message), outside);
  await dc.setExceptionBreakpointsRequest({ filters: ["step-failed"] });
  await dc.configurationDoneRequest();
  const e0 = await entry;
  check("stopped on entry", e0.body.reason === "entry" && e0.body.threadId === 1, e0.body);

  const threads = await dc.threadsRequest();
  check("one thread", threads.body.threads.length === 1, threads.body);
  let st = await dc.stackTraceRequest({ threadId: 1 });
  check("entry: top frame is the first step, line 2", st.body.stackFrames.length === 1 && st.body.stackFrames[0].line === 2 && st.body.stackFrames[0].source.path === program, st.body);

  // continue to the breakpoint.
  let stopped = ev(dc, "stopped");
  await dc.continueRequest({ threadId: 1 });
  let s = await stopped;
  check("continue stops at the breakpoint", s.body.reason === "breakpoint" && (s.body.hitBreakpointIds || []).includes(inStep.id), s.body);
  st = await dc.stackTraceRequest({ threadId: 1 });
  const names = st.body.stackFrames.map((f) => f.name);
  check("frames: the step about to run on top, then the finished one", st.body.stackFrames[0].line === 4 && names[0].startsWith("backup (create_backup)") && names[1].startsWith("stats (db_stats)") && names.length === 2, st.body.stackFrames);

  // scopes and variables of the top frame and of the finished step.
  const top = st.body.stackFrames[0].id;
  let scopes = (await dc.scopesRequest({ frameId: top })).body.scopes;
  check("scopes", scopes.map((x) => x.name).join(",") === "Arguments,Result,Response", scopes);
  let args = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
  check("Arguments of the next step", args.length === 1 && args[0].name === "database" && args[0].value === '"broken"', args);
  const statsScopes = (await dc.scopesRequest({ frameId: st.body.stackFrames[1].id })).body.scopes;
  const result = (await dc.variablesRequest({ variablesReference: statsScopes[1].variablesReference })).body.variables;
  const largest = result.find((v) => v.name === "largest");
  check("Result: the finished step's result", result.find((v) => v.name === "tables")?.value === "42" && largest && largest.variablesReference > 0, result);
  const inner = (await dc.variablesRequest({ variablesReference: largest.variablesReference })).body.variables;
  const rows = inner.find((v) => v.name === "rows");
  check("a number keeps its exact text", rows && rows.value === "9007199254740993", inner);
  check("evaluateName is the output_by_reference object", rows && rows.evaluateName === '{"output_by_reference": {"stats": ["largest", "rows"]}}', rows);
  const resp = (await dc.variablesRequest({ variablesReference: scopes[2].variablesReference })).body.variables;
  check("Response: the response so far", resp.find((v) => v.name === "status")?.value === '"running"', resp);
  const evp = await dc.evaluateRequest({ expression: "stats.largest.rows", context: "repl" });
  check("evaluate a path", evp.body.result === "9007199254740993", evp.body);
  const evq = await dc.evaluateRequest({ expression: "stats.tags.#", context: "repl" });
  check("evaluate a query", evq.body.result === "2", evq.body);
  const evr = await dc.evaluateRequest({ expression: rows.evaluateName, context: "watch" });
  check("evaluate an evaluateName", evr.body.result === "9007199254740993", evr.body);

  // next: the step fails, and the run stops at it with reason exception.
  stopped = ev(dc, "stopped");
  await dc.nextRequest({ threadId: 1 });
  s = await stopped;
  check("a failing step stops with reason exception and its message", s.body.reason === "exception" && s.body.text === "disk full", s.body);
  const info = await dc.exceptionInfoRequest({ threadId: 1 });
  check("exceptionInfo", info.body.description === "disk full" && info.body.exceptionId === "step failed", info.body);
  check("the step log is output", outputs.some((o) => o.output === "backup (create_backup): error: disk full\n"), outputs);
  st = await dc.stackTraceRequest({ threadId: 1 });
  check("the failed step is the top frame", st.body.stackFrames[0].name.startsWith("backup (create_backup): failed") && st.body.stackFrames[0].line === 4, st.body.stackFrames);

  // setVariable on the failed step's argument, then retry it.
  scopes = (await dc.scopesRequest({ frameId: st.body.stackFrames[0].id })).body.scopes;
  let bad = null;
  try {
    await dc.setVariableRequest({ variablesReference: scopes[0].variablesReference, name: "database", value: "prod" });
  } catch (e) {
    bad = e;
  }
  check("setVariable with a value that is not JSON is refused", bad && /not JSON/.test(bad.message), String(bad));
  const before = outputs.length;
  await dc.setVariableRequest({ variablesReference: scopes[0].variablesReference, name: "databse", value: '"x"' });
  check("setVariable validates: an unknown argument is a diagnostic in the output", outputs.slice(before).some((o) => o.category === "console" && /UNKNOWN_ARG/.test(o.output) && /plan\.json \(edited\):5:\d+: /.test(o.output)), outputs.slice(before));
  await dc.setVariableRequest({ variablesReference: scopes[0].variablesReference, name: "databse", value: "" });
  args = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
  check("setVariable to nothing removes the argument", args.map((v) => v.name).join(",") === "database", args);
  const ok = await dc.setVariableRequest({ variablesReference: scopes[0].variablesReference, name: "database", value: '"prod"' });
  check("setVariable answers the new value", ok.body.value === '"prod"', ok.body);
  args = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
  check("the edited argument shows", args.find((v) => v.name === "database")?.value === '"prod"', args);

  stopped = ev(dc, "stopped");
  await dc.nextRequest({ threadId: 1 });
  s = await stopped;
  check("next retries the failed step", s.body.reason === "step", s.body);
  st = await dc.stackTraceRequest({ threadId: 1 });
  check("now validate is next, above backup and stats", st.body.stackFrames.map((f) => f.name.split(" ")[0]).join(",") === "validate,backup,stats" && st.body.stackFrames[0].line === 6, st.body.stackFrames);
  scopes = (await dc.scopesRequest({ frameId: st.body.stackFrames[0].id })).body.scopes;
  args = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
  const ref = args.find((v) => v.name === "backup_id");
  check("a reference shows its resolved value", ref && ref.value === '"bk-prod"', args);
  check("a reference's evaluateName is its output_by_reference object", ref && ref.evaluateName === '{"output_by_reference":{"backup":["backup_id"]}}', ref);

  // continue to the end.
  const terminated = ev(dc, "terminated");
  await dc.continueRequest({ threadId: 1 });
  await terminated;
  check("terminated at the end", true);
  check("the response is output at the end", outputs.some((o) => /"status": "completed"/.test(o.output)), outputs.slice(-3));
} catch (e) {
  fail("FAIL exception: " + (e && e.stack ? e.stack : e));
} finally {
  await dc.stop().catch(() => {});
}
finish();
