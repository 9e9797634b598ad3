import { describe, expect, it } from 'vitest';
import { checkTopicFilter, checkTopicName, topicMatches } from '#runtime/services/broker/mqtt-topics.js';

describe('MQTT topics', () => {
  it.each([
    ['a/+/c', 'a/b/c', true],
    ['a/+/c', 'a/b/d', false],
    ['a/#', 'a', true],
    ['a/#', 'a/b/c', true],
    ['#', 'a/b', true],
    ['+', 'a', true],
    ['+', 'a/b', false],
    ['a/b', 'a/b', true],
    ['+/b', '$SYS/b', false],
    ['#', '$SYS/x', false],
    ['$SYS/#', '$SYS/x', true],
    ['a/+', 'a/', true],
    ['a//b', 'a//b', true],
  ])('filter %s matches %s: %s', (filter, topic, want) => {
    expect(topicMatches(filter, topic)).toBe(want);
  });

  // Characters MQTT 3.1.1 (1.5.3) rules out: Mosquitto drops the client that sends one.
  it.each([
    'a/#',
    'a/+',
    '#',
    '',
    'a\u0000b',
    'a\u0001',
    'a\u007fb',
    '\u0085',
    'a\ud800',
    '\udfffa',
    'x\ufdd0',
    'x\uffff',
    'x\ufffe',
    'x\u{1fffe}',
    'x\u{10ffff}',
  ])('refuses %j as a topic to publish to', (topic) => {
    expect(() => checkTopicName(topic)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each(['a/é/日本/💥', 'x\u00a0y', 'x\ufeff', 'x\ufffd', 'x\u{1f600}', '$SYS/x'])('accepts %j as a topic to publish to', (topic) => {
    expect(() => checkTopicName(topic)).not.toThrow();
  });

  it.each(['a/#/b', 'a/b#', 'a/b+', '+a', '', 'a/\u007f/#', '\u0085/+'])('refuses %j as a filter', (filter) => {
    expect(() => checkTopicFilter(filter)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each(['a/#', '#', '+/+/x', 'a/b'])('accepts %j as a filter', (filter) => {
    expect(() => checkTopicFilter(filter)).not.toThrow();
  });
});
