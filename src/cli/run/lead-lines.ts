// The agent lead's pane output as whole lines with a prefix (`lead › …`), for the console and the
// headless run: streamed text is held until its line is complete, so it never tears a prompt or
// interleaves with other progress lines. `flush()` prints a partial last line.
import type { Writer } from '../../runtime/view.js';

export interface LineWriter {
  write: Writer;
  flush(): void;
}

export function prefixedLines(prefix: string, print: (line: string) => void): LineWriter {
  let partial = '';
  return {
    write: (text) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim() !== '') print(`${prefix}${l}`);
    },
    flush: () => {
      if (partial.trim() !== '') print(`${prefix}${partial}`);
      partial = '';
    },
  };
}
