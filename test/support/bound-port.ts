import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { scaled } from './test-timeouts';

/*
 * Which process holds a port, read from Linux's /proc. A port picked free and released, then handed to a
 * process, can be taken by another process in between; that one can then answer the health check and the
 * requests in the started process's place (another test's service, another scenario's stub). So processes
 * of ours listen on a port the system chose (port 0) and the test reads it off the process (boundPort);
 * a third-party server that must be given its port is checked to hold it (assertHoldsPort).
 */

/** Reads a /proc file of a process that may have ended meanwhile: undefined then. */
function readProc<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** The process and all its descendants (a command run through npm or bash listens in a grandchild). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    const stat = readProc(() => readFileSync(`/proc/${entry}/stat`, 'utf8'));
    if (stat === undefined) continue;
    // The fields after the command name, which may itself hold spaces and parentheses: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index]) ?? []));
  return tree;
}

/** Socket inode -> port of every TCP socket in LISTEN state that `pid` can see (its network namespace). */
function listeningSockets(pid: number): Map<string, number> {
  const sockets = new Map<string, number>();
  for (const table of ['tcp', 'tcp6']) {
    const text = readProc(() => readFileSync(`/proc/${pid}/net/${table}`, 'utf8')) ?? '';
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/u);
      // local_address is hex "ADDR:PORT"; state 0A is LISTEN; field 9 is the socket's inode.
      if (fields[3] === '0A') sockets.set(fields[9], parseInt(fields[1].split(':')[1], 16));
    }
  }
  return sockets;
}

/** The TCP ports that a process or any of its descendants listens on, ascending. */
export function listeningPorts(rootPid: number): number[] {
  const ports = new Set<number>();
  for (const pid of processTree(rootPid)) {
    const listening = listeningSockets(pid);
    for (const fd of readProc(() => readdirSync(`/proc/${pid}/fd`)) ?? []) {
      const target = readProc(() => readlinkSync(`/proc/${pid}/fd/${fd}`));
      const inode = target === undefined ? undefined : /^socket:\[(\d+)\]$/u.exec(target)?.[1];
      const port = inode === undefined ? undefined : listening.get(inode);
      if (port !== undefined) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/**
 * The one port a started process listens on once it has bound it (started with port 0). Rejects if the
 * process exits first, listens on more than one port, or binds nothing within the time.
 */
export async function boundPort(
  child: ChildProcess,
  what: string,
  timeoutMs = scaled(60_000),
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it listened on a port`);
    const ports = listeningPorts(child.pid!);
    if (ports.length > 1) throw new Error(`${what} listens on ${ports.length} ports (${ports.join(', ')})`);
    if (ports.length === 1) return ports[0];
    if (Date.now() > deadline) throw new Error(`${what} did not listen on a port within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** For a server told its port: fails unless that process (or a descendant) is the one listening on it. */
export function assertHoldsPort(pid: number, port: number, what: string): void {
  if (!listeningPorts(pid).includes(port))
    throw new Error(`port ${port} answered, but ${what} does not hold it: another process took the port`);
}
