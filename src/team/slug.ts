// Free word-slug team names (e.g. `brisk-otter-42`) for `team create` when a name is taken.
import { randomInt } from 'node:crypto';

const ADJECTIVES = [
  'brisk', 'calm', 'clever', 'bold', 'bright', 'eager', 'gentle', 'keen', 'lively', 'merry',
  'nimble', 'quiet', 'rapid', 'steady', 'swift', 'witty', 'amber', 'silver', 'sunny', 'wise',
];
const ANIMALS = [
  'otter', 'falcon', 'badger', 'heron', 'lynx', 'marten', 'owl', 'panda', 'puffin', 'raven',
  'seal', 'sparrow', 'tiger', 'wolf', 'yak', 'zebra', 'koala', 'ibis', 'gecko', 'bison',
];

export function wordSlug(rand: (max: number) => number = randomInt): string {
  return `${ADJECTIVES[rand(ADJECTIVES.length)]}-${ANIMALS[rand(ANIMALS.length)]}-${rand(90) + 10}`;
}
