import type Redis from 'ioredis';
import type { HarnessConfig } from '../config/harness.config';
import { InvocationStore } from './invocation-store';

/** Redis Cluster hashes only the part inside the first `{…}` of a key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('InvocationStore keys', () => {
  const store = new InvocationStore(
    {} as Redis,
    {
      evidence: { keyPrefix: 'superbiz:harness:tool-call' },
    } as unknown as HarnessConfig,
  );

  it('keeps the documented record key, with the run id as a literal hash tag', () => {
    expect(store.key('run-1', 'call_1')).toBe('superbiz:harness:tool-call:{run-1}:call_1');
  });

  it.each([
    ['run-1', 'call_1'],
    ['0e3c4f0a-5c53-4a53-9a51-3b0d1f0b2c77', 'toolu_01:abc.def-9'],
  ])('puts record and byte counter of run %s in one cluster slot', (runId, toolCallId) => {
    expect(hashTag(store.key(runId, toolCallId))).toBe(runId);
    expect(hashTag(store.runBytesKey(runId))).toBe(runId);
  });
});
