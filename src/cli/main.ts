/**
 * `ssgkr` command-line entry point. Every command has `--help`; errors end in one clear line
 * on stderr and a non-zero exit code (see exit.ts).
 */
import { Command, CommanderError } from "commander";
import { SsgkrError } from "../errors.js";
import { CliExit, EXIT_USAGE } from "./exit.js";
import { registerSelftest } from "./commands/selftest.js";
import { registerFixture } from "./commands/fixture.js";
import { registerProve } from "./commands/prove.js";
import { registerVerify } from "./commands/verify.js";
import { registerRegistry } from "./commands/registry.js";
import { registerLoad } from "./commands/load.js";
import { registerDemo } from "./commands/demo.js";
import { registerServe } from "./commands/serve.js";
import { registerNats } from "./commands/nats.js";

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => { exitCode = code; };
  const program = new Command();
  program
    .name("ssgkr")
    .description("StateSync-GKR proof engine: prove and verify sparse-Merkle-tree state transitions (compat-v1)")
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.split("\n")[0] + "\n") })
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
  try {
    await program.parseAsync(argv as string[]);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
      return EXIT_USAGE;
    }
    if (err instanceof CliExit) {
      (err.stream === "stdout" ? process.stdout : process.stderr).write(err.message + "\n");
      return err.exitCode;
    }
    if (err instanceof SsgkrError) {
      process.stderr.write(`error ${err.code}: ${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
}
