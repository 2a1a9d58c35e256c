// The console says a thing once: a line identical to the last one from the same source (the agent
// lead answering every idle notification with the same "Waiting for coder and tester."; a teammate
// whose two turns ended with the same idle summary) is not printed again. The clock at the start of
// an event line and colours are ignored; any other line from that source in between resets it.
import { stripVTControlCharacters } from 'node:util';

export class RepeatFilter {
  private readonly last = new Map<string, string>();

  /** True (and remembered) when `line` is not the last line `source` printed. */
  fresh(source: string, line: string): boolean {
    const plain = stripVTControlCharacters(line).replace(/^\d\d:\d\d:\d\d /, '');
    if (this.last.get(source) === plain) return false;
    this.last.set(source, plain);
    return true;
  }
}
