export { createPcsPool, PcsPool, type PcsPoolOptions } from "./pool.js";
export { installDefaultPcsPool, uninstallDefaultPcsPool, defaultPcsThreads } from "./default.js";
