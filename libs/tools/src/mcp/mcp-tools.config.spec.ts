import { ConfigValidationError } from '@app/config';
import { parseMcpToolsConfig } from './mcp-tools.config';

const file = (server: string) =>
  `harness:\n  mcp-tools:\n    servers:\n      wx:\n${server
    .split('\n')
    .map((line) => `        ${line}`)
    .join('\n')}\n`;

describe('parseMcpToolsConfig', () => {
  it('reads a stdio server with env references and its tool allowlist', () => {
    expect(
      parseMcpToolsConfig(
        file('command: node\nargs: [server.js]\nenv: { API_KEY: "${WX_KEY}" }\ntools: [get-weather]'),
        'mcp.yaml',
        {
          WX_KEY: 'k',
        },
      ),
    ).toEqual([
      {
        id: 'wx',
        transport: {
          kind: 'stdio',
          command: 'node',
          args: ['server.js'],
          cwd: undefined,
          env: { API_KEY: 'k' },
        },
        timeoutMs: 10_000,
        tools: ['get-weather'],
      },
    ]);
  });

  it('reads a streamable HTTP server with header references', () => {
    const [server] = parseMcpToolsConfig(
      file(
        'url: http://127.0.0.1:3001/mcp\nheaders: { Authorization: "${WX_AUTH}" }\ntimeout-ms: 2000\ntools: [a]',
      ),
      'mcp.yaml',
      { WX_AUTH: 'Bearer t' },
    );
    expect(server.transport).toEqual({
      kind: 'http',
      url: new URL('http://127.0.0.1:3001/mcp'),
      headers: { Authorization: 'Bearer t' },
    });
    expect(server.timeoutMs).toBe(2000);
  });

  it.each([
    ['both command and url', 'command: node\nurl: http://x/mcp\ntools: [a]', 'exactly one of command'],
    ['neither command nor url', 'tools: [a]', 'exactly one of command'],
    ['no tools', 'command: node\ntools: []', 'tools'],
    ['a literal env value', 'command: node\nenv: { KEY: secret }\ntools: [a]', 'env.KEY'],
    ['an unset reference', 'command: node\nenv: { KEY: "${NOT_SET}" }\ntools: [a]', 'NOT_SET is not set'],
    ['credentials in the url', 'url: http://u:p@x/mcp\ntools: [a]', 'without credentials'],
    ['an unknown key', 'command: node\ntools: [a]\nwrite: true', 'write'],
  ])('stops start-up on %s, naming the key', (_name, server, fragment) => {
    const parse = () => parseMcpToolsConfig(file(server), 'mcp.yaml', {});
    expect(parse).toThrow(ConfigValidationError);
    expect(parse).toThrow(new RegExp(fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });
});
