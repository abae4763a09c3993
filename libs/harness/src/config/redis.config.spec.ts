import { ConfigValidationError } from '@app/config';
import { parseClusterNodes } from './redis.config';

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
