/**
 * Readings from /proc for the benchmark: CPU time and resident memory of a process, the
 * machine's busy time (to tell other load apart), and a launcher's server process.
 */
import fs from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const HZ = 100;

/** Fields of /proc/<pid>/stat from the third on (the command name may hold spaces). */
function statFields(pid: number | 'self'): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU seconds a process has used (all its threads), 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) / HZ;
  } catch {
    return 0;
  }
}

/** CPU seconds of this process and of its children that have ended (wrk, once waited for). */
export function ownCpuSeconds(): number {
  const fields = statFields('self');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / HZ;
}

/** Resident memory in MB (VmRSS). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** The machine's busy and total CPU seconds so far (all cores). */
export function machineCpu(): { busy: number; total: number } {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / HZ, total: (busy + idle + iowait) / HZ };
}

function children(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

function descendants(pid: number): number[] {
  return [pid, ...children(pid).flatMap(descendants)];
}

/** Inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 0A: LISTEN
      if (fields.length > 9 && fields[1].endsWith(`:${hexPort}`) && fields[3] === '0A') inodes.add(fields[9]);
    }
  }
  return inodes;
}

/**
 * The process under `pid` (a launcher such as `npx tsx main.ts` runs npm, tsx's CLI, then node)
 * that listens on `port`, or undefined while none does.
 */
export function listeningProcess(pid: number, port: number): number | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const candidate of descendants(pid)) {
    try {
      for (const fd of fs.readdirSync(`/proc/${candidate}/fd`)) {
        const target = fs.readlinkSync(`/proc/${candidate}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return candidate;
      }
    } catch {
      // The process ended meanwhile.
    }
  }
  return undefined;
}
