import { tokenize } from './text-tokenizer';

describe('tokenize', () => {
  it.each([
    ['支付超时', ['支付', '付超', '超时']],
    ['HikariPool connection timeout', ['hikaripool', 'connection', 'timeout']],
    ['order-service 连接池耗尽', ['order-service', 'order', 'service', '连接', '接池', '池耗', '耗尽']],
    ['ERR_TIMEOUT 码', ['err_timeout', '码']],
    ['v1.2 api', ['v1.2', 'v1', '2', 'api']],
    ['!!!', []],
  ])('%s', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });
});
