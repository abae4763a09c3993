import { ConfigValidationError } from '@app/config';
import { defaultThrottleKeyPrefix, parseClusterNodes, redisConfig } from './redis.config';

describe('REDIS_CLUSTER_NODES', () => {
  it.each([
    ['', []],
    ['127.0.0.1:7000', [{ host: '127.0.0.1', port: 7000 }]],
    [
      ' redis-a:7000 , redis-b.internal:7001 ',
      [
        { host: 'redis-a', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
      ],
    ],
    ['[::1]:7000', [{ host: '::1', port: 7000 }]],
  ])('parses %p', (raw, nodes) => {
    expect(parseClusterNodes(raw)).toEqual(nodes);
  });

  it.each(['127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000', 'a:7000,:7001', 'a b:7000', 'redis://a:7000'])(
    'refuses %p naming the key',
    (raw) => {
      expect(() => parseClusterNodes(raw)).toThrow(ConfigValidationError);
      expect(() => parseClusterNodes(raw)).toThrow(/REDIS_CLUSTER_NODES entry \d must be host:port/);
    },
  );
});

describe('defaultThrottleKeyPrefix', () => {
  it.each([
    ['superbiz', 'superbiz:throttle:superbiz'],
    ['Ops_Diag', 'superbiz:throttle:ops_diag'],
    ['diag.prod$1', 'superbiz:throttle:diag_prod_1'],
    ['x'.repeat(80), `superbiz:throttle:${'x'.repeat(46)}`],
  ])('%s -> %s', (name, prefix) => expect(defaultThrottleKeyPrefix(name)).toBe(prefix));
});

describe('redisConfig throttle prefix', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  it('defaults per service database and keeps an explicit prefix', () => {
    delete process.env.REDIS_THROTTLE_KEY_PREFIX;
    process.env.DB_NAME = 'ops_diag';
    expect(redisConfig().throttleKeyPrefix).toBe('superbiz:throttle:ops_diag');
    process.env.REDIS_THROTTLE_KEY_PREFIX = 'shared:limit';
    expect(redisConfig().throttleKeyPrefix).toBe('shared:limit');
  });
});
