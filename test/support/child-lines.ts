// Waiting for a child process to say something: resolves once `line` appears on its stdout as a whole
// line, rejects (with what it did print) if the child exits first.
import type { ResultPromise } from 'execa';

export function printedLine(child: ResultPromise, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').includes(line)) resolve();
    });
    child.once('exit', () => reject(new Error(`child exited before printing "${line}": ${buf}`)));
  });
}
