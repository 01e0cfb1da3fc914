/**
 * The requests the generator offers: corpus entries C(kind, depth, i) (compat-v1 §16.6) with
 * their wire form (`Job.input`), built once per (kind, fixture) and kept for the run (the
 * frontend verifies each reply against the original request it offered).
 */
import { corpusRequest, type CorpusFixture } from "../fixtures/corpus.js";
import type { OpKindName } from "../../statement/types.js";
import { inputFromRequest } from "../protocol/input.js";
import type { JobInput } from "../protocol/job.js";

/** One corpus request and its wire form. */
export interface OfferedFixture {
  readonly request: CorpusFixture;
  readonly input: JobInput;
}

export class FixtureStore {
  private readonly cache = new Map<string, OfferedFixture>();

  /** @param depth tree depth of every fixture (leaf bound 31, strategy A). */
  constructor(readonly depth: number) {}

  /**
   * Corpus entry `fixtureId` of `kind`, built on first use.
   * @throws as `corpusRequest` (e.g. SmtError `KEY_OUT_OF_RANGE` when fixtureId + 1 ≥ 2^depth).
   */
  get(kind: OpKindName, fixtureId: number): OfferedFixture {
    const key = `${kind}/${fixtureId}`;
    let f = this.cache.get(key);
    if (f === undefined) {
      const request = corpusRequest(kind, fixtureId, { depth: this.depth });
      f = { request, input: inputFromRequest(request) };
      this.cache.set(key, f);
    }
    return f;
  }

  /** Number of fixtures built so far. */
  get size(): number {
    return this.cache.size;
  }
}
