/**
 * Each server counts the requests it takes (app.requestsTaken, create-server.ts), which its idle
 * memory return watches (runtime/http/idle-memory.ts); apart from idle-memory.test.ts, whose heap
 * measurements two servers' start-up would spoil.
 */
import { describe, expect, it } from 'vitest';
import { RequestWatch } from '#runtime/http/idle-memory.js';
import { minimalModel, startTestServer } from '#test/helpers/platform-fixtures.js';

describe('RequestWatch of a server', () => {
  it("watches one server's requests: another server in the same process taking requests leaves it idle (they shared one count)", async () => {
    const [serving, idle] = [await startTestServer(minimalModel()), await startTestServer(minimalModel())];
    try {
      const watches = [new RequestWatch(serving.app.requestsTaken), new RequestWatch(idle.app.requestsTaken)];
      expect((await serving.app.inject({ method: 'GET', url: '/api/v2' })).statusCode).not.toBe(500);
      expect(watches.map((watch) => watch.busy())).toEqual([true, false]);
    } finally {
      await serving.close();
      await idle.close();
    }
  });
});
