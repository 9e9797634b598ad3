/**
 * The project's shared folder (spec, WSDL corpus, fixtures) sits beside the repository; CI clones
 * the repository with it alongside. PORTICO_SHARED_DIR overrides the location.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const SHARED_DIR = process.env.PORTICO_SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared');
export const WSDL_CORPUS_DIR = path.join(SHARED_DIR, 'wsdl-corpus');
/** The address-book fixture; the quickstart ships the same two files as its seed. */
export const ADDRESS_BOOK_DIR = path.join(repoRoot, 'examples', 'quickstart', 'seed');
