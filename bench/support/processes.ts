import { ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { DiagnosisSample, LoadConfig } from './load-generator';
import { boundPort } from '../../test/support/bound-port';
export { boundPort } from '../../test/support/bound-port';

/**
 * Starts a node script as its own process; its stderr is kept for the error message if it dies. With
 * `cpuProfileDir`, the process runs under `--cpu-prof` and exits on SIGTERM at once, so the profile is
 * written (a process killed by the signal writes none).
 */
export function startNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  cpuProfileDir?: string,
): ChildProcess {
  const argv = cpuProfileDir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${cpuProfileDir}`,
        '-e',
        `process.once('SIGTERM', () => process.exit(0)); require(${JSON.stringify(resolve(script))});`,
        '--',
        ...args,
      ]
    : [script, ...args];
  const child = spawn(process.execPath, argv, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGKILL')
      process.stderr.write(`${script} exited with ${code ?? signal}: ${stderr}\n`);
  });
  return child;
}

/**
 * The stub LLM (its CLI) serving `scriptFile` on a port the system chose (boundPort): its root URL, and
 * `baseUrl`, what LLM_BASE_URL takes.
 */
export async function startStubLlm(
  scriptFile: string,
): Promise<{ child: ChildProcess; url: string; baseUrl: string }> {
  const child = startNode('dist/test/support/stub-llm/cli.js', ['--script', scriptFile, '--port', '0'], {});
  const url = `http://127.0.0.1:${await boundPort(child, 'the stub LLM')}`;
  return { child, url, baseUrl: `${url}/v1` };
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** User + system CPU time a process has used so far (ms), from /proc (Linux). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Busy and total CPU time of the whole machine so far (ms, all cores), from /proc/stat. */
export function machineCpuMs(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0) * 10;
  // idle and iowait are the fourth and fifth fields.
  return { busy: total - (fields[3] + fields[4]) * 10, total };
}

/** Peak resident memory of a process (MB), from /proc. */
export function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * One value of the service's Prometheus metrics, scraped with a key holding metrics_read. Scraping
 * resets the event-loop lag percentiles.
 */
export async function scrapeMetric(baseUrl: string, name: string, apiKey: string): Promise<number> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!response.ok)
    throw new Error(`GET /metrics answered ${response.status}: the key needs the metrics_read role`);
  const text = await response.text();
  const match = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  if (!match) throw new Error(`metric ${name} not found`);
  return Number(match[1]);
}

/** Runs the load generator in its own process and returns its samples. */
export async function generateLoad(config: LoadConfig): Promise<DiagnosisSample[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [`${__dirname}/load-generator.js`, JSON.stringify(config)],
    { maxBuffer: 512 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as DiagnosisSample[];
}
