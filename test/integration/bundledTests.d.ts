/**
 * Modules that esbuild.mjs generates: each lists the test files of one suite, found when it bundles.
 *
 * @remarks
 * Generated rather than written by hand so that adding a test file is all it takes to run it. Integration
 * files are evaluated lazily by `load()`; an e2e file's default export is checked by the runner.
 */
declare module 'rung:integration-tests' {
  export const files: { file: string; load(): void }[];
}

declare module 'rung:canary-tests' {
  export const files: { file: string; load(): void }[];
}

declare module 'rung:no-folder-tests' {
  export const files: { file: string; load(): void }[];
}

declare module 'rung:untrusted-tests' {
  export const files: { file: string; load(): void }[];
}

declare module 'rung:e2e-checks' {
  export const files: { file: string; module: { default?: unknown } }[];
}
