// Names that exist at run time but not in any import.

/** The game core's URL, versioned by the build (esbuild define, worker bundle). */
declare const WASM_URL: string;
/** Go's WebAssembly glue, versioned by the build (esbuild define, worker bundle). */
declare const WASM_EXEC_URL: string;
/** The core's worker script, versioned by the build (esbuild define, page bundle). */
declare const WORKER_URL: string;

/** Go's WebAssembly glue, loaded by the worker from wasm_exec.js. */
declare class Go {
  importObject: WebAssembly.Imports;
  argv: string[];
  env: Record<string, string>;
  run(instance: WebAssembly.Instance): Promise<void>;
}
