/**
 * Preloaded into every test process (`node --test --import ./dist/test/support/kernel-backend.js`,
 * package.json `test`, and the mutation runner): the kernel backend the package entry points
 * install, so tests that import modules directly run the same kernels as the CLI.
 */
import { installKernelBackend } from "../../src/kernels/backend.js";

installKernelBackend();
