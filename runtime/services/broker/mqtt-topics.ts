/** MQTT topic names and filters (MQTT 3.1.1 section 4.7): validation as 400s, and matching. */
import { BadRequestError } from '../../core/errors.js';

const MAX_TOPIC_BYTES = 65_535;

/**
 * The first character MQTT 3.1.1 (1.5.3) rules out of a topic, or null: a lone surrogate (not
 * UTF-8), a control character (U+0000-U+001F, U+007F-U+009F) or a non-character (U+FDD0-U+FDEF,
 * U+xFFFE, U+xFFFF). Mosquitto closes the connection of a client that sends one, and mqtt.js
 * sent the unacknowledged publish again on each reconnection: one request made the service a
 * 503 for every caller, for good.
 */
function forbiddenCharacter(topic: string): string | null {
  for (const ch of topic) {
    const code = ch.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) return 'a lone surrogate';
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return code === 0 ? 'a NUL character' : 'a control character';
    if ((code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) === 0xfffe) return 'a Unicode non-character';
  }
  return null;
}

function common(topic: string, what: string): void {
  if (topic === '') throw new BadRequestError(`Invalid ${what}: it is empty.`, { field: 'topic' });
  if (Buffer.byteLength(topic) > MAX_TOPIC_BYTES)
    throw new BadRequestError(`Invalid ${what}: longer than ${MAX_TOPIC_BYTES} bytes.`, { field: 'topic' });
  const forbidden = forbiddenCharacter(topic);
  if (forbidden !== null) throw new BadRequestError(`Invalid ${what}: it contains ${forbidden}.`, { field: 'topic' });
}

/** 400 unless the text is a topic one may publish to (no wildcards). */
export function checkTopicName(topic: string): void {
  common(topic, 'topic');
  if (/[+#]/.test(topic))
    throw new BadRequestError(`Invalid topic '${topic}': wildcards (+, #) are for subscriptions, not for publishing.`, { field: 'topic' });
}

/** 400 unless the text is a valid subscription filter (`+` a whole level, `#` only as the last level). */
export function checkTopicFilter(filter: string): void {
  common(filter, 'topic filter');
  const levels = filter.split('/');
  levels.forEach((level, i) => {
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) {
      throw new BadRequestError(`Invalid topic filter '${filter}': '#' must be the whole last level.`, { field: 'topic' });
    }
    if (level.includes('+') && level !== '+')
      throw new BadRequestError(`Invalid topic filter '${filter}': '+' must be a whole level.`, { field: 'topic' });
  });
}

/** Whether a topic matches a filter; `$`-topics match only filters that name their first level. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
