// The demo's private root: `<tmp>/swarm-demo-XXXXXX/` (never the user's ~/.claude), holding the
// demo project, the demo's teams, and `demo.json` (protocol/demo.ts) with the pid of the `swarm
// demo` process that owns it. The demo removes the root when it ends; `swarm doctor` lists the roots
// whose owner is gone (`listDemoRoots`) and removes them.
import { promises as fs } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { DemoMarkerSchema, type DemoMarker } from '../../protocol/demo.js';
import { formatJson, writeFileAtomic } from '../../storage/atomic.js';
import { parseText } from '../../storage/json-file.js';

export const DEMO_ROOT_PREFIX = 'swarm-demo-';
const MARKER = 'demo.json';

/** Make a fresh demo root under `tmpDir` and record its owner (this process) in it. */
export async function makeDemoRoot(tmpDir: string, marker: DemoMarker): Promise<string> {
  const root = await mkdtemp(path.join(tmpDir, DEMO_ROOT_PREFIX));
  await writeFileAtomic(path.join(root, MARKER), formatJson(marker));
  return root;
}

export interface ListedDemoRoot {
  root: string;
  /** Undefined when the root has no readable marker (a demo older than the marker, or one just starting). */
  marker: DemoMarker | undefined;
}

/** Whether `dir` is a demo root under `tmpDir` (by name: `<tmpDir>/swarm-demo-*`). */
export function isDemoRootPath(tmpDir: string, dir: string): boolean {
  return path.dirname(dir) === path.resolve(tmpDir) && path.basename(dir).startsWith(DEMO_ROOT_PREFIX);
}

/** Every demo root under `tmpDir`, with its marker. */
export async function listDemoRoots(tmpDir: string): Promise<ListedDemoRoot[]> {
  const entries = await fs.readdir(tmpDir, { withFileTypes: true }).catch(() => []);
  const roots: ListedDemoRoot[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || !e.name.startsWith(DEMO_ROOT_PREFIX)) continue;
    const root = path.join(path.resolve(tmpDir), e.name);
    const raw = await fs.readFile(path.join(root, MARKER), 'utf8').catch(() => undefined);
    const parsed = raw === undefined ? undefined : parseText(raw, DemoMarkerSchema);
    roots.push({ root, marker: parsed?.ok ? parsed.value : undefined });
  }
  return roots.sort((a, b) => a.root.localeCompare(b.root));
}
