import { readFileSync } from 'node:fs';

/**
 * Summarises a V8 .cpuprofile (as the burst bench writes with BENCH_BURST_CPU_PROFILE_DIR): where the
 * process spent its CPU, by package (self time), by function (self time), and by the project's own
 * functions including what they called (inclusive time, each counted once per sample), in ms.
 *
 *   node dist/bench/support/profile-summary.js <file.cpuprofile> [rows]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package name, the project's own file, node's internals, or V8's pseudo-frames. */
export function ownerOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`.replace(/^\(\((.*)\)\)$/u, '($1)');
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/u.exec(url);
  if (packaged) return packaged[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const own = /\/dist\/(.*)$/u.exec(url);
  return own ? own[1].replace(/^(libs\/[^/]+|apps\/[^/]+)\/.*$/u, '$1') : url;
}

export function summarise(profile: CpuProfile, rows = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000),
  );
  const total = [...self.values()].reduce((sum, ms) => sum + ms, 0);
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of self) {
    const frame = byId.get(id)!.callFrame;
    const owner = ownerOf(frame.url, frame.functionName);
    add(byOwner, owner, ms);
    add(byFunction, `${frame.functionName || '(anonymous)'} ${owner}:${frame.lineNumber + 1}`, ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { callFrame } = byId.get(at)!;
      if (!/\/dist\/(libs|apps)\//u.test(callFrame.url)) continue;
      const name = `${callFrame.functionName || '(anonymous)'} ${ownerOf(callFrame.url, '')}:${callFrame.lineNumber + 1}`;
      if (!seen.has(name)) add(inclusive, name, ms);
      seen.add(name);
    }
  }
  const table = (title: string, map: Map<string, number>) =>
    `\n${title}\n${[...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(
        ([key, ms]) =>
          `  ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${key}`,
      )
      .join('\n')}`;
  return (
    `sampled ${total.toFixed(0)} ms over ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms wall` +
    table('self time by package', byOwner) +
    table('self time by function', byFunction) +
    table("the project's functions, inclusive", inclusive) +
    '\n'
  );
}

if (require.main === module) {
  const [file, rows] = process.argv.slice(2);
  process.stdout.write(summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(rows ?? 25)));
}
