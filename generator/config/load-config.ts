/**
 * Stage 1, load: reads platform.yaml with positions, resolves `${env:NAME}` references to
 * validate them, checks it against schemas/platform.schema.json, the service kinds and its own
 * cross-references, and returns the normalised config with the references kept as written.
 * Every problem is reported at once, in one DiagnosticError. An unset variable is not a problem
 * here: only introspection needs values (missingEnvDiagnostics), the rest resolve at run time.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { findEnvRefs, hasEnvRef, resolveEnv, type Env } from '../../runtime/core/env.js';
import { DiagnosticError, type Diagnostic } from '../diagnostics.js';
import { serviceKindRegistry, type KindRegistry } from './kind-registry.js';
import { isRecord } from './loose-data.js';
import { normaliseConfig, type ValidatedConfig } from './normalise-config.js';
import type { PlatformConfig } from './platform-config.js';
import { checkReferences } from './reference-checks.js';
import { pathText, validatePlatform } from './schema-validator.js';
import { checkServices } from './service-checks.js';
import { YamlSource, type ValuePath } from './yaml-source.js';

export interface ConfigOptions {
  /** Environment for `${env:NAME}` references; default process.env. */
  env?: Env;
  /** Service kinds; default the runtime's registry. */
  kinds?: KindRegistry;
  /**
   * Return the cross-reference problems (unknown roles, apps, services; duplicate names) in
   * `deferred` instead of throwing, when they are the only ones: the config can still be built,
   * so the pipeline goes on and reports them with what introspection and its checks find.
   */
  deferReferenceProblems?: boolean;
}

export interface ParsedConfig {
  config: PlatformConfig;
  /** The YAML with positions, for diagnostics of later stages. */
  source: YamlSource;
  /** Cross-reference problems left to the caller to report (with deferReferenceProblems). */
  deferred: Diagnostic[];
}

export interface LoadedConfig extends ParsedConfig {
  /** Absolute path of platform.yaml. */
  path: string;
  /** Absolute directory of platform.yaml: relative paths in the config resolve against it. */
  platformDir: string;
}

/** Values that name things other entries refer to: they must be written literally. */
const LITERAL_ONLY: ReadonlyArray<ReadonlyArray<string>> = [
  ['platform', 'name'],
  ['services', '*', 'name'],
  ['services', '*', 'type'],
  ['roles', '*', 'name'],
  ['roles', '*', 'grants', '*', 'service'],
  ['apps', '*', 'name'],
  ['apps', '*', 'role'],
  ['system', 'open_registration_role'],
  ['system', 'open_registration_app_roles', '*'],
];

/** The largest platform.yaml read (a real one is kilobytes; a 120 MB one took 4 GB of memory to build). */
const MAX_CONFIG_BYTES = 16 * 2 ** 20;

/** Reads and checks a platform.yaml file; diagnostics name it as given (a relative path against `cwd`). */
export async function loadConfig(configPath: string, options: ConfigOptions & { cwd?: string } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const absolute = path.resolve(cwd, configPath);
  const file = path.isAbsolute(configPath) ? configPath : path.relative(cwd, absolute);
  let bytes: Buffer;
  try {
    const { size } = await stat(absolute);
    if (size > MAX_CONFIG_BYTES) {
      const megabytes = (size / 2 ** 20).toFixed(1);
      throw new DiagnosticError([
        { code: 'PCO100', file, message: `The platform config is ${megabytes} MiB; it may be at most ${MAX_CONFIG_BYTES / 2 ** 20} MiB.` },
      ]);
    }
    bytes = await readFile(absolute);
  } catch (error) {
    if (error instanceof DiagnosticError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new DiagnosticError([{ code: 'PCO100', file, message: `Cannot read the platform config: ${reason}.` }]);
  }
  return { ...parseConfig(decodeUtf8(bytes, file), file, options), path: absolute, platformDir: path.dirname(absolute) };
}

/** The file's text; a file that is not UTF-8 (UTF-16, Latin-1, binary) is a PCO100 at its first foreign byte. */
function decodeUtf8(bytes: Buffer, file: string): string {
  const text = bytes.toString('utf8');
  if (!text.includes('\uFFFD')) return text;
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new DiagnosticError([{ code: 'PCO100', file, message: 'The platform config is UTF-16; save it as UTF-8.' }]);
  // Valid UTF-8 encodes back to the same bytes: the first difference is the first invalid byte (a written U+FFFD is kept).
  const again = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length && bytes[offset] === again[offset]) offset++;
  if (offset === bytes.length) return text;
  const before = bytes.subarray(0, offset).toString('utf8');
  const line = before.split('\n').length;
  const col = before.length - before.lastIndexOf('\n');
  throw new DiagnosticError([
    {
      code: 'PCO100',
      file,
      line,
      col,
      message: `The platform config is not UTF-8: byte 0x${bytes[offset]!.toString(16).padStart(2, '0')} cannot start or continue a character; save the file as UTF-8.`,
    },
  ]);
}

