/** Worker entry of the sync pool: the sync jobs of `serveSyncJobs`, no extension. */
import { serveSyncJobs } from "./worker-serve.js";

serveSyncJobs();
