/**
 * When an idle server collects to give memory back (runtime/http/idle-memory.ts): once it has been
 * idle for IDLE_MS, never in the short gaps of traffic that comes in bursts, and again once V8's 5 s
 * allocation window has passed where the first was not enough; that only requests make a second
 * busy; and that its collection gives the young generation back at once.
 */
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collector, growYoungGenerationAtOnce, IDLE_MS, IdleSchedule, RequestWatch, SETTLE_MS } from '#runtime/http/idle-memory.js';

/** Feeds one-second checks (`true`: busy) and returns the steps taken, with their times. */
function run(schedule: IdleSchedule, checks: boolean[], start = 0): string[] {
  return checks.flatMap((busy, i) => {
    const step = schedule.step(busy, start + (i + 1) * 1_000);
    return step === null ? [] : [`${step}@${i + 1}`];
  });
}

const idle = (seconds: number) => Array<boolean>(seconds).fill(false);
const IDLE_S = IDLE_MS / 1_000;

describe('IdleSchedule', () => {
  it('collects once the server has been idle for IDLE_MS after a load, not at the first idle second', () => {
    const schedule = new IdleSchedule();
    expect(run(schedule, [true, true, true, ...idle(IDLE_S)])).toEqual([`first@${3 + IDLE_S}`]);
  });

  it('never collects while bursts come seconds apart, as two servers alternating 5 s runs leave them (the bench)', () => {
    const schedule = new IdleSchedule();
    // 5 s of work, then up to 11 s idle (the other server's two runs), over and over.
    const checks = Array.from({ length: 6 }, (_, i) => [...Array<boolean>(5).fill(true), ...idle(i % 2 === 0 ? 5 : 11)]).flat();
    expect(run(schedule, checks)).toEqual([]);
    expect(IDLE_MS).toBeGreaterThan(11_000);
  });

  it('comes before the bench reads the resident set, 15 s after a load', () => {
    const schedule = new IdleSchedule();
    const steps = run(schedule, [true, ...idle(15)]);
    expect(steps).toHaveLength(1);
    expect(Number(steps[0].split('@')[1]) - 1).toBeLessThanOrEqual(14);
  });

  it('collects a second time once idle for longer than V8 measures allocation over (the gc() fallback)', () => {
    const schedule = new IdleSchedule();
    const steps = run(schedule, [true, ...idle(IDLE_S + 10)]);
    expect(steps).toEqual([`first@${1 + IDLE_S}`, `last@${1 + IDLE_S + Math.ceil(SETTLE_MS / 1_000)}`]);
    expect(SETTLE_MS).toBeGreaterThan(5_000);
  });

  it('collects nothing more once the memory is back, until the next load', () => {
    const schedule = new IdleSchedule();
    expect(run(schedule, [true, ...idle(IDLE_S)])).toEqual([`first@${1 + IDLE_S}`]);
    schedule.returned();
    expect(run(schedule, idle(30), 100_000)).toEqual([]);
    expect(run(schedule, [true, ...idle(IDLE_S)], 200_000)).toEqual([`first@${1 + IDLE_S}`]);
  });

  it('starts over when work comes back before the idle time is up', () => {
    const schedule = new IdleSchedule();
    const checks = [true, ...idle(IDLE_S - 1), true, ...idle(IDLE_S)];
    expect(run(schedule, checks)).toEqual([`first@${checks.length}`]);
  });

  it('collects once after start-up, which leaves garbage too', () => {
    expect(run(new IdleSchedule(), idle(IDLE_S))).toEqual([`first@${IDLE_S}`]);
  });
});

describe('RequestWatch', () => {
  /** Keeps the event loop working for `ms`, as housekeeping does after a load. */
  const work = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it('counts a second in which the event loop worked but no request came as idle (a pool closing its idle connections)', () => {
    const watch = new RequestWatch({ count: 0 });
    // A PostgreSQL pool closing its connections 10 s after a load took 20 ms of a loaded machine's
    // event loop: above the 2 % that used to count as busy, and the collection came 12 s later.
    work(60);
    expect(watch.busy()).toBe(false);
  });

  it('counts a second in which a request came as busy, and only that one', () => {
    const taken = { count: 0 };
    const watch = new RequestWatch(taken);
    taken.count++;
    expect(watch.busy()).toBe(true);
    expect(watch.busy()).toBe(false);
  });
});

/** The young generation's committed size, in bytes. */
const youngGeneration = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

describe('the idle collection', () => {
  it('shrinks the young generation a load grew, at once (on Node.js 20 too, whose gc() waits for 5 s of low allocation)', async () => {
    const start = youngGeneration();
    // A load's allocation: short-lived objects, some of them surviving a few collections.
    let kept: object[][] = [];
    for (let round = 0; round < 200_000 && youngGeneration() < 4 * start; round++) {
      kept.push(Array.from({ length: 100 }, (_, i) => ({ i, text: `item ${i}` })));
      if (kept.length > 200) kept = [];
    }
    kept = [];
    const grown = youngGeneration();
    expect(grown).toBeGreaterThan(start);
    const collect = collector();
    expect(collect).not.toBeNull();
    await collect!.run();
    expect(youngGeneration()).toBeLessThan(grown);
    expect(youngGeneration()).toBeLessThanOrEqual(start);
  });
});

describe('the young generation of a serving process', () => {
  /** Allocates as a load does (short-lived objects, some surviving a few collections) until the young generation grows once; its new size. */
  function firstGrowth(): number {
    const before = youngGeneration();
    let kept: object[][] = [];
    for (let round = 0; round < 200_000; round++) {
      kept.push(Array.from({ length: 100 }, (_, i) => ({ i, text: `item ${i}` })));
      if (kept.length > 200) kept = [];
      if (youngGeneration() > before) return youngGeneration();
    }
    return before;
  }

  it('grows to its largest size in one step after a shrink, not by doublings (growYoungGenerationAtOnce)', async () => {
    // Shrunk to its first size, as V8 shrinks it after a pause between bursts.
    await collector()!.run();
    const shrunk = youngGeneration();
    growYoungGenerationAtOnce();
    // V8's default growth doubles it (1 -> 2 MB); at once, 1 -> 16 MB.
    expect(firstGrowth()).toBeGreaterThanOrEqual(8 * shrunk);
  });
});
