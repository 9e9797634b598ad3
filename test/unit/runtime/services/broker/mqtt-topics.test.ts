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

  it.each(['a/#', 'a/+', '#', '', 'a\u0000b'])('refuses %j as a topic to publish to', (topic) => {
    expect(() => checkTopicName(topic)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each(['a/#/b', 'a/b#', 'a/b+', '+a', ''])('refuses %j as a filter', (filter) => {
    expect(() => checkTopicFilter(filter)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each(['a/#', '#', '+/+/x', 'a/b'])('accepts %j as a filter', (filter) => {
    expect(() => checkTopicFilter(filter)).not.toThrow();
  });
});
