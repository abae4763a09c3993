import { describe, expect, it } from '@jest/globals';
import { validateEnv } from '@app/config';
import { AppEnv } from './app.config';
import { parseTrustProxy } from './trust-proxy';

describe('parseTrustProxy', () => {
  it.each([
    ['false', false],
    ['1', 1],
    ['10', 10],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.7', ['10.0.0.0/8', '192.168.1.7']],
    ['loopback,uniquelocal,fd00::/8', ['loopback', 'uniquelocal', 'fd00::/8']],
    ['::1', ['::1']],
  ])('accepts %j', (text, expected) => {
    expect(parseTrustProxy(text)).toEqual(expected);
  });

  it.each([
    ['true', 'trusting every hop lets any client forge its address'],
    ['0', 'no hop is not a proxy setting; use false'],
    ['11', 'more hops than any sane deployment'],
    ['10.0.0.0/33', 'an IPv4 prefix over 32'],
    ['fd00::/129', 'an IPv6 prefix over 128'],
    ['10.0.0.0/8/1', 'two prefixes'],
    ['proxy.internal', 'a host name (Express matches addresses, never names)'],
    ['loopback,', 'an empty entry'],
    ['', 'nothing'],
  ])('refuses %j: %s', (text) => {
    expect(parseTrustProxy(text)).toBeNull();
  });
});

describe('TRUST_PROXY at start-up', () => {
  it('defaults to false and stops the app on a bad value, naming the key', () => {
    expect(validateEnv(AppEnv, {}).TRUST_PROXY).toBe('false');
    expect(() => validateEnv(AppEnv, { TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY must be false, a hop count/,
    );
  });
});
