/**
 * Strict command-line options of the serving commands (compat-v1 §16.6): every option is
 * `--name VALUE` from the command's allow-list; unknown options, positionals, duplicates and
 * missing values (absent, empty or starting with `--`) are rejected before anything runs;
 * `--servers` gets an error pointing to `--targets`. An option may also come from the
 * environment as `SSGR_` + NAME (dashes → underscores, upper case); the command line wins.
 */
import { LoadError } from "./errors.js";

/** `SSGR_DEADLINE_MS` for `deadline-ms`. */
export function envName(option: string): string {
  return `SSGR_${option.replace(/-/g, "_").toUpperCase()}`;
}

/**
 * The options given on the command line (`tokens`, after the command name) and in `env`.
 * @throws LoadError `BAD_OPTION` naming the first offending token.
 */
export function parseStrictArgs(
  tokens: readonly string[],
  allowed: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  flags: readonly string[] = [],
): Record<string, string> {
  const allow = new Set(allowed);
  const flagSet = new Set(flags);
  const given: Record<string, string> = {};
  for (let i = 0; i < tokens.length; i += 2) {
    const tok = tokens[i]!;
    if (tok.startsWith("--") && flagSet.has(tok.slice(2))) {
      if (Object.prototype.hasOwnProperty.call(given, tok.slice(2)))
        throw new LoadError("BAD_OPTION", `option ${tok} is given twice`, { option: tok });
      given[tok.slice(2)] = "true";
      i--;
      continue;
    }
    if (!tok.startsWith("--"))
      throw new LoadError("BAD_OPTION", `unexpected argument ${JSON.stringify(tok)} (every option is --name VALUE)`, {
        option: tok,
      });
    const eq = tok.indexOf("=");
    if (eq >= 0)
      throw new LoadError(
        "BAD_OPTION",
        `option ${tok.slice(0, eq)} must be written as ${tok.slice(0, eq)} VALUE (no '=')`,
        { option: tok.slice(0, eq) },
      );
    const name = tok.slice(2);
    if (name === "servers")
      throw new LoadError("BAD_OPTION", "--servers is not an option: use --targets HOST:PORT[,HOST:PORT…]", {
        option: "--servers",
      });
    if (!allow.has(name))
      throw new LoadError(
        "BAD_OPTION",
        `unknown option ${tok} (allowed: ${[...allowed, ...flags].map((a) => `--${a}`).join(", ")})`,
        { option: tok },
      );
    if (Object.prototype.hasOwnProperty.call(given, name))
      throw new LoadError("BAD_OPTION", `option ${tok} is given twice`, { option: tok });
    const value = tokens[i + 1];
    if (value === undefined || value === "" || value.startsWith("--"))
      throw new LoadError("BAD_OPTION", `option ${tok} needs a value`, { option: tok });
    given[name] = value;
  }
  for (const name of allowed) {
    if (Object.prototype.hasOwnProperty.call(given, name)) continue;
    const v = env[envName(name)];
    if (v === undefined) continue;
    if (v === "" || v.startsWith("--"))
      throw new LoadError("BAD_OPTION", `${envName(name)} needs a value`, { option: `--${name}` });
    given[name] = v;
  }
  return given;
}
