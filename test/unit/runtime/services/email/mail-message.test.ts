import { describe, expect, it } from 'vitest';
import { PorticoError } from '#runtime/core/errors.js';
import { messageFromBody } from '#runtime/services/email/message-body.js';
import { addresses, fillTemplate } from '#runtime/services/email/mail-message.js';

describe('addresses', () => {
  it.each([
    ['a@b.io', [{ email: 'a@b.io' }]],
    ['Ada Lovelace <ada@b.io>', [{ email: 'ada@b.io', name: 'Ada Lovelace' }]],
    ['a@b.io, c@d.io', [{ email: 'a@b.io' }, { email: 'c@d.io' }]],
    [{ email: 'a@b.io', name: 'A' }, [{ email: 'a@b.io', name: 'A' }]],
    [
      ['a@b.io', { email: 'c@d.io' }],
      [{ email: 'a@b.io' }, { email: 'c@d.io' }],
    ],
    [undefined, []],
  ])('%o', (value, want) => {
    expect(addresses(value, 'to')).toEqual(want);
  });

  // Characters mail syntax gives a meaning: nodemailer read `:a(b@c.io` as a group and a comment, and sent to no one.
  it.each([
    ['nope'],
    [{ name: 'x' }],
    [5],
    [['a@b.io', 'bad']],
    [":''(x@b.io"],
    ['a(b@c.io'],
    ['a;b@c.io'],
    ['a\\b@c.io'],
    ['Ann <a:b@c.io>'],
  ])('refuses %o naming the field', (value) => {
    expect(() => addresses(value, 'to')).toThrow(PorticoError);
  });
});

describe('fillTemplate', () => {
  it('fills known placeholders, keeps unknown ones, escapes HTML values', () => {
    expect(fillTemplate('Hi {name}, {other}', { name: 'Ada' })).toBe('Hi Ada, {other}');
    expect(fillTemplate('<b>{name}</b>', { name: '<script>' }, true)).toBe('<b>&#60;script&#62;</b>');
  });
});

describe('messageFromBody', () => {
  it('reads the reference email fields', () => {
    expect(messageFromBody({ to: 'a@b.io', subject: 's', body_text: 't', from_email: 'f@b.io', from_name: 'F' })).toEqual({
      to: [{ email: 'a@b.io' }],
      cc: [],
      bcc: [],
      from: { email: 'f@b.io', name: 'F' },
      reply_to: null,
      subject: 's',
      body_text: 't',
      body_html: '',
    });
  });

  it('needs a recipient and string fields', () => {
    expect(() => messageFromBody({ subject: 's' })).toThrow(/no recipient/);
    expect(() => messageFromBody({ to: 'a@b.io', subject: 5 })).toThrow(/'subject' must be a string/);
    expect(() => messageFromBody([])).toThrow(PorticoError);
  });
});
