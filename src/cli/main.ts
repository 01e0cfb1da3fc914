/**
 * `ssgkr` command-line entry point. Every command has `--help`; `ssgkr --version` prints the
 * version. Errors end in one line `error CODE: message` on stderr (errors.ts) and exit code 2
 * (unusable input), 1 (a verdict or failed control) or 3 (internal error); see exit.ts.
 */
import { Command, type Option } from "commander";
import { CliExit } from "./exit.js";
import { CliError, formatError } from "./errors.js";
import { versionLine } from "./version.js";
import { registerSelftest } from "./commands/selftest.js";
import { registerFixture } from "./commands/fixture.js";
import { registerProve } from "./commands/prove.js";
import { registerVerify } from "./commands/verify.js";
import { registerRegistry } from "./commands/registry.js";
import { registerLoad } from "./commands/load.js";
import { registerDemo } from "./commands/demo.js";
import { registerServe } from "./commands/serve.js";
import { registerNats } from "./commands/nats.js";
import { installKernelBackend } from "../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();

/**
 * Makes every mandatory option of `cmd` and its subcommands be checked after commander's check
 * for unknown options, so that a misspelt option is reported as such ("unknown option
 * '--requets' (did you mean --request?)") rather than as the required option it was meant to be.
 */
function deferMandatoryOptions(cmd: Command): void {
  const mandatory: Option[] = [];
  for (const o of cmd.options) {
    if (o.mandatory) {
      o.mandatory = false;
      mandatory.push(o);
    }
  }
  if (mandatory.length > 0) {
    cmd.hook("preAction", (_this, action) => {
      if (action !== cmd) return;
      for (const o of mandatory) {
        if (cmd.getOptionValue(o.attributeName()) === undefined)
          throw new CliError("MISSING_OPTION", `required option '${o.flags}' not specified`, undefined, {
            option: o.long,
          });
      }
    });
  }
  for (const sub of cmd.commands) deferMandatoryOptions(sub);
}

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const program = new Command();
  program
    .name("ssgkr")
    .description(
      "StateSync-GKR proof engine: prove and verify sparse-Merkle-tree state transitions (compat-v1, profiles v2, v3 and v3-zk) and serve a name-keyed registry's proofs",
    )
    .version(versionLine(), "-V, --version", "print the version")
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true)
    .showHelpAfterError(false);
  registerSelftest(program, setExit);
  registerFixture(program);
  registerProve(program);
  registerVerify(program);
  registerRegistry(program, setExit);
  registerLoad(program, setExit);
  registerDemo(program, setExit);
  registerServe(program, setExit);
  registerNats(program, setExit);
  deferMandatoryOptions(program);
  try {
    await program.parseAsync(argv as string[]);
    return exitCode;
  } catch (err) {
    if (err instanceof CliExit) {
      (err.stream === "stdout" ? process.stdout : process.stderr).write(err.message + "\n");
      return err.exitCode;
    }
    const { line, exitCode: code } = formatError(err);
    if (line !== null) process.stderr.write(line + "\n");
    return code;
  }
}
