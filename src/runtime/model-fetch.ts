// The Messages API's HTTP client: node-fetch (over node:http and node:https), not Node's own fetch.
// Node's fetch is undici, and so are its lazy globals `Headers`, `FormData` and `Response`: the first
// read of any of them loads the whole module, and a request compiles its WebAssembly HTTP parser.
// That was about 9 MB of an idle teammate's RSS (issue 35; BENCHMARKS.md). The SDK reads `Headers`
// and `FormData` as globals when it builds a request, so they are set to node-fetch's classes here,
// but only while Node's are not loaded yet: once anything has read one, undici is in memory and
// there is nothing to save. node-fetch takes either kind of headers (it iterates them).

/** The SDK reads these as globals; they are lazy accessors until something reads them. */
const SDK_GLOBALS = ['Headers', 'FormData'] as const;

/** Whether `name` on globalThis is still Node's lazy accessor (undici not loaded for it). */
export function stillLazy(name: string, target: object = globalThis): boolean {
  return Object.getOwnPropertyDescriptor(target, name)?.get !== undefined;
}

let loaded: Promise<typeof fetch> | undefined;

/** node-fetch's fetch, with its Headers and FormData put in place of Node's not yet loaded ones. */
export function modelFetch(): Promise<typeof fetch> {
  loaded ??= import('node-fetch').then((nf) => {
    for (const name of SDK_GLOBALS) {
      if (stillLazy(name)) Object.defineProperty(globalThis, name, { value: nf[name], writable: true, configurable: true, enumerable: false });
    }
    return nf.default as unknown as typeof fetch;
  });
  return loaded;
}
