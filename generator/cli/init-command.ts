import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ServiceModel } from '../../runtime/model/platform-model.js';
import { causeText, DiagnosticError, isUserError } from '../diagnostics.js';
import { GITIGNORE_LINES, starterPlatform, type StarterSource } from '../init/starter-platform.js';
import { type CliIo, counted, shellWord } from './cli-io.js';

interface InitOptions {
  from?: string;
  wsdl?: string;
  out: string;
  force?: boolean;
}

/** `gen init [--from <database> | --wsdl <file or url>]`: a starter platform.yaml and .gitignore lines. */
export function addInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description('Write a commented starter platform.yaml, from an existing database or WSDL when given.')
    .option('--from <database>', 'a postgres:// or mysql:// URL, or a SQLite file')
    .option('--wsdl <file-or-url>', 'a WSDL file or http(s) URL')
    .option('-o, --out <file>', 'the file to write', 'platform.yaml')
    .option('--force', 'overwrite an existing file')
    .action(async (options: InitOptions) => {
      if (options.from !== undefined && options.wsdl !== undefined) throw initError('PCO601', 'Give either --from or --wsdl, not both.');
      const file = path.resolve(io.cwd, options.out);
      if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory())
        throw initError(
          'PCO602',
          `${options.out} is a directory; name the file to write (--out ${path.join(options.out, 'platform.yaml')}).`,
        );
      if (fs.existsSync(file) && !options.force) throw initError('PCO602', `${options.out} exists; pass --force to overwrite it.`);
      const platformDir = path.dirname(file);
      const source = await readSource(options, io.cwd, platformDir);
      fs.mkdirSync(platformDir, { recursive: true });
      fs.writeFileSync(file, starterPlatform(platformName(path.basename(platformDir)), source));
      const ignored = addGitignoreLines(path.join(platformDir, '.gitignore'));
      io.stdout(
        `Wrote ${options.out} (${source.type} service '${source.name}', ${counted(source.found.length, source.type === 'soap' ? 'operation' : 'table')})${ignored ? ' and .gitignore lines' : ''}.\n`,
      );
      for (const { name, holds } of source.environment) io.stdout(`Set ${name} (${holds}) before building.\n`);
      io.stdout(`Next: npx gen build ${shellWord(options.out)}\n`);
    });
}

function initError(code: 'PCO601' | 'PCO602', message: string): DiagnosticError {
  return new DiagnosticError([{ code, message }]);
}

/** The database type a `--from` value names: a URL scheme, else a SQLite file; another scheme is refused. */
function databaseType(from: string): 'pgsql' | 'mysql' | 'sqlite' {
  if (/^postgres(ql)?:\/\//i.test(from)) return 'pgsql';
  if (/^(mysql|mariadb):\/\//i.test(from)) return 'mysql';
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(from)?.[1];
  if (scheme !== undefined)
    throw initError(
      'PCO601',
      `--from takes a postgres://, postgresql://, mysql:// or mariadb:// URL or a SQLite file, not a ${scheme}:// URL.`,
    );
  return 'sqlite';
}

/** Letters without their accents, lowercase, each run of other characters one `separator`, none at either end, at most 64 characters (platform.schema.json's names). */
function machineName(text: string, separator: '-' | '_'): string {
  const trim = (name: string) => name.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  const name = trim(
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(separator === '-' ? /[^a-z0-9_-]+/g : /[^a-z0-9_]+/g, separator),
  );
  return trim(name.slice(0, 64));
}

/** The platform's name from its directory's (`My Shop` -> `my-shop`, `.site` -> `site`), else `platform`. */
function platformName(directory: string): string {
  return machineName(directory, '-') || 'platform';
}

/** A service name from a database or WSDL name: lowercase letters, digits and `_`, not a built-in's. */
function serviceName(text: string, fallback: string): string {
  const name = machineName(text.replace(/\.[a-z]+$/i, ''), '_');
  if (name === '' || /^[0-9]/.test(name)) return fallback;
  return ['system', 'api_docs', 'files', 'logs', 'db', 'email', 'user'].includes(name) ? `${name}_service` : name;
}

/** Introspects the source named by the options into what the starter file needs. */
async function readSource(options: InitOptions, cwd: string, platformDir: string): Promise<StarterSource> {
  if (options.wsdl !== undefined) {
    const wsdl = /^https?:\/\//i.test(options.wsdl)
      ? options.wsdl
      : path.relative(platformDir, path.resolve(cwd, options.wsdl)).split(path.sep).join('/');
    const name = serviceName(path.basename(options.wsdl.split('?')[0]), 'soap');
    const model = await introspect({ type: 'soap', name, config: { wsdl } }, platformDir);
    const operations = model.kind === 'soap' ? model.operations.map((operation) => operation.name) : [];
    return { type: 'soap', name, label: name, config: { wsdl }, found: operations, environment: [] };
  }
  const from = options.from ?? 'data/db.sqlite';
  const type = databaseType(from);
  if (type === 'sqlite') {
    const database = path.relative(platformDir, path.resolve(cwd, from)).split(path.sep).join('/');
    const exists = fs.existsSync(path.resolve(platformDir, database));
    // The default file may come later (the service creates it); a file named with --from must be there.
    if (!exists && options.from !== undefined) throw initError('PCO601', `Cannot read the sqlite source: ${options.from} does not exist.`);
    const model = exists ? await introspect({ type, name: 'db', config: { database } }, platformDir) : null;
    const tables = model?.kind === 'sql' ? model.schema.tables.map((table) => table.name) : [];
    return { type, name: 'db', label: 'Database', config: { database }, found: tables, environment: [] };
  }
  const url = new URL(from);
  const name = serviceName(decodeURIComponent(url.pathname.slice(1)), 'database');
  const model = await introspect({ type, name, config: { url: from } }, platformDir);
  const tables = model.kind === 'sql' ? model.schema.tables.map((table) => table.name) : [];
  // The URL may hold a password: the file refers to it, never copies it.
  const variable = `${name.toUpperCase()}_DATABASE_URL`;
  return {
    type,
    name,
    label: name,
    config: { url: `\${env:${variable}}` },
    found: tables,
    environment: [{ name: variable, holds: `the ${type === 'pgsql' ? 'postgres' : 'mysql'}:// URL of the database` }],
  };
}

async function introspect(
  service: { type: string; name: string; config: Record<string, unknown> },
  baseDir: string,
): Promise<ServiceModel> {
  const { getServiceKind } = await import('../../runtime/services/registry.js');
  const kind = getServiceKind(service.type);
  const model: ServiceModel = {
    id: 8,
    label: service.name,
    description: '',
    is_active: true,
    origin: 'platform',
    kind: 'plain',
    ...service,
  };
  try {
    return await kind!.introspect!(model, { baseDir, resolveEnv: (value) => value });
  } catch (error) {
    // The driver's words under a translated connection error say which (no such database, no such user, refused).
    const reason = isUserError(error) || error instanceof Error ? `${error.message}${causeText(error)}` : String(error);
    throw initError('PCO601', `Cannot read the ${service.type} source: ${reason.replace(/:\/\/[^@/]*@/g, '://***@')}`);
  }
}

/** Appends the lines .gitignore lacks; true when it added some. */
function addGitignoreLines(file: string): boolean {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const present = new Set(current.split('\n').map((line) => line.trim()));
  const missing = GITIGNORE_LINES.filter((line) => line.startsWith('#') || !present.has(line));
  if (missing.every((line) => line.startsWith('#'))) return false;
  fs.writeFileSync(file, `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`);
  return true;
}
