import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { postChat } from '../support/sse-client';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { scaled } from '../support/test-timeouts';

// The longest test here (migrate, boot dist and diagnose) needs up to 120 s on an idle machine; the
// suite's time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(120_000));

/** Step 3 of docs/llm-providers.md "The recipe", exactly as a user copies it. */
function recipeBlock(): string {
  const readme = readFileSync('docs/llm-providers.md', 'utf8');
  const section =
    /<!-- real-llm-recipe:start -->\s*```bash\n([\s\S]*?)```\s*<!-- real-llm-recipe:end -->/.exec(readme);
  if (!section) throw new Error('docs/llm-providers.md has no real-llm-recipe block');
  return section[1];
}

/** Runs the block in a clean bash (only PATH and HOME inherited) and returns what it exported. */
function runRecipe(block: string, home: string): Record<string, string> {
  const before = JSON.parse(
    execFileSync('bash', ['-c', 'node -e "process.stdout.write(JSON.stringify(process.env))"'], {
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
    }),
  ) as Record<string, string>;
  const after = JSON.parse(
    execFileSync(
      'bash',
      ['-c', `set -euo pipefail\n${block}\nnode -e "process.stdout.write(JSON.stringify(process.env))"`],
      { env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' },
    ),
  ) as Record<string, string>;
  return Object.fromEntries(Object.entries(after).filter(([key, value]) => before[key] !== value));
}

/** Resolves with the listening URL the service logs, or rejects with what it printed when it exits first. */
function listeningUrl(child: ChildProcess, output: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
      const match = /Listening on (http:\/\/[^\s"]+)/.exec(output.text);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`service exited (${code}) before listening:\n${output.text}`)),
    );
  });
}

describe('docs/llm-providers.md recipe, booted as a process (strict DeepSeek thinking-mode stub)', () => {
  const stub = new StubLlmServer();
  let service: ChildProcess | undefined;
  const logsDir = mkdtempSync(join(tmpdir(), 'e2e-recipe-logs-'));
  const home = mkdtempSync(join(tmpdir(), 'e2e-recipe-home-'));

  afterAll(async () => {
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
    }
    await stub.stop();
    rmSync(logsDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('migrates, starts with exactly the recipe variables, logs its URL and answers a diagnosis SUCCESS', async () => {
    const recipe = runRecipe(recipeBlock(), home);
    // running the block again (a new shell, the next day) keeps the keys: old API keys and audit rows stay valid
    const again = runRecipe(recipeBlock(), home);
    expect(again.AUDIT_ENCRYPTION_KEYS).toBe(recipe.AUDIT_ENCRYPTION_KEYS);
    expect(again.API_KEYS).toBe(recipe.API_KEYS);
    // the user's JSON-lines logs: the pool errors the scripted agent's query_logs call looks for
    writeFileSync(
      join(logsDir, 'application.jsonl'),
      `${JSON.stringify({ timestamp: new Date(Date.now() - 60_000).toISOString(), level: 'ERROR', service: 'order-service', message: 'HikariPool-1 - Connection is not available, request timed out after 30000ms' })}\n`,
    );
    // what a user replaces: the provider, the databases, the allowlist path and the port
    const replaced = {
      LLM_BASE_URL: await stub.start(),
      DB_HOST: process.env.DB_HOST!,
      DB_PORT: process.env.DB_PORT!,
      DB_USER: process.env.DB_USER!,
      DB_PASSWORD: process.env.DB_PASSWORD ?? '',
      DB_NAME: `${process.env.E2E_SERVICE_DB}_recipe`,
      REDIS_HOST: process.env.REDIS_HOST!,
      REDIS_PORT: process.env.REDIS_PORT!,
      MYSQL_TOOLS_CONFIG: 'config/mysql-tools.yaml',
      LOGS_JSONL_DIR: logsDir,
      ORDER_MYSQL_URL: process.env.ORDER_MYSQL_URL!,
      ORDER_MYSQL_PASSWORD: process.env.ORDER_MYSQL_PASSWORD!,
      PORT: '0',
    };
    for (const key of Object.keys(replaced)) expect(recipe).toHaveProperty(key);
    const env: Record<string, string> = { PATH: process.env.PATH!, ...recipe, ...replaced };
    expect(env.AUDIT_ENCRYPTION_KEYS).toMatch(/^k1:[A-Za-z0-9+/]{43}=$/);
    const chatKey = /(?:^|,)chat\|trace_reader\|knowledge_admin=([0-9a-f]{48})(?:,|$)/.exec(
      env.API_KEYS,
    )?.[1];
    expect(chatKey).toBeDefined();

    execFileSync(process.execPath, ['dist/apps/server/src/cli/migrate.js', 'run', '--create-database'], {
      env,
      stdio: 'pipe',
    });
    stub.load({
      profile: 'deepseek-thinking',
      roles: {
        'intent-router': [{ content: 'DIAGNOSIS' }],
        'diagnosis-agent': agentTurns(draftJson()),
        'semantic-guard': [SUPPORTED],
      },
    });
    service = spawn(process.execPath, ['dist/apps/server/src/main.js'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { text: '' };
    const baseUrl = await listeningUrl(service, output);
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output.text).not.toContain('No API key is configured');

    const response = await postChat(baseUrl, { query: 'order-123 payment times out' }, { apiKey: chatKey });
    expect(response.events.at(-1)?.data).toEqual({ outcome: 'SUCCESS' });
    expect(response.events.at(-2)?.data).toMatchObject({ content_type: 'DIAGNOSIS_REPORT' });
    const [, second] = stub.requestsFor('diagnosis-agent');
    expect((second.body.messages ?? []).find((message) => message.role === 'assistant')).toMatchObject({
      reasoning_content: 'REASONING-MARKER the pool looks exhausted',
    });
    // no secret of the recipe reaches the service's log
    expect(output.text).not.toContain(chatKey);
    expect(output.text).not.toContain(env.AUDIT_ENCRYPTION_KEYS.slice(3));
  });
});
