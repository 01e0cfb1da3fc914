/// <reference lib="dom" />
/**
 * The browser verifier page (bundled by scripts/build-web.mjs into page.js beside index.html and
 * kernels.wasm). It loads the kernel module asynchronously (when the page is cross-origin
 * isolated, which shared WASM memory needs; otherwise hashing runs in TypeScript), fetches the
 * proof of a name from the registry's HTTP API, prepares the circuit here (derived wiring) and
 * checks the proof against the root the user trusts with the same code as Node
 * (`checkProofBody`). Query parameters `name`, `root`, `server`, `profile` (`v3`: the proof
 * in profile v3, checked from the statement alone) and `zk` (`1`: the proof in profile v3's
 * zero-knowledge mode, v3-zk, whose bytes reveal nothing of the path) fill the form; an accepted
 * v3-zk proof's verdict says it is zero-knowledge (`data-profile="v3-zk"`); `auto=1` also
 * starts the check. The block form checks a profile v3 registry block (block.json and block.bin,
 * chosen as files or pasted) from the trusted root — the root before the block — to the root
 * after it (block.json's `to_root` when left empty) with `checkBlockBody`, as `POST /v1/verify`
 * does; the pinned-root rules below apply to it as to records.
 *
 * A link never changes what the user trusts: a root pinned in this browser (local storage
 * `ssgkr.trustedRoot`, written only by the Pin button) wins over the query's `root`. A query root
 * that differs from the pinned one is a conflict: the conflict panel names both roots, and every
 * check ends REJECT `ROOT_CONFLICT` (naming both) until the user keeps the pinned root or uses the
 * link's root for this page (which does not pin it). A proof fetched from another origin than the
 * page's own is marked on its verdict (a notice and `data-foreign-server`).
 */
import { loadKernelModule } from "../kernels/loader.js";
import { installKernelBackend } from "../kernels/backend.js";
import { hashBackend } from "../hash/fast-permutation.js";
import { checkProofBody, type BodyVerdict } from "../counterparty/body.js";
import { checkBlockBody, type BlockBodyVerdict } from "../counterparty/block-body.js";
import { formatRoot, parseRoot } from "../counterparty/claim.js";
import { SsgkrError } from "../errors.js";
import { verdictState } from "./verdict-state.js";
import { decodeWhirCommitment, whirVerify, type WhirAnyClaim, type WhirVerdict } from "../pcs/index.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const PIN_KEY = "ssgkr.trustedRoot";

let ready: Promise<string>;

/** An unresolved conflict between the pinned root and the link's `root` (both as given). */
let conflict: { pinned: string; link: string } | undefined;

