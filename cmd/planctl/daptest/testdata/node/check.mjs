// The checks every DebugClient script here shares: "ok NAME" or
// "FAIL NAME: why" a check, and PASS at the end when all passed, which is
// what the Go tests read.
let failed = 0;

// check prints one check's outcome; a failed one makes finish fail.
export function check(name, cond, detail) {
  if (cond) console.log("ok " + name);
  else {
    failed++;
    console.log("FAIL " + name + ": " + JSON.stringify(detail));
  }
}

// fail counts a failure that is no check's, as an exception, printed as
// it came.
export function fail(line) {
  failed++;
  console.log(line);
}

// finish prints PASS, or how many failed, and exits with it.
export function finish() {
  console.log(failed ? `${failed} failed` : "PASS");
  process.exit(failed ? 1 : 0);
}

// ev is an event promise with a .catch attached at once: a timeout that
// nobody awaits yet must not end the process as an unhandled rejection.
export function ev(dc, name) {
  const p = dc.waitForEvent(name);
  p.catch(() => {});
  return p;
}
