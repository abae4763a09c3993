import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { StubLlmServer } from './stub-llm-server';
import { parseStubScript } from './stub-script';

/** `npm run stub-llm -- --script FILE --port N`: serves the script until interrupted. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      script: { type: 'string' },
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  if (!values.script) throw new Error('usage: stub-llm --script FILE [--port N] [--host 127.0.0.1]');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be 0..65535');
  const server = new StubLlmServer(parseStubScript(JSON.parse(readFileSync(values.script, 'utf8'))));
  const url = await server.start(port, values.host);
  process.stdout.write(`stub LLM listening on ${url} (script ${values.script})\n`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`stub-llm: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
