// Names that exist at run time but not in any import.

/** The game core's URL, versioned by the build (esbuild define). */
declare const WASM_URL: string;

/** Go's WebAssembly glue, loaded by index.html from wasm_exec.js. */
declare class Go {
  importObject: WebAssembly.Imports;
  argv: string[];
  env: Record<string, string>;
  run(instance: WebAssembly.Instance): Promise<void>;
}

interface Window {
  /** Called by the Go program once globalThis.webtronCore is installed. */
  webtronCoreReady?: () => void;
}
