/**
 * A unified diff of two texts (Myers' line diff, 3 lines of context), for `gen check`.
 * Long diffs are cut after a number of lines: the point is to show what drifted, not to patch.
 */

type Edit = { op: ' ' | '-' | '+'; text: string; oldLine: number; newLine: number };

const CONTEXT = 3;
/** Beyond this many differing lines Myers' trace gets large; the rest is shown as one replacement. */
const MAX_EDIT_DISTANCE = 2000;

/**
 * `--- a/<path>` / `+++ b/<path>` and its hunks; `before` null means the file is new, `after`
 * null that it is gone. At most `maxLines` lines of hunks are shown.
 */
export function unifiedDiff(path: string, before: string | null, after: string | null, maxLines = 200): string {
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  const header = [`--- ${before === null ? '/dev/null' : `a/${path}`}`, `+++ ${after === null ? '/dev/null' : `b/${path}`}`];
  const body = hunks(lineEdits(oldLines, newLines));
  const shown = body.length > maxLines ? [...body.slice(0, maxLines), `... ${body.length - maxLines} more lines`] : body;
  return `${[...header, ...shown].join('\n')}\n`;
}

function splitLines(text: string | null): string[] {
  if (text === null || text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script from `a` to `b`: common prefix and suffix, Myers in between. */
function lineEdits(a: string[], b: string[]): Edit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const edits: Edit[] = [];
  for (let i = 0; i < start; i++) edits.push({ op: ' ', text: a[i]!, oldLine: i, newLine: i });
  edits.push(...middleEdits(a.slice(start, endA), b.slice(start, endB), start, start));
  for (let i = 0; i < a.length - endA; i++) edits.push({ op: ' ', text: a[endA + i]!, oldLine: endA + i, newLine: endB + i });
  return edits;
}

function middleEdits(a: string[], b: string[], offsetA: number, offsetB: number): Edit[] {
  const replaceAll = (): Edit[] => [
    ...a.map((text, i): Edit => ({ op: '-', text, oldLine: offsetA + i, newLine: offsetB })),
    ...b.map((text, j): Edit => ({ op: '+', text, oldLine: offsetA + a.length, newLine: offsetB + j })),
  ];
  if (a.length === 0 || b.length === 0) return replaceAll();
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, offsetA, offsetB, d);
    }
  }
  return replaceAll();
}

function backtrack(trace: Int32Array[], a: string[], b: string[], offset: number, offsetA: number, offsetB: number, depth: number): Edit[] {
  const edits: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = depth; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      edits.push({ op: ' ', text: a[x]!, oldLine: offsetA + x, newLine: offsetB + y });
    }
    if (x === prevX) {
      y--;
      edits.push({ op: '+', text: b[y]!, oldLine: offsetA + x, newLine: offsetB + y });
    } else {
      x--;
      edits.push({ op: '-', text: a[x]!, oldLine: offsetA + x, newLine: offsetB + y });
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    edits.push({ op: ' ', text: a[x]!, oldLine: offsetA + x, newLine: offsetB + y });
  }
  return edits.reverse();
}

/** Groups changes with CONTEXT lines around them into `@@ -a,b +c,d @@` hunks. */
function hunks(edits: Edit[]): string[] {
  const changed = edits.flatMap((edit, index) => (edit.op === ' ' ? [] : [index]));
  const lines: string[] = [];
  let i = 0;
  while (i < changed.length) {
    const first = Math.max(0, changed[i]! - CONTEXT);
    let last = Math.min(edits.length - 1, changed[i]! + CONTEXT);
    while (i + 1 < changed.length && changed[i + 1]! - CONTEXT <= last + 1) {
      i++;
      last = Math.min(edits.length - 1, changed[i]! + CONTEXT);
    }
    const slice = edits.slice(first, last + 1);
    const oldCount = slice.filter((edit) => edit.op !== '+').length;
    const newCount = slice.filter((edit) => edit.op !== '-').length;
    const oldStart = oldCount === 0 ? slice[0]!.oldLine : slice.find((edit) => edit.op !== '+')!.oldLine + 1;
    const newStart = newCount === 0 ? slice[0]!.newLine : slice.find((edit) => edit.op !== '-')!.newLine + 1;
    lines.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...slice.map((edit) => `${edit.op}${edit.text}`));
    i++;
  }
  return lines;
}
