export * from "./challenger.js";
export * from "./domains.js";
