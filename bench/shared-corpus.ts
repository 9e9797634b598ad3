/** The Calculator WSDL of the shared corpus, beside the repository (PORTICO_SHARED_DIR overrides). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const shared = process.env.PORTICO_SHARED_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared');

export const CALCULATOR_WSDL = path.join(shared, 'wsdl-corpus', 'pm-calculator.wsdl');
