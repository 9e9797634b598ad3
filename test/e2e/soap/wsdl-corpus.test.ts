/**
 * The WSDL corpus (/work/shared/wsdl-corpus): every WSDL that node-soap loads (BASELINE.tsv) must
 * introspect, give an OpenAPI document that validates, and TypeScript that compiles (all files
 * checked by one tsc run, in a temporary folder inside the repository). WSDL 2.0 documents get a
 * clear diagnostic. The test prints the count.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSoapTypesFile } from '#generator/emit/soap/create-soap-types-file.js';
import type { ServiceModel, SoapServiceModel } from '#runtime/model/platform-model.js';
import { canonicalJson } from '#runtime/openapi/canonical-json.js';
import { serviceDocument } from '#runtime/openapi/service-document.js';
import { soapServiceOpenApi } from '#runtime/openapi/soap-openapi.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { openApiErrors, unresolvedRefs } from '#test/golden/validators.js';
import { WSDL_CORPUS_DIR } from '#test/helpers/shared-dir.js';
import { typecheckProject } from '#test/helpers/typecheck.js';

const corpus = WSDL_CORPUS_DIR;
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const folder = path.join(repo, `.tmp-soap-${randomBytes(6).toString('hex')}`);

interface BaselineRow {
  file: string;
  loads: boolean;
}

const baseline: BaselineRow[] = fs
  .readFileSync(path.join(corpus, 'BASELINE.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t'))
  .map((cells) => ({ file: cells[0], loads: cells[3] === 'ok' }));

const ctx = { baseDir: corpus, resolveEnv: <T>(value: T) => value };

function service(file: string): ServiceModel {
  return {
    id: 8,
    name: 'corpus',
    label: file,
    type: 'soap',
    description: '',
    is_active: true,
    config: { wsdl: file },
    origin: 'platform',
    kind: 'plain',
  };
}

afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

describe('WSDL corpus', () => {
  it('introspects every WSDL node-soap loads, with valid OpenAPI and TypeScript that compiles', { timeout: 240_000 }, async () => {
    const loadable = baseline.filter((row) => row.loads);
    fs.mkdirSync(folder, { recursive: true });
    const failures: string[] = [];
    let operations = 0;
    for (const [index, { file }] of loadable.entries()) {
      try {
        const model = (await soapKind.introspect!(service(file), ctx)) as SoapServiceModel;
        operations += model.operations.length;
        const document = serviceDocument(model, soapServiceOpenApi(model));
        const errors = await openApiErrors(document);
        if (errors !== null) failures.push(`${file}: OpenAPI: ${JSON.stringify(errors).slice(0, 400)}`);
        const missing = unresolvedRefs(document);
        if (missing.length > 0) failures.push(`${file}: unresolved $refs ${missing.slice(0, 3).join(', ')}`);
        fs.writeFileSync(path.join(folder, `wsdl${index}.ts`), `// ${file}\n${createSoapTypesFile(model)}`);
      } catch (error) {
        failures.push(`${file}: ${(error as Error).message}`);
      }
    }
    fs.writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['*.ts'] }));
    const tsc = await typecheckProject(path.join(folder, 'tsconfig.json'));
    if (tsc.exitCode !== 0) failures.push(`tsc: ${(tsc.stdout + tsc.stderr).slice(0, 2000)}`);
    const passed = loadable.length - new Set(failures.map((failure) => failure.split(':')[0])).size;
    console.log(`WSDL corpus: ${passed} of ${loadable.length} WSDLs that node-soap loads pass (${operations} operations).`);
    expect(failures).toEqual([]);
    expect(passed).toBe(75);
  });

  it.each(baseline.filter((row) => row.file.includes('wsdl20')).map((row) => row.file))(
    'refuses the WSDL 2.0 document %s clearly',
    async (file) => {
      await expect(soapKind.introspect!(service(file), ctx)).rejects.toThrow(`'${file}' is a WSDL 2.0 document; Portico reads WSDL 1.1`);
    },
  );

  it('builds the same model twice', async () => {
    const once = await soapKind.introspect!(service('w2p-ews/services.wsdl'), ctx);
    const twice = await soapKind.introspect!(service('w2p-ews/services.wsdl'), ctx);
    expect(canonicalJson(twice)).toBe(canonicalJson(once));
  });
});
