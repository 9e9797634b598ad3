/**
 * When an idle server collects to give memory back (runtime/http/idle-memory.ts): soon after a
 * load ends, and again once V8's 5 s allocation window has passed where the first was not enough.
 */
import { describe, expect, it } from 'vitest';
import { IdleSchedule, SETTLE_MS, SPACING_MS } from '#runtime/http/idle-memory.js';

/** Feeds one-second checks (`true`: busy) and returns the steps taken, with their times. */
function run(schedule: IdleSchedule, checks: boolean[], start = 0): string[] {
  return checks.flatMap((busy, i) => {
    const step = schedule.step(busy, start + (i + 1) * 1_000);
    return step === null ? [] : [`${step}@${i + 1}`];
  });
}

describe('IdleSchedule', () => {
  it('collects at the first idle second after a load, not 6 s later', () => {
    const schedule = new IdleSchedule();
    expect(run(schedule, [true, true, true, false])).toEqual(['first@4']);
  });

  it('collects a second time once idle for longer than V8 measures allocation over', () => {
    const schedule = new IdleSchedule();
    const steps = run(schedule, [true, ...Array<boolean>(10).fill(false)]);
    expect(steps).toEqual(['first@2', `last@${2 + Math.ceil(SETTLE_MS / 1_000)}`]);
    expect(SETTLE_MS).toBeGreaterThan(5_000);
  });

  it('collects nothing more once the memory is back, until the next load', () => {
    const schedule = new IdleSchedule();
    expect(run(schedule, [true, false])).toEqual(['first@2']);
    schedule.returned();
    expect(run(schedule, Array<boolean>(10).fill(false), 2_000)).toEqual([]);
    expect(run(schedule, [true, false], 12_000)).toEqual(['first@2']);
  });

  it('starts over when work comes back between the two collections, no sooner than SPACING_MS after the first', () => {
    const schedule = new IdleSchedule();
    const checks = [true, false, false, true, ...Array<boolean>(SPACING_MS / 1_000 + 2).fill(false)];
    expect(run(schedule, checks)).toEqual(['first@2', `first@${2 + SPACING_MS / 1_000}`]);
  });

  it('collects once per SPACING_MS while a load comes and goes every other second', () => {
    const schedule = new IdleSchedule();
    const steps = run(
      schedule,
      Array.from({ length: 24 }, (_, i) => i % 2 === 0),
    );
    expect(steps).toEqual(['first@2', 'first@12', 'first@22']);
  });

  it('collects once after start-up, which leaves garbage too', () => {
    expect(run(new IdleSchedule(), [false])).toEqual(['first@1']);
  });
});
