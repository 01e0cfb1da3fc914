// Stryker ignorer: the human-readable reason or message of a rejection or error is prose, not a
// check. Mutants inside it (string and template literals, the expressions interpolated into
// them) are ignored; the code argument (first), details and every condition stay mutated.
import { PluginKind, declareValuePlugin } from "@stryker-mutator/api/plugin";

/** Functions and error classes whose arguments after the first are a message and details. */
const MESSAGE_CALLEES = new Set([
  "rejection",
  "reject",
  "Reject",
  "fail",
  "DecodeError",
  "V2DecodeError",
  "V3DecodeError",
  "V3EncodeError",
  "CircuitError",
  "SyncError",
  "CompileError",
  "SmtError",
  "SumcheckError",
]);
const MESSAGE_KEYS = new Set(["reason", "message"]);
/** Calls whose second argument only names the value in an error message (e.g. digest(x, "old_root")). */
const LABEL_CALLEES = new Set(["digest", "element", "ext"]);
/** Functions that only format text for messages. */
const MESSAGE_HELPERS = new Set(["describe"]);

function calleeName(node) {
  const c = node.callee;
  if (c.type === "Identifier") return c.name;
  if (c.type === "MemberExpression" && c.property.type === "Identifier") return c.property.name;
  return undefined;
}

function isText(node) {
  return node.type === "StringLiteral" || node.type === "TemplateLiteral";
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, "messages", {
    shouldIgnore(path) {
      const node = path.node;
      const parent = path.parent;
      if (node.type === "FunctionDeclaration" && node.id && MESSAGE_HELPERS.has(node.id.name))
        return "a helper that only formats message text";
      if (!isText(node) || !parent) return undefined;
      if (
        (parent.type === "CallExpression" || parent.type === "NewExpression") &&
        MESSAGE_CALLEES.has(calleeName(parent))
      ) {
        const index = parent.arguments.indexOf(node);
        if (index === 1) return "the message of a rejection or error is prose, not a check";
      }
      if (
        parent.type === "CallExpression" &&
        LABEL_CALLEES.has(calleeName(parent)) &&
        parent.arguments.indexOf(node) === 1
      ) {
        return "the label of a value in an error message is prose, not a check";
      }
      if (
        parent.type === "ObjectProperty" &&
        parent.value === node &&
        parent.key.type === "Identifier" &&
        MESSAGE_KEYS.has(parent.key.name)
      ) {
        return "the reason or message of a verdict is prose, not a check";
      }
      return undefined;
    },
  }),
];
