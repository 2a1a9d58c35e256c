// Child process: appends whole conversation lines to a transcript with the runtime's Transcript,
// then the first half of one more line (as a process killed inside its append leaves it), prints
// "half" and waits to be killed (SIGKILL from the test). argv: file
import { openSync, writeSync, closeSync } from 'node:fs';
import { Transcript } from '../../dist/runtime/transcript.js';

const [file] = process.argv.slice(2);
const t = new Transcript(file);
t.append({ kind: 'start', pid: process.pid });
t.append({ kind: 'user', content: [{ type: 'text', text: 'do the thing' }] });
t.append({ kind: 'assistant', content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.txt' } }] });
t.append({ kind: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(50_000) }] });
await t.flush();
const line = JSON.stringify({ at: new Date().toISOString(), kind: 'assistant', content: [{ type: 'text', text: 'the half that never ends' }] });
const fd = openSync(file, 'a');
writeSync(fd, line.slice(0, Math.floor(line.length / 2)));
closeSync(fd);
process.stdout.write('half\n');
setInterval(() => {}, 1000);
