/**
 * The file-service engine (reference: service-types.md §1): one REST API over any FileStorage.
 * GET lists folders (tree, search, properties, zip) and streams files (ranges, download);
 * POST/PUT write files (raw body, multipart, URL, base64 JSON, zip extraction) and create folders;
 * DELETE removes files and folders (`force`, `content_only`, batch lists); PATCH is 501.
 * Paths named in headers and bodies are checked against the caller's grants like the URL path.
 */
import { Readable } from 'node:stream';
import { matchGrant } from '../../auth/access.js';
import { BadRequestError, ForbiddenError, NotFoundError, NotImplementedError, PorticoError } from '../../core/errors.js';
import { decodeBase64 } from '../../core/base64.js';
import { attachment } from '../../core/downloads.js';
import { wrapList } from '../../core/envelope.js';
import { pick, toBool, toList } from '../../core/query-params.js';
import type { Verb } from '../../model/platform-model.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import type { ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import { fileServiceOpenApi } from './file-openapi.js';
import {
  baseName,
  bodyPath,
  boundedPaths,
  checkName,
  join,
  PATH_TOO_LONG,
  parentOf,
  requestPath,
  shown,
  type TargetPath,
} from './file-paths.js';
import { eachUploadedFile, isMultipart } from '../multipart.js';
import { type FileStorage, type StoredEntry, TargetExists, tempName } from './file-storage.js';
import { capped, contentTypeOf, header, isZip, parseRange, readAll, readJson, tooLarge } from './file-streams.js';
import { PathLocks } from './path-locks.js';
import { raceAware } from './racing-changes.js';
import { extractZip, removeTemp, saveTemp, type TreeEntry, zipStream } from './file-zip.js';
import { decodePercent } from '../../core/percent-decoding.js';

export interface FileServiceOptions {
  name: string;
  /** Reference type label for messages ("local", "FTP", ...). */
  backend: string;
  storage: FileStorage;
  /** Largest file accepted, in bytes (413 beyond). */
  maxFileSize: number;
  /** Seconds a `url=` download may take. */
  urlTimeout: number;
}

type Query = ServiceCall['query'];
const flag = (query: Query, name: string, fallback = false) => {
  const value = pick(query, name);
  return value === undefined ? fallback : toBool(value);
};
/** A file written by a request that may yet fail: the copy of what it replaced, if anything. */
interface Overwrite {
  path: string;
  existed: boolean;
  backup: string | null;
}

const alreadyExists = (label: 'File' | 'Folder', path: string) =>
  new BadRequestError(`${label} '${shown(path, label === 'Folder')}' already exists.`);

/** A create-only operation whose target another request (maybe of another server over the storage) made first: the same 400. */
async function madeHere(path: string, label: 'File' | 'Folder', creation: Promise<void>): Promise<void> {
  try {
    await creation;
  } catch (error) {
    throw error instanceof TargetExists ? alreadyExists(label, path) : error;
  }
}

const httpDate = (date: Date | null) => (date ? date.toUTCString() : null);
/** Folders a listing, zip or access list walks at most. */
const MAX_TREE_ENTRIES = 100_000;

export class FileHandler implements ServiceHandler {
  private readonly storage: FileStorage;
  private readonly locks = new PathLocks();

  constructor(private readonly options: FileServiceOptions) {
    this.storage = raceAware(boundedPaths(options.storage, options.name));
  }

  async handle(call: ServiceCall): Promise<ServiceResult> {
    const target = requestPath(call);
    try {
      switch (call.verb) {
        case 'GET':
          return target.folder ? await this.getFolder(call, target.path) : await this.getFile(call, target.path);
        case 'POST':
        case 'PUT':
          return target.folder ? await this.postFolder(call, target.path) : await this.postFile(call, target.path);
        case 'DELETE':
          return target.folder ? await this.deleteFolderRequest(call, target.path) : await this.deleteFile(target.path, call);
        case 'PATCH': {
          const what = target.path === '' ? 'container' : target.folder ? 'folder' : 'file';
          throw new NotImplementedError(`Updating ${what} properties is not implemented for current file system.`);
        }
        default:
          throw new BadRequestError(`Invalid or unsupported verb '${call.verb}' used in request.`);
      }
    } catch (error) {
      // Within the bound, yet too long for a server whose root is long itself.
      if ((error as NodeJS.ErrnoException)?.code === 'ENAMETOOLONG') throw new BadRequestError(PATH_TOO_LONG);
      throw error;
    } finally {
      // Whatever part of the request body was not read is drained, so the connection stays usable.
      call.stream?.resume();
    }
  }

