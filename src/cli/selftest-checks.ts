/**
 * Known-answer checks run by `ssgkr selftest` (compat-v1 §18 and the Plonky3 0.4.x width-16 test vector).
 * Each check returns nothing on success and throws (or returns a message) on failure.
 */
import { permute, compress } from "../hash/index.js";
import { DuplexChallenger, PROOF_DOMAIN_TAG } from "../transcript/index.js";

export interface KnownAnswerCheck {
  readonly name: string;
  /** Returns the observed value rendered for the report; compared with `expected`. */
  readonly run: () => readonly number[];
  readonly expected: readonly number[];
}

const iota16 = Array.from({ length: 16 }, (_, i) => i);

export const KNOWN_ANSWER_CHECKS: KnownAnswerCheck[] = [
  {
    name: "poseidon2 width16 Plonky3 0.4.x test vector",
    run: () =>
      Array.from(
        permute([
          894848333, 1437655012, 1200606629, 1690012884, 71131202, 1749206695, 1717947831, 120589055, 19776022,
          42382981, 1831865506, 724844064, 171220207, 1299207443, 227047920, 1783754913,
        ]),
      ),
    expected: [
      190453639, 458899855, 383789123, 1958965770, 1470307143, 135446903, 1980271247, 26609194, 337889870, 543343594,
      900082402, 1267415354, 1018710090, 902823573, 1161524658, 1483653556,
    ],
  },
  {
    name: "poseidon2 permute([0..15]) (spec §18)",
    run: () => Array.from(permute(iota16)),
    expected: [
      2089692522, 1915416326, 492489469, 252860357, 1061679923, 82240369, 1810169820, 1585792269, 1096226960,
      1569781184, 1452705076, 2081290613, 1344369360, 1949099839, 544415199, 892194947,
    ],
  },
  {
    name: "compress(0, 0) = h_node(0, 0) (spec §18)",
    run: () => Array.from(compress(new Array(8).fill(0), new Array(8).fill(0))),
    expected: [1194359470, 20586639, 1240637140, 1730441233, 2130651597, 2003319866, 1017798662, 222976322],
  },
  {
    name: `first sample_ext of new("${PROOF_DOMAIN_TAG}") (spec §18)`,
    run: () => DuplexChallenger.withDomain(PROOF_DOMAIN_TAG).sampleExt(),
    expected: [734443161, 199066737, 984464474, 1243658086],
  },
];
