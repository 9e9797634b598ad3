import { describe, expect, it } from 'vitest';
import { shownUrl, withoutUrlSecrets } from '#runtime/core/shown-url.js';

describe('shownUrl', () => {
  it('drops the user and password', () => {
    expect(shownUrl('http://ann:s3cret@files.example.com/a.txt')).toBe('http://files.example.com/a.txt');
    expect(shownUrl(new URL('https://ann@h.example/x'))).toBe('https://h.example/x');
  });

  it('masks the values of secret query parameters and keeps the others as written', () => {
    expect(shownUrl('https://h.example/x?api_key=K1&page=2&X-Amz-Signature=abc&sig=z')).toBe(
      'https://h.example/x?api_key=***&page=2&X-Amz-Signature=***&sig=***',
    );
    expect(shownUrl('https://h.example/x?q=a%20b&design=1')).toBe('https://h.example/x?q=a%20b&design=1');
  });

  it('cuts user info from text that is no URL', () => {
    expect(shownUrl('http://ann:pw@ho st/')).toBe('http://ho st/');
  });
});

describe('withoutUrlSecrets', () => {
  it('cleans every URL in a message, leaving the sentence around it', () => {
    expect(withoutUrlSecrets('Request cannot be constructed from a URL that includes credentials: http://ann:pw@h.example/a.txt.')).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://h.example/a.txt.',
    );
    expect(withoutUrlSecrets("fetch 'https://h.example/?token=T' and ftp://u:p@f.example/x")).toBe(
      "fetch 'https://h.example/?token=***' and ftp://f.example/x",
    );
    expect(withoutUrlSecrets('connect ECONNREFUSED 127.0.0.1:80')).toBe('connect ECONNREFUSED 127.0.0.1:80');
  });
});
