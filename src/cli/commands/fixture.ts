import type { Command } from "commander";

/** `ssgkr fixture`: prints the golden fixture F(kind, depth, key) of compat-v1 §17 as a request file. */
export function registerFixture(program: Command): void {
  program
    .command("fixture")
    .description("print the golden fixture F(kind, depth, key) (compat-v1 §17) as a request file")
    .requiredOption("--kind <kind>", "membership | nonmembership | update")
    .option("--depth <n>", "tree depth, 1..64", "24")
    .option("--key <k>", "slot index (u64, below 2^depth)", "5")
    .action(async (opts) => (await import("./fixture-run.js")).runFixtureCommand(opts));
}
