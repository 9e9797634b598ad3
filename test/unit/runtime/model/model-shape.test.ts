/** The shape check of model.json at start: every model the generator wrote passes; a hand-edited one is refused with where it is wrong. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelShapeProblem } from '#runtime/model/model-shape.js';
import { findServiceType } from '#runtime/system/internal-service-types.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const known = (type: string) => findServiceType(type) !== undefined;
const generated = [
  'examples/quickstart/server/model.json',
  ...fs.readdirSync(path.join(repoRoot, 'test/golden/scenarios')).map((name) => `test/golden/scenarios/${name}/server/model.json`),
].filter((file) => fs.existsSync(path.join(repoRoot, file)));

describe('modelShapeProblem', () => {
  it.each(generated)('passes %s, as the generator wrote it', (file) => {
    expect(modelShapeProblem(JSON.parse(fs.readFileSync(path.join(repoRoot, file), 'utf8')), known)).toBeNull();
  });

  it('passes the fixtures of the tests', () => {
    expect(modelShapeProblem(JSON.parse(JSON.stringify(minimalModel())), known)).toBeNull();
  });

  it.each<[string, (model: any) => void, string]>([
    ['not an object', (m) => Object.assign(m, { settings: [] }), 'settings must be an object, not an array'],
    ['a service without a name', (m) => delete m.services[0].name, 'services[0].name is missing'],
    [
      'an app whose is_active is text',
      (m) => m.apps.push({ name: 'web', label: 'Web', description: '', is_active: 'yes', apiKey: null, role: null, origin: 'platform' }),
      'apps[0].is_active must be true or false, not string "yes"',
    ],
    [
      'a grant with an unknown verb',
      (m) =>
        m.roles.push({
          name: 'r',
          is_active: true,
          grants: [{ service: '*', component: '*', verbs: ['FETCH'], requestor: [], filters: [], filterOp: 'and' }],
        }),
      'roles[0].grants[0].verbs[0] is string "FETCH", not one of GET, POST, PUT, PATCH, DELETE',
    ],
    ['limits not an array', (m) => (m.limits = 'none'), 'limits must be an array, not string "none"'],
    [
      'a system database of another kind',
      (m) => (m.settings.systemDatabase = { type: 'oracle', url: 'x' }),
      'settings.systemDatabase.type is string "oracle", not one of sqlite, pgsql, mysql',
    ],
  ])('refuses %s', (_label, edit, problem) => {
    const model = JSON.parse(JSON.stringify(minimalModel()));
    edit(model);
    expect(modelShapeProblem(model, known)).toBe(problem);
  });

  it('refuses what is not an object at all', () => {
    expect(modelShapeProblem([], known)).toBe('the model must be an object, not an array');
    expect(modelShapeProblem(null, known)).toBe('the model must be an object, not null');
  });
});