/** Checks platform.yaml text; `file` is the name diagnostics show. */
export function parseConfig(text: string, file: string, options: ConfigOptions = {}): ParsedConfig {
  const env = options.env ?? process.env;
  const kinds = options.kinds ?? serviceKindRegistry;
  const source = new YamlSource(file, text);
  const syntax = source.syntaxDiagnostics();
  if (syntax.length > 0) throw new DiagnosticError(syntax);

  const raw = source.toJS();
  const refs = findEnvRefs(raw);
  // A variable the build does not need stays a reference: the generated server resolves it at
  // start. Only introspection needs values (a database password, a WSDL URL): it reports the
  // variables it lacks (missingEnvDiagnostics). Here unset ones resolve to '' so that validation
  // can go on, and what that empty value breaks is not reported.
  const missing = refs.filter((ref) => ref.fallback === null && env[ref.name] === undefined);
  const literalProblems = [
    ...malformedEnvRefs(raw).map((at) =>
      source.diagnosticAt(
        at,
        'PCO106',
        `${pathText(at)} holds a malformed \${env:...} reference; write \${env:NAME} or \${env:NAME:-default} (NAME: letters, digits and '_', not starting with a digit).`,
      ),
    ),
    ...refs
      .filter((ref) => isLiteralOnly(ref.path))
      .map((ref) => source.diagnosticAt(ref.path, 'PCO106', `${pathText(ref.path)} must be written literally, without \${env:...}.`)),
  ];
  const resolved = resolveEnv(raw, { ...env, ...Object.fromEntries(missing.map((ref) => [ref.name, ''])) });
  const problems = validatePlatform(resolved, source);
  if (isRecord(resolved)) problems.push(...checkServices(resolved, source, kinds));
  const references = isRecord(resolved) ? checkReferences(resolved, source) : [];
  const missingAt = new Set(missing.map((ref) => place(source.locate(ref.path))));
  const shown = (diagnostic: Diagnostic) => !missingAt.has(place(diagnostic));
  const diagnostics: Diagnostic[] = [...literalProblems, ...problems.filter(shown)];
  const deferred = references.filter(shown);
  if (diagnostics.length > 0 || (deferred.length > 0 && !options.deferReferenceProblems))
    throw new DiagnosticError([...diagnostics, ...deferred]);

  const data = restoreEnvRefs(resolved, raw) as ValidatedConfig;
  return { config: normaliseConfig(data, kinds), source, deferred };
}

/** Paths of the strings holding `${env:` that is not part of a well-formed reference (`${env:}`, `${env:A B}`, an unclosed `${env:X`). */
function malformedEnvRefs(value: unknown, at: Array<string | number> = []): ValuePath[] {
  if (typeof value === 'string') return value.split('${env:').length - 1 > findEnvRefs(value).length ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => malformedEnvRefs(item, [...at, index]));
  if (isRecord(value)) return Object.entries(value).flatMap(([key, item]) => malformedEnvRefs(item, [...at, key]));
  return [];
}

function place(at: { line?: number; col?: number }): string {
  return `${at.line}:${at.col}`;
}

function isLiteralOnly(valuePath: ValuePath): boolean {
  return LITERAL_ONLY.some(
    (pattern) => pattern.length === valuePath.length && pattern.every((segment, index) => segment === '*' || segment === valuePath[index]),
  );
}

/**
 * The validated data (defaults filled in) with every string that held a reference put back as
 * written, so that resolved secrets never reach the model.
 */
function restoreEnvRefs(resolved: unknown, raw: unknown): unknown {
  if (typeof raw === 'string' && hasEnvRef(raw)) return raw;
  if (Array.isArray(resolved) && Array.isArray(raw)) return resolved.map((item, index) => restoreEnvRefs(item, raw[index]));
  if (isRecord(resolved) && isRecord(raw)) {
    return Object.fromEntries(Object.entries(resolved).map(([key, value]) => [key, key in raw ? restoreEnvRefs(value, raw[key]) : value]));
  }
  return resolved;
}

/**
 * PCO111 for each required `${env:NAME}` reference under `path` of platform.yaml (a service's
 * config) whose variable is not set: introspection needs those values at build time.
 */
export function missingEnvDiagnostics(source: YamlSource, path: ValuePath, env: Env): Diagnostic[] {
  let value: unknown = source.toJS();
  for (const segment of path)
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string | number, unknown>)[segment] : undefined;
  return findEnvRefs(value, [...path])
    .filter((ref) => ref.fallback === null && env[ref.name] === undefined)
    .map((ref) =>
      source.diagnosticAt(
        ref.path,
        'PCO111',
        `Environment variable ${ref.name} is not set; the build needs it to read the service (set it, or write \${env:${ref.name}:-default}).`,
      ),
    );
}