  // ---- access ---------------------------------------------------------------------------------

  /** Checks a path named in a header or body against the caller's grants, as the URL path was. */
  private allow(call: ServiceCall, verb: Verb, path: string, folder: boolean): void {
    if (call.auth.grants === null) return;
    const component = `${path}${folder && path !== '' ? '/' : ''}`.toLowerCase();
    if (!matchGrant(call.auth.grants, this.options.name.toLowerCase(), component, verb)) {
      throw new ForbiddenError(
        `Access Forbidden. ${verb} access to component '${component}' of service '${this.options.name.toLowerCase()}' is not allowed by this user's role.`,
      );
    }
  }

  // ---- reading --------------------------------------------------------------------------------

  private async requireFolder(path: string, message = (p: string) => `Folder '${p}/' does not exist in storage.`): Promise<StoredEntry> {
    const entry = await this.storage.stat(path);
    if (!entry) throw new NotFoundError(message(path));
    if (entry.type !== 'folder') throw new BadRequestError(`'${path}' is a file, not a folder: request it without a trailing slash.`);
    return entry;
  }

  /** Entries under a folder, depth first, sorted by name, paths from the root. */
  private async tree(folder: string, recursive: boolean, out: StoredEntry[] = []): Promise<StoredEntry[]> {
    const entries = (await this.storage.list(folder)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= MAX_TREE_ENTRIES) break;
      out.push(entry);
      if (recursive && entry.type === 'folder') await this.tree(entry.path, true, out);
    }
    return out;
  }

  private describe(entry: StoredEntry, relativeTo: string): Record<string, unknown> {
    const name = relativeTo === '' ? entry.path : entry.path.slice(relativeTo.length + 1);
    if (entry.type === 'folder') return { path: `${entry.path}/`, last_modified: httpDate(entry.modified), name, type: 'folder' };
    return {
      path: entry.path,
      content_type: contentTypeOf(entry.path),
      last_modified: httpDate(entry.modified),
      content_length: entry.size,
      name,
      type: 'file',
    };
  }

  private async getFolder(call: ServiceCall, path: string): Promise<ServiceResult> {
    const { query } = call;
    const folder = await this.requireFolder(path);
    if (flag(query, 'zip')) {
      const entries: TreeEntry[] = (await this.tree(path, true)).map((e) => ({ path: e.path, type: e.type }));
      const name = path === '' ? `${this.options.name}_${Math.floor(Date.now() / 1000)}.zip` : `${baseName(path)}.zip`;
      return {
        body: zipStream(this.storage, entries),
        headers: { 'content-type': 'application/zip', 'content-disposition': attachment(name), 'cache-control': 'private' },
      };
    }
    if (flag(query, 'include_properties')) {
      return { body: { name: baseName(path), path: shown(path, true), last_modified: path === '' ? null : httpDate(folder.modified) } };
    }
    const includeFolders = flag(query, 'include_folders', true);
    const includeFiles = flag(query, 'include_files', true);
    const search = pick(query, 'search')?.toLowerCase();
    let entries = (await this.tree(path, flag(query, 'full_tree')))
      .filter((e) => (e.type === 'folder' ? includeFolders : includeFiles))
      .filter((e) => search === undefined || search === '' || baseName(e.path).toLowerCase().includes(search))
      .map((e) => this.describe(e, path));
    if (flag(query, 'as_list')) {
      const idField = pick(query, 'id_field') || 'path';
      return { body: wrapList(entries.map((e) => (Object.hasOwn(e, idField) ? e[idField] : null))) };
    }
    const fields = toList(pick(query, 'fields'));
    if (fields && !fields.includes('*'))
      entries = entries.map((e) => Object.fromEntries(fields.filter((f) => f in e).map((f) => [f, e[f]])));
    return { body: wrapList(entries) };
  }

  private async getFile(call: ServiceCall, path: string): Promise<ServiceResult> {
    const { query } = call;
    const entry = await this.storage.stat(path);
    if (!entry) throw new NotFoundError(`The specified file '${path}' was not found in storage.`);
    if (entry.type === 'folder') throw new BadRequestError(`'${path}' is a folder, not a file: request it with a trailing slash.`);
    const contentType = contentTypeOf(path);
    if (flag(query, 'include_properties')) {
      const properties: Record<string, unknown> = {
        path,
        name: baseName(path),
        content_type: contentType,
        last_modified: httpDate(entry.modified),
        content_length: entry.size,
      };
      if (flag(query, 'content')) {
        const content = await readAll(await this.storage.read(path), this.options.maxFileSize);
        properties.content = flag(query, 'is_base64', true) ? content.toString('base64') : content.toString('utf8');
      }
      return { body: properties };
    }
    const headers: Record<string, string> = {
      'content-type': contentType,
      'cache-control': 'private',
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      // Inline content is served sandboxed: an uploaded page cannot script the API's origin.
      'content-security-policy': 'sandbox',
      'content-disposition': flag(query, 'download') ? attachment(baseName(path)) : 'inline',
    };
    if (entry.modified) headers['last-modified'] = entry.modified.toUTCString();
    const since = header(call.headers, 'if-modified-since');
    if (since && entry.modified && Math.floor(entry.modified.getTime() / 1000) <= Math.floor(Date.parse(since) / 1000)) {
      return { status: 304, body: '', headers };
    }
    const range = parseRange(call.headers.range, entry.size);
    if (range === null) {
      return {
        status: 416,
        body: { error: { code: 416, message: `The requested range is not satisfiable (the file has ${entry.size} bytes).` } },
        headers: { 'content-range': `bytes */${entry.size}` },
      };
    }
    if (range) {
      headers['content-range'] = `bytes ${range.start}-${range.end}/${entry.size}`;
      headers['content-length'] = String(range.end - range.start + 1);
      return { status: 206, body: await this.storage.read(path, range), headers };
    }
    headers['content-length'] = String(entry.size);
    return { body: await this.storage.read(path), headers };
  }

  // ---- writing --------------------------------------------------------------------------------

  private checkDeclaredSize(call: ServiceCall): void {
    const length = Number(header(call.headers, 'content-length'));
    if (Number.isFinite(length) && length > this.options.maxFileSize + 64 * 1024) throw tooLarge(this.options.maxFileSize);
  }

  /** Writes one file from a stream, after the checks every write shares. */
  private async writeFile(path: string, content: Readable, checkExist: boolean): Promise<{ existed: boolean }> {
    // A plain write replaces the file anyway (renamed over it); a create-only one must be alone.
    return checkExist ? this.locks.run(path, () => this.writeChecked(path, content, true)) : this.writeChecked(path, content, false);
  }

  private async writeChecked(path: string, content: Readable, checkExist: boolean): Promise<{ existed: boolean }> {
    const parent = parentOf(path);
    if (parent !== '') await this.requireFolder(parent, (p) => `Folder '${p}/' does not exist.`);
    const existing = await this.storage.stat(path);
    if (existing?.type === 'folder') throw new BadRequestError(`'${path}' is a folder: a file cannot be written in its place.`);
    if (existing && checkExist) throw alreadyExists('File', path);
    // Create-only through the storage's exclusive create as well: the lock above holds in this process only.
    await madeHere(path, 'File', this.storage.write(path, capped(content, this.options.maxFileSize), { exclusive: checkExist }));
    return { existed: existing !== null };
  }

  private fileResult(path: string): Record<string, unknown> {
    return { name: baseName(path), path, type: 'file' };
  }

  private async extractInto(call: ServiceCall, folder: string, content: Readable): Promise<ServiceResult> {
    const zipFile = await saveTemp(content, this.options.maxFileSize);
    try {
      await extractZip(this.storage, zipFile, folder, this.options.maxFileSize, async () => {
        if (!flag(call.query, 'clean')) return;
        for (const entry of await this.storage.list(folder)) {
          await (entry.type === 'folder' ? this.storage.removeFolder(entry.path, true) : this.storage.removeFile(entry.path));
        }
      });
    } finally {
      await removeTemp(zipFile);
    }
    return { status: 201, body: { name: baseName(folder), path: shown(folder, true), type: 'folder' } };
  }

  private async postFolder(call: ServiceCall, folder: string): Promise<ServiceResult> {
    const { query, headers } = call;
    const checkExist = flag(query, 'check_exist');
    const body = call.stream ?? Readable.from([]);
    const fileName = header(headers, 'x-file-name');
    if (fileName !== undefined) {
      const name = checkName(fileName, 'X-File-Name');
      const path = join(folder, name);
      this.allow(call, call.verb, path, false);
      this.checkDeclaredSize(call);
      await this.requireFolder(folder, (p) => `Folder '${p}/' does not exist.`);
      if (flag(query, 'extract') && isZip(header(headers, 'content-type'), name)) return this.extractInto(call, folder, body);
      await this.writeFile(path, body, checkExist);
      return { status: 201, body: this.fileResult(path) };
    }
    const folderName = header(headers, 'x-folder-name');
    if (folderName !== undefined) {
      const path = join(folder, checkName(folderName, 'X-Folder-Name'));
      this.allow(call, call.verb, path, true);
      await this.requireFolder(folder, (p) => `Folder '${p}/' does not exist.`);
      await this.createFolder(path);
      return { status: 201, body: { name: baseName(path), path } };
    }
    const url = pick(query, 'url');
    if (url !== undefined) return this.fromUrl(call, folder, url, pick(query, 'filename'), checkExist);
    const contentType = header(headers, 'content-type');
    if (isMultipart(contentType)) return this.multipartInto(call, folder, checkExist);
    if (/json/i.test(contentType ?? '') && call.stream) {
      const json = await readJson(call.stream);
      // `null` is JSON too: reading `.resource` of it was a 500.
      if (json !== undefined && json !== null) {
        const records = Array.isArray(json) ? json : (json as { resource?: unknown }).resource;
        if (Array.isArray(records)) return this.resourceList(call, folder, records);
        const urlField = (json as Record<string, unknown>).url;
        if (typeof urlField === 'string')
          return this.fromUrl(call, folder, urlField, (json as Record<string, unknown>).filename as string | undefined, checkExist);
      }
    }
    if (folder === '') throw new BadRequestError('Invalid empty path.');
    await this.createFolder(folder);
    return { status: 201, body: { name: baseName(folder), path: shown(folder, true) } };
  }

  private async createFolder(path: string): Promise<void> {
    await this.locks.run(path, () => this.createFolderAlone(path));
  }

  private async createFolderAlone(path: string): Promise<void> {
    const existing = await this.storage.stat(path);
    if (existing?.type === 'folder') throw alreadyExists('Folder', path);
    if (existing) throw new BadRequestError(`'${path}' is a file: a folder cannot be created in its place.`);
    // Missing folders above are made too; the first one that exists must be a folder (a file there
    // was a 500 on local storage, ENOTDIR, and a 502 on the remote ones).
    for (let above = parentOf(path); above !== ''; above = parentOf(above)) {
      const found = await this.storage.stat(above);
      if (found?.type === 'file') throw new BadRequestError(`'${above}' is a file: a folder cannot be created below it.`);
      if (found) break;
    }
    await madeHere(path, 'Folder', this.storage.mkdir(path, { exclusive: true }));
  }

  private async fromUrl(
    call: ServiceCall,
    folder: string,
    url: string,
    fileName: string | undefined,
    checkExist: boolean,
  ): Promise<ServiceResult> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new BadRequestError(`Invalid URL entered: '${url}'.`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new BadRequestError('Invalid URL entered: only http and https URLs can be imported.');
    const last = baseName(parsed.pathname);
    // Malformed percent-encoding (`a%zz.txt`): the name stays as written; it was a 500 (URIError).
    const name = checkName(fileName ?? decodePercent(last) ?? last, 'filename');
    const path = join(folder, name);
    this.allow(call, call.verb, path, false);
    await this.requireFolder(folder, (p) => `Folder '${p}/' does not exist.`);
    let response: Response;
    try {
      response = await fetch(parsed, { redirect: 'follow', signal: AbortSignal.timeout(this.options.urlTimeout * 1000) });
    } catch {
      throw new NotFoundError('Invalid URL entered. File not found.');
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new NotFoundError('Invalid URL entered. File not found.');
    }
    const length = Number(response.headers.get('content-length'));
    if (Number.isFinite(length) && length > this.options.maxFileSize) {
      await response.body.cancel();
      throw tooLarge(this.options.maxFileSize);
    }
    const content = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
    if (flag(call.query, 'extract') && isZip(response.headers.get('content-type') ?? undefined, name))
      return this.extractInto(call, folder, content);
    await this.writeFile(path, content, checkExist);
    return { status: 201, body: this.fileResult(path) };
  }

  private async multipartInto(call: ServiceCall, folder: string, checkExist: boolean): Promise<ServiceResult> {
    await this.requireFolder(folder, (p) => `Folder '${p}/' does not exist.`);
    const written: Overwrite[] = [];
    let extracted: ServiceResult | null = null;
    try {
      await eachUploadedFile(call.stream ?? Readable.from([]), call.headers, async (part) => {
        const name = checkName(part.filename, 'file name');
        const path = join(folder, name);
        this.allow(call, call.verb, path, false);
        if (flag(call.query, 'extract') && isZip(part.mimeType, name)) {
          extracted = await this.extractInto(call, folder, part.stream);
          return;
        }
        written.push(await this.overwrite(path, part.stream, checkExist));
      });
    } catch (error) {
      // A failed request leaves no file it created behind, and the files it replaced as they were.
      for (const file of written.reverse()) await this.undo(file);
      throw error;
    }
    await this.keep(written);
    if (extracted && written.length === 0) return extracted;
    if (written.length === 0 && !extracted) throw new BadRequestError(`No file uploaded to folder '${shown(folder, true)}'.`);
    return { status: 201, body: wrapList(written.map((file) => this.fileResult(file.path))) };
  }

  /**
   * Writes a file of a request that may still fail after it (more parts to come), keeping a copy of
   * what it replaces under a temporary name: the second part of a form failing (a bad name, 413)
   * left the first part's file replaced although the request was refused.
   */
  private async overwrite(path: string, content: Readable, checkExist: boolean): Promise<Overwrite> {
    const before = checkExist ? null : await this.storage.stat(path);
    const backup = before?.type === 'file' ? tempName(path) : null;
    if (backup !== null) await this.storage.copyFile(path, backup);
    try {
      const { existed } = await this.writeFile(path, content, checkExist);
      return { path, existed, backup };
    } catch (error) {
      if (backup !== null) await this.storage.removeFile(backup).catch(() => undefined);
      throw error;
    }
  }

  /** Puts back what an overwrite replaced, or removes the file it created. */
  private async undo(file: Overwrite): Promise<void> {
    try {
      if (file.backup !== null) {
        await this.storage.write(file.path, await this.storage.read(file.backup));
        await this.storage.removeFile(file.backup);
      } else if (!file.existed) await this.storage.removeFile(file.path);
    } catch {
      // Best effort: the request's own error is what the caller hears about.
    }
  }

  /** The request succeeded: the copies of what it replaced go. */
  private async keep(files: Overwrite[]): Promise<void> {
    for (const file of files) if (file.backup !== null) await this.storage.removeFile(file.backup).catch(() => undefined);
  }

  private async postFile(call: ServiceCall, path: string): Promise<ServiceResult> {
    const checkExist = flag(call.query, 'check_exist');
    this.checkDeclaredSize(call);
    if (isMultipart(header(call.headers, 'content-type'))) {
      let count = 0;
      let written: Overwrite | null = null;
      try {
        await eachUploadedFile(call.stream ?? Readable.from([]), call.headers, async (part) => {
          count += 1;
          if (count > 1) throw new BadRequestError(`Multiple files uploaded to a single REST resource '${path}'.`);
          written = await this.overwrite(path, part.stream, checkExist);
        });
      } catch (error) {
        if (written) await this.undo(written);
        throw error;
      }
      if (written) await this.keep([written]);
      if (count === 0) throw new BadRequestError(`No file uploaded to REST resource '${path}'.`);
    } else {
      await this.writeFile(path, call.stream ?? Readable.from([]), checkExist);
    }
    return { status: 201, body: this.fileResult(path) };
  }

  /** POST of `{"resource":[…]}` items into a folder: folders, files with content, copies and moves. */
  private async resourceList(call: ServiceCall, folder: string, items: unknown[]): Promise<ServiceResult> {
    await this.requireFolder(folder, (p) => `Folder '${p}/' does not exist.`);
    const out: Array<Record<string, unknown>> = [];
    for (const item of items) {
      if (item === null || typeof item !== 'object' || Array.isArray(item))
        throw new BadRequestError('Each resource item must be an object.');
      const record = item as Record<string, unknown>;
      const type = record.type === 'folder' ? 'folder' : 'file';
      let result: Record<string, unknown> = { name: record.name ?? null, type };
      try {
        if (record.source_path !== undefined) result = await this.copyItem(call, folder, record, type);
        else {
          const name = checkName(record.name, 'name');
          const path = join(folder, name);
          this.allow(call, call.verb, path, type === 'folder');
          if (type === 'folder') {
            await this.createFolder(path);
            result = { name, path: `${path}/`, type };
          } else {
            if (record.content === undefined || record.content === null) continue;
            if (typeof record.content !== 'string') throw new BadRequestError(`The content of '${name}' must be a string.`);
            const base64 = record.is_base64 === true || record.is_base64 === 'true' || record.is_base64 === 1;
            const bytes = base64 ? decodeBase64(record.content) : Buffer.from(record.content, 'utf8');
            if (bytes === null) throw new BadRequestError(`The content of '${name}' is not valid base64.`);
            await this.writeFile(path, Readable.from([bytes]), flag(call.query, 'check_exist') || record.check_exist === true);
            result = this.fileResult(path);
          }
        }
      } catch (error) {
        if (!(error instanceof PorticoError) || error.status >= 500 || error.status === 403) throw error;
        result.error = { message: error.message, code: error.status };
      }
      out.push(result);
    }
    return { status: 201, body: wrapList(out) };
  }

  private async copyItem(
    call: ServiceCall,
    folder: string,
    record: Record<string, unknown>,
    type: 'file' | 'folder',
  ): Promise<Record<string, unknown>> {
    const source = bodyPath(record.source_path, 'source_path');
    if (source.path === '') throw new BadRequestError('Invalid source_path: the service root cannot be copied.');
    const name =
      record.name === undefined || record.name === null || record.name === '' ? baseName(source.path) : checkName(record.name, 'name');
    const target = join(folder, name);
    const move = record.delete_source === true || record.delete_source === 'true';
    this.allow(call, 'GET', source.path, type === 'folder');
    if (move) this.allow(call, 'DELETE', source.path, type === 'folder');
    this.allow(call, call.verb, target, type === 'folder');
    const found = await this.storage.stat(source.path);
    const label = type === 'folder' ? 'Folder' : 'File';
    if (!found || found.type !== type) throw new NotFoundError(`${label} '${shown(source.path, type === 'folder')}' does not exist.`);
    if (type === 'folder' && (target === source.path || target.startsWith(`${source.path}/`)))
      throw new BadRequestError('A folder cannot be copied into itself.');
    // Looked for, then written: alone on the target, as create-only writes are (two copies at once both found nothing).
    await this.locks.run(target, async () => {
      if (await this.storage.stat(target)) throw alreadyExists(label, target);
      if (type === 'file') await madeHere(target, label, this.storage.copyFile(source.path, target, { exclusive: true }));
      else {
        await madeHere(target, label, this.storage.mkdir(target, { exclusive: true }));
        for (const entry of await this.tree(source.path, true)) {
          const to = `${target}${entry.path.slice(source.path.length)}`;
          if (entry.type === 'folder') await this.storage.mkdir(to);
          else await this.storage.copyFile(entry.path, to);
        }
      }
    });
    if (move) await (type === 'folder' ? this.storage.removeFolder(source.path, true) : this.storage.removeFile(source.path));
    return { name, path: shown(target, type === 'folder'), type };
  }

  // ---- deleting -------------------------------------------------------------------------------

  private async deleteFile(path: string, call: ServiceCall): Promise<ServiceResult> {
    const entry = await this.storage.stat(path);
    if (!entry) {
      if (flag(call.query, 'no_check')) return { body: { name: baseName(path), path } };
      throw new NotFoundError(`File '${path}' was not found.`);
    }
    if (entry.type === 'folder') throw new BadRequestError(`'${path}' is a folder, not a file: delete it with a trailing slash.`);
    await this.storage.removeFile(path);
    return { body: { name: baseName(path), path } };
  }

  private async deleteFolder(path: string, force: boolean, contentOnly: boolean): Promise<void> {
    if (path === '' && !contentOnly) throw new BadRequestError('The service root cannot be deleted.');
    await this.requireFolder(path, (p) => `Folder '${p}/' does not exist.`);
    const children = await this.storage.list(path);
    if (children.length > 0 && !force) throw new BadRequestError('Directory not empty, can not delete without force option.');
    if (contentOnly) {
      for (const child of children)
        await (child.type === 'folder' ? this.storage.removeFolder(child.path, true) : this.storage.removeFile(child.path));
    } else await this.storage.removeFolder(path, force);
  }

  private async deleteFolderRequest(call: ServiceCall, folder: string): Promise<ServiceResult> {
    const json = /json/i.test(header(call.headers, 'content-type') ?? '') ? await readJson(call.stream) : undefined;
    const records = Array.isArray(json) ? json : (json as { resource?: unknown } | undefined)?.resource;
    const force = flag(call.query, 'force');
    if (Array.isArray(records)) return this.deleteList(call, folder, records, force);
    if (folder === '') throw new BadRequestError('No resources given for delete.');
    await this.deleteFolder(folder, force, flag(call.query, 'content_only'));
    return { body: { name: baseName(folder), path: `${folder}/` } };
  }

  private async deleteList(call: ServiceCall, folder: string, items: unknown[], force: boolean): Promise<ServiceResult> {
    const targets = items.map((item) => {
      if (item === null || typeof item !== 'object') throw new BadRequestError('Each resource item must be an object.');
      const record = item as Record<string, unknown>;
      if (record.path === undefined && record.name === undefined) throw new BadRequestError('No path or name provided for resource.');
      const given =
        record.path !== undefined && record.path !== null
          ? bodyPath(record.path, 'path')
          : bodyPath(join(folder, checkName(record.name, 'name')), 'name');
      const type = record.type === 'folder' || (record.type === undefined && given.folder) ? 'folder' : 'file';
      this.allow(call, 'DELETE', given.path, type === 'folder');
      return { record, target: { path: given.path, folder: type === 'folder' } as TargetPath };
    });
    const out: Array<Record<string, unknown>> = [];
    for (const { record, target } of targets) {
      const result: Record<string, unknown> = {
        name: record.name ?? baseName(target.path),
        path: record.path ?? null,
        type: target.folder ? 'folder' : 'file',
      };
      try {
        if (target.folder) await this.deleteFolder(target.path, force, false);
        else await this.deleteFile(target.path, call);
      } catch (error) {
        if (!(error instanceof PorticoError) || error.status >= 500) throw error;
        result.error = { message: error.message, code: error.status };
      }
      out.push(result);
    }
    return { body: wrapList(out) };
  }

  /** A whole file (at most `maxBytes`) for another service: email attachments. */
  async readFile(given: string, maxBytes: number): Promise<{ filename: string; content: Buffer; contentType: string }> {
    const { path } = bodyPath(given, 'path');
    const entry = await this.storage.stat(path);
    if (entry?.type !== 'file') throw new NotFoundError(`The specified file '${path}' was not found in storage.`);
    if (entry.size > maxBytes) throw tooLarge(maxBytes);
    return { filename: baseName(path), content: await readAll(await this.storage.read(path), maxBytes), contentType: contentTypeOf(path) };
  }

  // ---- the rest -------------------------------------------------------------------------------

  /** Role components (reference 1.12): every folder of the tree and its `/*`. */
  async accessComponents(): Promise<string[]> {
    const folders = (await this.tree('', true)).filter((e) => e.type === 'folder');
    return folders.flatMap((f) => [`${f.path}/`, `${f.path}/*`]);
  }

  openapi(): OpenApiFragment {
    return fileServiceOpenApi(this.options.name);
  }

  async close(): Promise<void> {
    await this.storage.close();
  }
}
