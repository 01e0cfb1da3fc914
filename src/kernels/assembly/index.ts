// Entry point of the kernel module. Every export takes byte offsets into the imported shared
// memory and element counts; the module owns no heap and no data segment (see ../README.md).
export { to_mont, from_mont, first_noncanonical } from "./convert";
export { base_mul, inner_product } from "./vector";
export { ext_mul } from "./ext";
export { fold_base, fold_base_ext, fold_ext } from "./fold";
export { ntt_forward, ntt_bit_reverse, ntt_stages, ntt_stages_low, ntt_stages_high, pcs_mobius, pcs_mobius_low, pcs_mobius_high, pcs_rows } from "./ntt";
export { ntt_bit_reverse_copy, ntt_bit_reverse_tiles, ntt_stages_pass } from "./ntt-passes";
export { pcs_fold, pcs_scale_add, pcs_round, pcs_horner, pcs_eq_add, pcs_eq_add_base, pcs_eq_add_base_many, pcs_eq_write_many, pcs_fold_rows, pcs_fold_base, pcs_round_base, pcs_horner_base, pcs_eval_base } from "./pcs-ext";
export { pcs_merkle_leaves, pcs_merkle_leaves_rows, pcs_merkle_leaves_pair, pcs_merkle_level, ntt_twiddles, pcs_lift } from "./merkle";
export { pcs_merkle_leaves24, pcs_merkle_leaves24_rows, pcs_merkle_leaves24_pair, poseidon2_permute24 } from "./merkle24";
export { poseidon2_permute, poseidon2_constant_words } from "./poseidon2";
export { poseidon2_permute_one, poseidon2_sponge } from "./sponge";
export { poseidon2_grind } from "./grind";
export { poseidon2_sponge_x2, poseidon2_sponge_x4, sponge_job_words } from "./sponge-lanes";
export { sponge_constant_words, sponge_constants_init } from "./sponge-constants";
export { interleave_words } from "./interleave";
export { gkr_out_words, gkr_eq, gkr_weights, gkr_fill, gkr_round, gkr_phase2_start, gkr_mle_base, gkr_eval_layer } from "./gkr-layer";
export { dp_dots, dp_combine, dp_gather, dp_outer, dp_eval_group, dp_mul_booking } from "./gkr-copies";
export { gkr_group_fill, gkr_group_phase2 } from "./gkr-groups";
export { gkr_round_lane0 } from "./gkr-round-lane0";
export { gkr_weights_tensor } from "./gkr-weights-tensor";
