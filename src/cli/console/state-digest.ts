// A cheap digest of the teammates' states (`name:state` from status/*.json). Heartbeats rewrite
// those files every few seconds; the console compares digests so that a heartbeat alone does not
// trigger a full status refresh (tmux probe, every inbox parsed), which kept an idle console busy.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StatusFileSchema } from '../../protocol/status.js';
import { parseText } from '../../storage/json-file.js';

export async function readStateDigest(statusDir: string): Promise<string> {
  let names: string[];
  try {
    names = (await fs.readdir(statusDir)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return '';
  }
  const parts: string[] = [];
  for (const name of names) {
    try {
      const parsed = parseText(await fs.readFile(path.join(statusDir, name), 'utf8'), StatusFileSchema);
      parts.push(`${name}:${parsed.ok ? `${parsed.value.state}:${parsed.value.pid}` : 'unreadable'}`);
    } catch {
      parts.push(`${name}:gone`);
    }
  }
  return parts.join('|');
}