async function loadKernels(): Promise<string> {
  if (!(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated) {
    installKernelBackend("typescript");
    return "TypeScript (the page is not cross-origin isolated, so shared WASM memory is unavailable)";
  }
  try {
    await loadKernelModule(new URL("./kernels.wasm", import.meta.url));
  } catch (e) {
    installKernelBackend("typescript");
    return `TypeScript (kernel module not loaded: ${(e as Error).message})`;
  }
  installKernelBackend("auto");
  return hashBackend() === "wasm" ? "WASM kernels" : "TypeScript";
}

function server(): string {
  const s = $<HTMLInputElement>("server").value.trim();
  return s === "" ? location.origin : s.replace(/\/+$/, "");
}

/** The proof URL of `name` on the chosen server in the chosen profile, resolved as `fetch` resolves it. */
function proofUrl(name: string): URL {
  const chosen = $<HTMLSelectElement>("profile").value;
  const profile = chosen === "v3-zk" ? "?profile=v3&zk=1" : chosen === "v3" ? "?profile=v3" : "";
  return new URL(`${server()}/v1/records/${encodeURIComponent(name)}/proof${profile}`, location.href);
}

/** The origin of `url` when it is not the page's own, else undefined. */
function foreignOrigin(url: URL): string | undefined {
  return url.origin === location.origin ? undefined : url.origin;
}

/** The chosen server's origin when it is not the page's own (its text when it is no URL), else undefined. */
function foreignServer(): string | undefined {
  try {
    return foreignOrigin(new URL(`${server()}/`, location.href));
  } catch {
    return server();
  }
}

/** A root in its canonical form (64 hex characters), or the trimmed text when it does not parse. */
function canonicalRoot(text: string): string {
  try {
    return formatRoot(parseRoot(text, "root"));
  } catch {
    return text.trim();
  }
}

type Parts = {
  code?: string;
  label?: string;
  headline?: string;
  what: string;
  reason?: string;
  scope?: string;
  zk?: string;
  notice?: string;
  nameNotice?: string;
  foreign?: string;
  time?: string;
};

function show(
  word: "ACCEPT" | "REJECT" | "NO PROOF" | "…" | "—",
  parts: Parts,
  data: Record<string, string> = {},
): void {
  const box = $("verdict");
  box.replaceChildren();
  box.dataset.verdict = word === "…" ? "PENDING" : word === "—" ? "NONE" : word;
  for (const k of Object.keys(box.dataset)) if (k !== "verdict") delete box.dataset[k];
  for (const [k, v] of Object.entries(data)) box.dataset[k] = v;
  const line = document.createElement("div");
  const w = document.createElement("span");
  w.className = "word";
  w.textContent = parts.label ?? word;
  line.append(w);
  if (parts.code) {
    const c = document.createElement("span");
    c.className = "code";
    c.textContent = parts.code;
    line.append(c);
  }
  box.append(line);
  const add = (cls: string, text?: string) => {
    if (!text) return;
    const d = document.createElement("div");
    d.className = cls;
    d.textContent = text;
    box.append(d);
  };
  add("headline", parts.headline);
  add("what", parts.what);
  add("foreign", parts.foreign);
  add("name-notice", parts.nameNotice ? `Name: ${parts.nameNotice}` : undefined);
  add("reason", parts.reason);
  add("scope", parts.notice ? `Notice: ${parts.notice}` : undefined);
  add("scope", parts.scope);
  add("zk", parts.zk);
  add("time", parts.time);
}

function trusted(): Uint32Array | undefined {
  const text = $<HTMLTextAreaElement>("root").value.trim();
  return text === "" ? undefined : parseRoot(text, "trusted root");
}

const nextFrame = () => new Promise<void>((r) => setTimeout(r, 0));

/** The notice and data attribute of a proof that comes (or would come) from another origin. */
function foreignParts(
  origin: string | undefined,
  fetched = true,
): { parts: Pick<Parts, "foreign">; data: Record<string, string> } {
  if (origin === undefined) return { parts: {}, data: {} };
  const what = fetched ? "the proof comes from" : "the link asks for the proof from";
  return {
    parts: { foreign: `From another server: ${what} ${origin}, not from this page's server ${location.origin}.` },
    data: { foreignServer: origin },
  };
}

/** The final verdict while the link's root conflicts with the pinned one. */
function showConflict(c: { pinned: string; link: string }, origin: string | undefined): void {
  const pinned = canonicalRoot(c.pinned);
  const link = canonicalRoot(c.link);
  const f = foreignParts(origin, false);
  show(
    "REJECT",
    {
      code: "ROOT_CONFLICT",
      what: `The link names the root ${link}, but the root pinned in this browser is ${pinned}.`,
      reason:
        "Nothing is checked until you choose: keep the pinned root, or use the link's root for this check (it is not pinned).",
      ...f.parts,
    },
    { code: "ROOT_CONFLICT", pinnedRoot: pinned, linkRoot: link, ...f.data },
  );
}

async function run(source: { name: string } | { pasted: string }): Promise<void> {
  if (conflict) {
    showConflict(conflict, "name" in source ? foreignServer() : undefined);
    return;
  }
  const backend = await ready;
  show("…", { what: "fetching and verifying…" });
  await nextFrame();
  let root: Uint32Array | undefined;
  try {
    root = trusted();
  } catch (e) {
    show(
      "REJECT",
      {
        code: (e as SsgkrError).code ?? "BAD_ROOT",
        what: "the trusted root is not usable",
        reason: (e as Error).message,
      },
      { code: (e as SsgkrError).code ?? "BAD_ROOT" },
    );
    return;
  }
  const t0 = performance.now();
  let body: unknown;
  let name: string | undefined;
  let fetchMs = 0;
  let foreign: ReturnType<typeof foreignParts> = { parts: {}, data: {} };
  if ("name" in source) {
    name = source.name;
    if (name === "") {
      show("REJECT", { code: "BAD_CLAIM", what: "enter a name" }, { code: "BAD_CLAIM" });
      return;
    }
    let res: Response;
    try {
      const url = proofUrl(name);
      foreign = foreignParts(foreignOrigin(url));
      res = await fetch(url, { headers: { accept: "application/json" } });
      body = await res.json();
    } catch (e) {
      show(
        "NO PROOF",
        {
          code: "FETCH_FAILED",
          what: `the proof of ${JSON.stringify(name)} could not be fetched`,
          reason: (e as Error).message,
          ...foreign.parts,
        },
        { code: "FETCH_FAILED", ...foreign.data },
      );
      return;
    }
    fetchMs = performance.now() - t0;
    if (!res.ok) {
      const err = body as { code?: string; message?: string };
      show(
        "NO PROOF",
        {
          code: err.code ?? `HTTP_${res.status}`,
          what: `the server gave no proof for ${JSON.stringify(name)}`,
          reason: err.message,
          ...foreign.parts,
        },
        { code: err.code ?? `HTTP_${res.status}`, ...foreign.data },
      );
      return;
    }
  } else {
    try {
      body = JSON.parse(source.pasted);
    } catch (e) {
      show(
        "REJECT",
        { code: "BAD_CLAIM", what: "the pasted text is not JSON", reason: (e as Error).message },
        { code: "BAD_CLAIM" },
      );
      return;
    }
  }
  await nextFrame();
  const t1 = performance.now();
  const v: BodyVerdict = checkProofBody(body, name, root);
  const checkMs = performance.now() - t1;
  const time = `${fetchMs > 0 ? `fetch ${fetchMs.toFixed(0)} ms, ` : ""}prepare ${v.prepareMs.toFixed(0)} ms${v.prepareMs < 1 ? " (cached)" : ""}, verify ${v.verifyMs.toFixed(0)} ms, check in all ${checkMs.toFixed(0)} ms — hashing: ${backend}`;
  const data = {
    ...foreign.data,
    code: v.code ?? "",
    verifyMs: v.verifyMs.toFixed(2),
    prepareMs: v.prepareMs.toFixed(2),
    checkMs: checkMs.toFixed(2),
    backend: backend.startsWith("WASM") ? "wasm" : "typescript",
    profile: v.profile ?? "",
  };
  // another root than the trusted one: say whether the proof is valid at its own root
  const own =
    !v.ok && v.code === "ROOT_NOT_TRUSTED"
      ? ((o) => ({ ok: o.ok, ...(o.trustedRoot ? { root: o.trustedRoot } : {}) }))(checkProofBody(body, name))
      : undefined;
  const st = verdictState(v, own);
  const shown = { ...data, trust: st.trust };
  const common = {
    label: st.word,
    headline: st.headline,
    what: st.what,
    ...foreign.parts,
    ...(v.notice ? { notice: v.notice } : {}),
    ...(v.nameNotice ? { nameNotice: v.nameNotice } : {}),
    time,
  };
  const zk =
    v.ok && v.profile === "v3-zk"
      ? "Zero knowledge (profile v3-zk): the proof reveals nothing about the name's path — no sibling, not which neighbouring subtrees are occupied — beyond the statement."
      : undefined;
  if (v.ok) show("ACCEPT", { ...common, ...(v.scope ? { scope: v.scope } : {}), ...(zk ? { zk } : {}) }, shown);
  else show("REJECT", { ...common, code: v.code!, ...(v.reason ? { reason: v.reason } : {}) }, shown);
}

/** The block body of the block form: a chosen file wins over pasted text. */
async function blockInput(): Promise<{ block: string; proof: string | Uint8Array }> {
  const jsonFile = $<HTMLInputElement>("block-json-file").files?.[0];
  const binFile = $<HTMLInputElement>("block-bin-file").files?.[0];
  const block = jsonFile ? await jsonFile.text() : $<HTMLTextAreaElement>("block-json").value;
  const proof = binFile
    ? new Uint8Array(await binFile.arrayBuffer())
    : $<HTMLTextAreaElement>("block-proof").value.trim();
  return { block, proof };
}

/** Checks the block form's block.json and block.bin from the trusted root (the root before the block) to the root after it. */
async function runBlock(): Promise<void> {
  if (conflict) {
    showConflict(conflict, undefined);
    return;
  }
  const backend = await ready;
  show("…", { what: "verifying the block…" });
  await nextFrame();
  let fromRoot: Uint32Array | undefined, toRoot: Uint32Array | undefined;
  try {
    fromRoot = trusted();
    const text = $<HTMLTextAreaElement>("to-root").value.trim();
    toRoot = text === "" ? undefined : parseRoot(text, "root after the block");
  } catch (e) {
    show(
      "REJECT",
      { code: (e as SsgkrError).code ?? "BAD_ROOT", what: "a root is not usable", reason: (e as Error).message },
      { code: (e as SsgkrError).code ?? "BAD_ROOT", kind: "block" },
    );
    return;
  }
  let body: { block: string; proof: string | Uint8Array };
  try {
    body = await blockInput();
  } catch (e) {
    show(
      "REJECT",
      { code: "BAD_CLAIM", what: "the block's files could not be read", reason: (e as Error).message },
      { code: "BAD_CLAIM", kind: "block" },
    );
    return;
  }
  const t1 = performance.now();
  const v: BlockBodyVerdict = checkBlockBody(body, {
    ...(fromRoot ? { fromRoot } : {}),
    ...(toRoot ? { toRoot } : {}),
  });
  const checkMs = performance.now() - t1;
  const time = `prepare ${v.prepareMs.toFixed(0)} ms${v.prepareMs < 1 ? " (cached)" : ""}, verify ${v.verifyMs.toFixed(0)} ms, check in all ${checkMs.toFixed(0)} ms — hashing: ${backend}`;
  const own =
    !v.ok && (v.code === "ROOT_NOT_TRUSTED" || v.code === "FROM_ROOT_MISMATCH")
      ? ((o) => ({ ok: o.ok, ...(o.fromRoot ? { root: o.fromRoot } : {}) }))(checkBlockBody(body, {}))
      : undefined;
  const st = verdictState(v, own);
  const data = {
    kind: "block",
    code: v.code ?? "",
    verifyMs: v.verifyMs.toFixed(2),
    prepareMs: v.prepareMs.toFixed(2),
    checkMs: checkMs.toFixed(2),
    backend: backend.startsWith("WASM") ? "wasm" : "typescript",
    trust: st.trust,
    ...(v.operation !== undefined ? { operation: String(v.operation) } : {}),
  };
  const common = {
    label: st.word,
    headline: st.headline,
    what: st.what,
    ...(v.notice ? { notice: v.notice } : {}),
    time,
  };
  if (v.ok) show("ACCEPT", common, data);
  else show("REJECT", { ...common, code: v.code!, ...(v.reason ? { reason: v.reason } : {}) }, data);
}

async function useCurrentRoot(): Promise<void> {
  try {
    const res = await fetch(`${server()}/v1/root`);
    const body = (await res.json()) as { root: unknown };
    $<HTMLTextAreaElement>("root").value = formatRoot(parseRoot(body.root, "the server's root"));
    $("pinned").textContent = "the server's current root (not pinned: you trust the server for it)";
  } catch (e) {
    $("pinned").textContent = `could not read the server's root: ${(e as Error).message}`;
  }
}

/** A WHIR opening (docs/pcs.md) checked in the page, for the benchmarks: commitment and proof bytes, the claims. */
function verifyWhirOpening(commitment: Uint8Array, claims: readonly WhirAnyClaim[], proof: Uint8Array): WhirVerdict {
  return whirVerify(decodeWhirCommitment(commitment), claims, proof, { accept: "conjectured" });
}

/** The checker itself, for scripted use (tests, benchmarks): the same function the form runs. */
(globalThis as Record<string, unknown>).ssgkr = {
  checkProofBody,
  checkBlockBody,
  parseRoot,
  verifyWhirOpening,
  ready: () => ready,
};

function start(): void {
  ready = loadKernels().then((b) => {
    $("backend").textContent = `Hashing: ${b}.`;
    return b;
  });
  const q = new URLSearchParams(location.search);
  const pinned = localStorage.getItem(PIN_KEY);
  const linkRoot = q.get("root")?.trim() || undefined;
  $<HTMLInputElement>("name").value = q.get("name") ?? "";
  // A pin saved in the list form `[a, b, …]` reads the same as its hex form.
  $<HTMLTextAreaElement>("root").value =
    pinned !== null ? canonicalRoot(pinned) : linkRoot !== undefined ? canonicalRoot(linkRoot) : "";
  if (pinned && linkRoot && canonicalRoot(linkRoot) !== canonicalRoot(pinned)) {
    conflict = { pinned, link: linkRoot };
    $("conflict-pinned").textContent = canonicalRoot(pinned);
    $("conflict-link").textContent = canonicalRoot(linkRoot);
    $("conflict").hidden = false;
    $("pinned").textContent = "pinned root loaded; the link names another root (choose above)";
  } else if (pinned)
    $("pinned").textContent = linkRoot ? "pinned root loaded (the link names the same root)" : "pinned root loaded";
  else if (linkRoot) $("pinned").textContent = "the link's root (not pinned)";
  if (q.get("server")) $<HTMLInputElement>("server").value = q.get("server")!;
  if (q.get("zk") === "1") $<HTMLSelectElement>("profile").value = "v3-zk";
  else if (q.get("profile") === "v3") $<HTMLSelectElement>("profile").value = "v3";
  const resolve = (root: string, hint: string) => {
    conflict = undefined;
    $("conflict").hidden = true;
    $<HTMLTextAreaElement>("root").value = canonicalRoot(root);
    $("pinned").textContent = hint;
    show("—", { what: `Using ${canonicalRoot(root)}. Press Verify.` });
  };
  $("keep-pinned").addEventListener("click", () => {
    if (conflict) resolve(conflict.pinned, "pinned root kept (the link's root is not used)");
  });
  $("use-link-root").addEventListener("click", () => {
    if (conflict)
      resolve(
        conflict.link,
        `the link's root, for this page only (not pinned; the pinned root stays ${canonicalRoot(conflict.pinned)})`,
      );
  });
  $("verify").addEventListener("click", () => void run({ name: $<HTMLInputElement>("name").value.trim() }));
  $("verify-pasted").addEventListener("click", () => void run({ pasted: $<HTMLTextAreaElement>("pasted").value }));
  $("verify-block").addEventListener("click", () => void runBlock());
  $("current").addEventListener("click", () => void useCurrentRoot());
  $("pin").addEventListener("click", () => {
    try {
      const r = trusted();
      if (!r) {
        $("pinned").textContent = "enter a root first";
        return;
      }
      localStorage.setItem(PIN_KEY, formatRoot(r));
      $("pinned").textContent = "pinned in this browser";
    } catch (e) {
      $("pinned").textContent = (e as Error).message;
    }
  });
  if (q.get("auto") === "1") void run({ name: $<HTMLInputElement>("name").value.trim() });
}

start();
