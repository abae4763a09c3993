import type Redis from 'ioredis';
import type { HarnessConfig } from '../config/harness.config';
import { EvidenceStoreUnavailable, InvocationStore, transientStoreFailure } from './invocation-store';

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

describe('InvocationStore retries', () => {
  const storeOn = (redis: Partial<Redis>, storeRetries = 2) =>
    new InvocationStore(
      redis as Redis,
      {
        evidence: { keyPrefix: 'p', ttlSeconds: 60, storeRetries, storeRetryDelayMs: 0 },
      } as unknown as HarnessConfig,
    );
  const failing = (errors: Error[], answer: unknown) => {
    let calls = 0;
    const send = jest.fn(() => {
      const error = errors[calls];
      calls += 1;
      return error ? Promise.reject(error) : Promise.resolve(answer);
    });
    return send;
  };

  it.each([
    ['Command timed out', 'TIMEOUT'],
    ['Connection is closed.', 'DISCONNECTED'],
    ["Stream isn't writeable and enableOfflineQueue options is false", 'DISCONNECTED'],
    ['connect ECONNREFUSED 127.0.0.1:6379', 'DISCONNECTED'],
    ['NOPERM this user has no permissions to run the eval command', null],
    ['OOM command not allowed when used memory > maxmemory', null],
  ])('classifies %p as %p', (message, failure) => {
    expect(transientStoreFailure(new Error(message))).toBe(failure);
  });

  it('tries a timed-out command again and succeeds within the bound', async () => {
    const set = failing([new Error('Command timed out'), new Error('Command timed out')], 'OK');
    await expect(storeOn({ set } as never).openRun('run-1')).resolves.toBeUndefined();
    expect(set).toHaveBeenCalledTimes(3);
  });

  it('gives up after the bound with the named outage', async () => {
    const get = failing(Array(5).fill(new Error('Command timed out')), null);
    await expect(storeOn({ get } as never).get('run-1', 'call_1')).rejects.toBeInstanceOf(
      EvidenceStoreUnavailable,
    );
    expect(get).toHaveBeenCalledTimes(3);
  });

  it('never retries an error reply', async () => {
    const exists = failing([new Error('NOPERM no permissions')], 1);
    await expect(storeOn({ exists } as never).runIntact('run-1')).rejects.toBeInstanceOf(
      EvidenceStoreUnavailable,
    );
    expect(exists).toHaveBeenCalledTimes(1);
  });

  it('with no retries configured, tries once', async () => {
    const set = failing([new Error('Command timed out')], 'OK');
    await expect(storeOn({ set } as never, 0).openRun('run-1')).rejects.toBeInstanceOf(
      EvidenceStoreUnavailable,
    );
    expect(set).toHaveBeenCalledTimes(1);
  });
});
