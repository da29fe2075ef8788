/**
 * The `debug` package as the bundles have it (infra/bundling.ts aliases it here). file-type's zip
 * reader (@tokenizer/inflate) traces through it, which prints only for namespaces the DEBUG
 * variable names, and no function sets DEBUG; the real package brings its colour detection and
 * formatting (debug, ms, supports-color: about 9 KB) into every function that takes uploads.
 */
export default function createDebug(_namespace: string): (...args: unknown[]) => void {
  return () => {};
}
