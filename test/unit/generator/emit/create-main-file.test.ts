import { describe, expect, it } from 'vitest';
import { createMainFile } from '../../../../generator/emit/create-main-file.js';
import { plain, platform, sqlService } from '../../../golden/fixtures/model-builders.js';

describe('createMainFile', () => {
  it.each([
    ['..', '"../"'],
    ['../', '"../"'],
    ['.', '"./"'],
    ['../../site', '"../../site/"'],
  ])('resolves the platform directory %s as %s', (dir, url) => {
    expect(createMainFile(platform('p', []), dir)).toContain(`baseUrl: new URL(${url}, import.meta.url),`);
  });

  it('imports the routes of each database service under a unique name', () => {
    const text = createMainFile(
      platform('p', [plain(1, 'system', 'System', 'system', ''), sqlService(2, 'run_server', 'sqlite', []), sqlService(3, 'run-server', 'sqlite', [])]),
      '..',
    );
    expect(text).toContain('import { routes as runServerRoutes } from "./services/run_server/routes.js";');
    expect(text).toContain('import { routes as runServerRoutes2 } from "./services/run-server/routes.js";');
    expect(text).toContain('routes: [runServerRoutes, runServerRoutes2],');
  });

  it('passes an empty route list when there is no database', () => {
    expect(createMainFile(platform('p', [plain(1, 'system', 'System', 'system', '')]), '..')).toContain('routes: [],');
  });
});
