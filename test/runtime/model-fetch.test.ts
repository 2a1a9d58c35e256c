// The model's HTTP client (runtime/model-fetch.ts): node-fetch's Headers and FormData take the
// place of Node's lazy globals only while those are unread (undici not loaded), never of Node's own
// once something in the process uses them. Each case is a fresh node process importing dist/ (run
// `npm run build` first): the test runner's own process has read Node's globals long before.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stillLazy } from '../../src/runtime/model-fetch.js';
import { REPO } from '../support/cli.js';

/** In a fresh process: optionally read Node's `Headers` first, then modelFetch(); which classes are where. */
function globalsAfter(readFirst: boolean): { headers: string; formData: string; undici: boolean } {
  const mf = path.join(REPO, 'dist/runtime/model-fetch.js');
  const script = `
    ${readFirst ? 'globalThis.Headers;' : ''}
    const { modelFetch } = await import(${JSON.stringify(mf)});
    const nf = await import('node-fetch');
    const fetch = await modelFetch();
    const who = (v) => (v === nf.Headers || v === nf.FormData ? 'node-fetch' : 'node');
    console.log(JSON.stringify({ fetch: fetch === nf.default, headers: who(globalThis.Headers), formData: who(globalThis.FormData),
      undici: process.moduleLoadList.includes('NativeModule internal/deps/undici/undici') }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' })) as {
    fetch: boolean;
    headers: string;
    formData: string;
    undici: boolean;
  };
  expect(out.fetch).toBe(true);
  return { headers: out.headers, formData: out.formData, undici: out.undici };
}

describe('the model HTTP client', () => {
  it('puts node-fetch in place of Node\'s unread fetch globals, so undici is never loaded', () => {
    expect(globalsAfter(false)).toEqual({ headers: 'node-fetch', formData: 'node-fetch', undici: false });
  });

  it('leaves a global that something already read alone', () => {
    expect(globalsAfter(true)).toEqual({ headers: 'node', formData: 'node-fetch', undici: true });
  });

  it('tells a lazy accessor from a value', () => {
    const target = {};
    Object.defineProperty(target, 'Lazy', { get: () => 1, configurable: true });
    Object.defineProperty(target, 'Read', { value: 1 });
    expect([stillLazy('Lazy', target), stillLazy('Read', target), stillLazy('Missing', target)]).toEqual([true, false, false]);
  });
});
