/**
 * The committed quickstart server must be exactly what the generator makes of
 * examples/quickstart/platform.yaml and its seeded database (as `gen check` reports it).
 */
import { expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { captureIo } from '#test/cli/cli-fixtures.js';
import { repoRoot } from '#test/helpers/quickstart-copy.js';

it('examples/quickstart/server has not drifted from its platform.yaml', async () => {
  const { io, out } = captureIo(repoRoot);
  const code = await runCli(['check', 'examples/quickstart/platform.yaml'], io);
  expect(out.stdout + out.stderr, 'run `npx gen build examples/quickstart/platform.yaml` and commit the result').not.toMatch(
    /drift|differ/i,
  );
  expect(code).toBe(0);
});
