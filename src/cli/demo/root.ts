// The demo's private root: `<tmp>/swarm-demo-XXXXXX/` (never the user's ~/.claude), holding the
// demo project, the demo's teams, and `demo.json` (protocol/demo.ts) with the pid of the `swarm
// demo` process that owns it. The root that started the demo (CLAUDE_CONFIG_DIR, else ~/.claude)
// records it too, in `<root>/swarm/demos/<name>.json`: `swarm doctor` judges only the demos its own
// root recorded (`listDemoRoots`), so another user's or another root's killed demo in the shared
// temp dir is never reported, and never cleaned up, by this one. The demo removes both when it ends.
import { promises as fs } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { DemoMarkerSchema, type DemoMarker } from '../../protocol/demo.js';
import { DIR_MODE, formatJson, writeFileAtomic } from '../../storage/atomic.js';
import { parseText } from '../../storage/json-file.js';
import { demosDir } from '../../team/paths.js';

export const DEMO_ROOT_PREFIX = 'swarm-demo-';
const MARKER = 'demo.json';

/** The record of the demo root `dir` under the root `owner` that started it. */
function recordOf(owner: string, dir: string): string {
  return path.join(demosDir(owner), `${path.basename(dir)}.json`);
}

/**
 * Make a fresh demo root under `tmpDir`, record its owner (this process) in it, and record the demo
 * under `owner`, the root that started it. Nothing is left behind when a step fails.
 */
export async function makeDemoRoot(tmpDir: string, owner: string, marker: DemoMarker): Promise<string> {
  const root = await mkdtemp(path.join(tmpDir, DEMO_ROOT_PREFIX));
  try {
    await writeFileAtomic(path.join(root, MARKER), formatJson(marker));
    await fs.mkdir(demosDir(owner), { recursive: true, mode: DIR_MODE });
    await writeFileAtomic(recordOf(owner, root), formatJson({ ...marker, root }));
  } catch (e) {
    await fs.rm(root, { recursive: true, force: true });
    throw e;
  }
  return root;
}

/** Remove the demo root `dir` and its record under `owner` (the root first: a record without it is harmless). */
export async function removeDemoRoot(owner: string, dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.rm(recordOf(owner, dir), { force: true });
}

export interface ListedDemoRoot {
  root: string;
  /** Undefined when the root has no readable marker (a demo just starting, or its root already gone). */
  marker: DemoMarker | undefined;
}

/**
 * The demo roots `owner` recorded, each with its marker. A record naming anything but an absolute
 * `…/swarm-demo-*` path whose name matches the record's own is not a demo root and is skipped.
 */
export async function listDemoRoots(owner: string): Promise<ListedDemoRoot[]> {
  const names = await fs.readdir(demosDir(owner)).catch(() => []);
  const roots: ListedDemoRoot[] = [];
  for (const name of names) {
    if (!name.startsWith(DEMO_ROOT_PREFIX) || !name.endsWith('.json')) continue;
    const recorded = parseText(await fs.readFile(path.join(demosDir(owner), name), 'utf8').catch(() => ''), DemoMarkerSchema);
    const root = recorded.ok ? (recorded.value as { root?: unknown }).root : undefined;
    if (typeof root !== 'string' || !path.isAbsolute(root) || `${path.basename(root)}.json` !== name) continue;
    const raw = await fs.readFile(path.join(root, MARKER), 'utf8').catch(() => undefined);
    const parsed = raw === undefined ? undefined : parseText(raw, DemoMarkerSchema);
    roots.push({ root, marker: parsed?.ok ? parsed.value : undefined });
  }
  return roots.sort((a, b) => a.root.localeCompare(b.root));
}
