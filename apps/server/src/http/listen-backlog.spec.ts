import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigValidationError } from '@app/config';
import { listenBacklog, readSomaxconn } from './listen-backlog';

describe('listenBacklog', () => {
  it.each([
    ['the defaults keep Node’s 511', { maxInFlight: 32, maxQueue: 64 }, undefined, 511],
    ['twice the admission capacity above that', { maxInFlight: 200, maxQueue: 1000 }, undefined, 2400],
    ['at most the largest somaxconn', { maxInFlight: 10_000, maxQueue: 100_000 }, undefined, 65_535],
    ['a configured value as it is', { maxInFlight: 32, maxQueue: 64 }, 4096, 4096],
    ['a configured value equal to the capacity', { maxInFlight: 32, maxQueue: 64 }, 96, 96],
  ])('derives %s', (_name, capacity, configured, expected) => {
    expect(listenBacklog(capacity, configured)).toBe(expected);
  });

  it('refuses a configured backlog below the admission capacity, naming the keys', () => {
    expect(() => listenBacklog({ maxInFlight: 200, maxQueue: 1000 }, 1199)).toThrow(ConfigValidationError);
    expect(() => listenBacklog({ maxInFlight: 200, maxQueue: 1000 }, 1199)).toThrow(
      /HTTP_LISTEN_BACKLOG \(1199\).*CHAT_MAX_IN_FLIGHT \+ CHAT_MAX_QUEUE \(1200\)/,
    );
  });
});

describe('readSomaxconn', () => {
  it.each([
    ['a number', '4096\n', 4096],
    ['garbage', 'many\n', null],
    ['zero', '0\n', null],
  ])('reads %s', async (_name, content, expected) => {
    const path = join(await mkdtemp(join(tmpdir(), 'somaxconn-')), 'somaxconn');
    await writeFile(path, content);
    expect(await readSomaxconn(path)).toBe(expected);
  });

  it('is null for a file that does not exist', async () => {
    expect(await readSomaxconn(join(tmpdir(), 'no-such-dir-somaxconn', 'x'))).toBeNull();
  });
});
