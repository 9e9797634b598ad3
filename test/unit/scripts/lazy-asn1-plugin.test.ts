/**
 * The runtime bundle's stand-in for asn1.js in fast-jwt (scripts/lazy-asn1-plugin.mjs): fast-jwt
 * no longer runs asn1.js and bn.js as it loads, and still reads PEM keys (EC in SEC1 and PKCS#8,
 * RSA) when it is given one.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-lazy-asn1-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Jwt = Pick<typeof import('fast-jwt'), 'createSigner' | 'createVerifier'>;

/** fast-jwt bundled as the runtime bundle is, and its bundled text. */
async function bundledFastJwt(): Promise<{ jwt: Jwt; text: string }> {
  const { lazyAsn1ForFastJwt } = (await import(pathToFileURL(path.join(repoRoot, 'scripts/lazy-asn1-plugin.mjs')).href)) as {
    lazyAsn1ForFastJwt: (root: string) => esbuild.Plugin;
  };
  const outfile = path.join(dir, 'fast-jwt.mjs');
  await esbuild.build({
    stdin: { contents: "export { createSigner, createVerifier } from 'fast-jwt';", resolveDir: repoRoot },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    plugins: [lazyAsn1ForFastJwt(repoRoot)],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'silent',
  });
  return { jwt: (await import(pathToFileURL(outfile).href)) as Jwt, text: fs.readFileSync(outfile, 'utf8') };
}

describe('fast-jwt with the asn1.js stand-in', () => {
  it('defines its key models through the stand-in, and still signs and verifies with PEM keys', async () => {
    const { jwt, text } = await bundledFastJwt();
    expect(text).toContain('lazy-asn1:asn1.js');
    const keys: Array<[crypto.KeyObject, crypto.KeyObject, string, 'sec1' | 'pkcs8']> = [];
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    keys.push([ec.privateKey, ec.publicKey, 'ES256', 'sec1'], [ec.privateKey, ec.publicKey, 'ES256', 'pkcs8']);
    keys.push([rsa.privateKey, rsa.publicKey, 'RS256', 'pkcs8']);
    for (const [privateKey, publicKey, algorithm, type] of keys) {
      // No algorithm given: fast-jwt reads it from the key (asn1.js decodes the PEM).
      const token = jwt.createSigner({ key: privateKey.export({ type, format: 'pem' }) as string })({ sub: 'a' });
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg).toBe(algorithm);
      const verify = jwt.createVerifier({ key: publicKey.export({ type: 'spki', format: 'pem' }) as string });
      expect(verify(token).sub).toBe('a');
    }
  });
});
