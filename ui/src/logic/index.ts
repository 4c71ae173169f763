// Pure view logic, no DOM (unit-tested with Vitest): one module per subject, all re-exported here so
// the panes import from "./logic" alone.
export * from "./bench";
export * from "./cache";
export * from "./charts";
export * from "./compaction";
export * from "./compare";
export * from "./exportBatch";
export * from "./format";
export * from "./library";
export * from "./libraryTable";
export * from "./meter";
export * from "./requests";
export * from "./rereads";
export * from "./schema";
export * from "./search";
export * from "./served";
export * from "./selection";
export * from "./settings";
export * from "./transcript";
export * from "./usage";
export * from "./virtualList";
