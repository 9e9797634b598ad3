/**
 * Stops a process started on a Node.js that Portico does not support, with one line. Imported
 * first by runtime/index.ts, so it runs before any other runtime module (or a dependency) can
 * fail on the old Node.js with a stack trace.
 */

/** Node.js lines Portico runs on: 20 from 20.19 (require of ES modules), 22 from 22.12, and later. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major === 20) return minor >= 19;
  if (major === 22) return minor >= 12;
  return major >= 23;
}

if (!isSupportedNode(process.versions.node)) {
  console.error(`Portico: Node.js ${process.versions.node} is not supported; use Node.js 22 or 24 (LTS), or 20.19 and later.`);
  process.exit(1);
}
