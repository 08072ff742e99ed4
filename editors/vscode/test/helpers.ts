// What the tests share: the real planctl binary (PLANCTL, else built from
// this repository with go build) and a workspace made from the repository's
// samples in a temporary folder.

import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The repository's top folder. */
export const repo = path.resolve(__dirname, "..", "..", "..", "..");

/** The extension's folder (where package.json is). */
export const extensionDir = path.resolve(__dirname, "..", "..");

let built: string | undefined;

/**
 * planctlBinary is the planctl the tests drive: $PLANCTL (CI builds it once),
 * else one built here from the repository.
 */
export function planctlBinary(): string {
  if (process.env.PLANCTL) {
    return path.resolve(process.env.PLANCTL);
  }
  if (!built) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "planctl-vscode-bin-"));
    built = path.join(dir, process.platform === "win32" ? "planctl.exe" : "planctl");
    execFileSync("go", ["build", "-o", built, "./cmd/planctl"], { cwd: repo, stdio: "inherit" });
  }
  return built;
}

/** A workspace folder as a user would have it. */
export interface Workspace {
  dir: string;
  plan: string; // plans/backup.json
  catalog: string; // tools.json
  config: string; // mcp.json, whose server "tools" is `planctl mock` on tools.json
}

/** makeWorkspace copies samples/backup.json and its catalog into a new folder. */
export function makeWorkspace(): Workspace {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "planctl-vscode-ws-")));
  fs.mkdirSync(path.join(dir, "plans"));
  const plan = path.join(dir, "plans", "backup.json");
  const catalog = path.join(dir, "tools.json");
  const config = path.join(dir, "mcp.json");
  fs.copyFileSync(path.join(repo, "samples", "backup.json"), plan);
  fs.copyFileSync(path.join(repo, "samples", "catalogs", "backup.json"), catalog);
  fs.writeFileSync(
    config,
    JSON.stringify({ mcpServers: { tools: { command: planctlBinary(), args: ["mock", "--catalog", catalog] } } }),
  );
  return { dir, plan, catalog, config };
}

/** The extension's manifest. */
export function manifest(): any {
  return JSON.parse(fs.readFileSync(path.join(extensionDir, "package.json"), "utf8"));
}
