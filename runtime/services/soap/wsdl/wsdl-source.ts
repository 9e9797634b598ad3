/**
 * Where a SOAP service's WSDL lives: an http(s) URL, or a file of the platform. A bare file name
 * is looked up in the platform's `wsdl/` directory first, then beside platform.yaml; a relative
 * path resolves against the platform directory. Services created through the API may only name
 * a URL or a bare file name of the `wsdl/` directory, never a path of the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Origin } from '../../../model/platform-model.js';
import { soapMessages } from '../soap-messages.js';

/** The platform's directory of WSDL files, relative to the platform directory. */
export const WSDL_DIRECTORY = 'wsdl';

/** A WSDL location: an http(s) URL or an absolute file path. */
export type WsdlLocation = { kind: 'url'; url: string } | { kind: 'file'; path: string };

function isBareName(declared: string): boolean {
  return !/[\\/]/.test(declared) && declared !== '.' && declared !== '..';
}

/**
 * Checks the form of `config.wsdl` (an http(s) URL, or a file name; only a bare one for services
 * created through the API) without reading anything: a service saved through the API with
 * another is refused at once. Returns the URL, or null for a file name.
 */
export function checkWsdlForm(declared: unknown, origin: Origin): string | null {
  if (typeof declared !== 'string' || declared.trim() === '') {
    throw soapMessages.wsdlMissing.error();
  }
  const text = declared.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).href;
    } catch {
      throw soapMessages.wsdlBadUrl.error(text);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) {
    throw soapMessages.wsdlNotUrlOrFile.error(text);
  }
  if (origin === 'api' && !isBareName(text)) {
    throw soapMessages.wsdlNotBareName.error(WSDL_DIRECTORY, text);
  }
  return null;
}

/** Resolves `config.wsdl`; an unusable value or a missing file is a PorticoError naming what was tried. */
export function resolveWsdlLocation(declared: unknown, baseDir: string, origin: Origin): WsdlLocation {
  const url = checkWsdlForm(declared, origin);
  if (url !== null) return { kind: 'url', url };
  const text = (declared as string).trim();
  const candidates = isBareName(text) ? [path.join(WSDL_DIRECTORY, text), ...(origin === 'api' ? [] : [text])] : [text];
  for (const candidate of candidates) {
    const file = path.resolve(baseDir, candidate);
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return { kind: 'file', path: file };
  }
  const tried = candidates.map((candidate) => candidate.split(path.sep).join('/')).join(' and ');
  throw soapMessages.wsdlFileNotFound.error(text, tried);
}
