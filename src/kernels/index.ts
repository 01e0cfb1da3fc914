export { KernelError } from "./errors.js";
export {
  KernelMemory,
  Region,
  ScratchArena,
  PAGE_BYTES,
  MODULE_MAXIMUM_PAGES,
  REGION_ALIGN,
  type KernelMemoryOptions,
  type RegionDescriptor,
} from "./memory.js";
export {
  kernelModule,
  loadKernelModule,
  kernelModuleLoaded,
  setKernelModuleEnabled,
  instantiateKernels,
  type KernelExports,
  type KernelModuleSource,
} from "./loader.js";
export {
  installKernelBackend,
  installedKernelBackend,
  kernelBackendFromEnvironment,
  type KernelBackendChoice,
} from "./backend.js";
export {
  POSEIDON2_CONSTANT_WORDS,
  MONTGOMERY_R,
  toMontgomery,
  poseidon2ConstantWords,
  placeConstants,
} from "./constants.js";
export { KernelInstance, attachKernels, type SharedKernels } from "./instance.js";
export { Kernels, defaultKernels } from "./kernels.js";
export { foldBaseRef, foldBaseExtRef, foldExtRef, extVecMulRef } from "./reference.js";
export * from "./hash-kernels.js";
export * from "./sponge-runner.js";
