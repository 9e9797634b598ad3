import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { soapConfigSchema } from '#runtime/services/soap/soap-config-schema.js';
import { soapOptions } from '#runtime/services/soap/soap-config.js';

const validate = new Ajv({ allErrors: true, strict: false, useDefaults: true }).compile(soapConfigSchema);

describe('SOAP config', () => {
  it('normalises the options, PHP constant names included', () => {
    const options = soapOptions(
      {
        wsdl: 'x.wsdl',
        options: {
          soap_version: 'SOAP_1_2',
          login: 'al',
          password: 'pw',
          location: 'http://h/x',
          cache_wsdl: 'WSDL_CACHE_NONE',
          connection_timeout: 2.5,
          stream_context: { http: { header: 'X-A: 1\r\nX-B: two' } },
        },
        headers: [
          { type: 'generic', namespace: 'urn:h', name: 'Trace', data: '{"id":"svc:trace"}', mustunderstand: 1, actor: 'next' },
          { Type: 'wsse', Name: 'username', Data: 'bob' },
          { type: 'wsse', name: 'password', data: 'secret' },
        ],
        wsse_username_token: 'tok-1',
        cache_enabled: true,
        cache_ttl: 60,
      },
      '/',
    );
    expect(options).toEqual({
      soapVersion: '1.2',
      location: 'http://h/x',
      basicAuth: { username: 'al', password: 'pw' },
      ntlm: null,
      cacheWsdl: false,
      timeoutMs: 2500,
      tls: null,
      httpHeaders: { 'X-A': '1', 'X-B': 'two' },
      headers: [{ namespace: 'urn:h', name: 'Trace', data: { id: 'svc:trace' }, mustUnderstand: true, actor: 'next' }],
      wsse: { username: 'bob', password: 'secret', tokenId: 'tok-1', passwordType: 'PasswordDigest' },
      responseTtlMs: 60_000,
    });
  });

  it("has defaults: the binding's version, a 60 s timeout, the WSDL kept, no response cache", () => {
    expect(soapOptions({ wsdl: 'x.wsdl' }, '/')).toMatchObject({
      soapVersion: null,
      timeoutMs: 60_000,
      cacheWsdl: true,
      responseTtlMs: null,
      headers: [],
      wsse: null,
    });
  });

  it.each([
    [
      { ssl: { verify_peer: false } },
      "'stream_context.ssl.verify_peer: false' turns off TLS certificate verification; this is not allowed.",
    ],
    ['{"ssl":{"verify_peer_name":false}}', "'stream_context.ssl.verify_peer_name: false' turns off TLS host name verification"],
    [{ ssl: { allow_self_signed: true } }, "'stream_context.ssl.allow_self_signed: true' accepts self-signed certificates"],
  ])('refuses stream_context %j, which turns off certificate checks', (streamContext, message) => {
    expect(() => soapOptions({ wsdl: 'x', options: { stream_context: streamContext } }, '/')).toThrow(message);
  });

  it('refuses certificate-check switches in its JSON Schema too (gen build and the API validate with it)', () => {
    expect(validate({ wsdl: 'x', options: { stream_context: { ssl: { verify_peer: false } } } })).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toContain('/options/stream_context/ssl/verify_peer');
    expect(validate({ wsdl: 'x', options: { stream_context: { ssl: { verify_peer: true } } } })).toBe(true);
    expect(validate({ wsdl: 'x', options: { soap_versoin: '1.2' } })).toBe(false);
  });

  it.each([
    ['{"ssl":{"verify_peer":false}}', false],
    ['{ "ssl": { "allow_self_signed": true } }', false],
    ['{bad json', false],
    ['{"http":{"user_agent":"portico"}}', true],
    ['', true],
  ])('checks stream_context given as JSON text %j in its JSON Schema too (the API saves what it accepts)', (text, valid) => {
    expect(validate({ wsdl: 'x', options: { stream_context: text } })).toBe(valid);
  });

  it('refuses a generic header whose name is no XML element name, in its JSON Schema and when read', () => {
    const header = { type: 'generic', namespace: 'urn:h', name: 'a b<', data: 'x' };
    expect(validate({ wsdl: 'x', headers: [header] })).toBe(false);
    expect(() => soapOptions({ wsdl: 'x', headers: [header] }, '/')).toThrow("SOAP header 0: 'a b<' is not an XML element name.");
  });

  it('caps connection_timeout at what a Node.js timer holds (a longer one would fire at once)', () => {
    expect(soapOptions({ wsdl: 'x', options: { connection_timeout: 1e308 } }, '/').timeoutMs).toBe(2 ** 31 - 1);
  });

  it.each([
    [{ options: { soap_version: '2' } }, "SOAP option 'soap_version' must be 1.1 or 1.2, not '2'."],
    [{ options: { connection_timeout: 0 } }, "SOAP option 'connection_timeout' must be a number of seconds above 0."],
    [{ options: { location: 'ftp://x' } }, "SOAP option 'location' must be an http(s) URL, not 'ftp://x'."],
    [{ headers: [{ type: 'generic', name: 'A' }] }, "SOAP header 0 needs 'namespace' and 'name'."],
    [{ headers: [{ type: 'wsse', name: 'username', data: 'u' }] }, 'A WS-Security header needs two wsse rows: username and password.'],
    [{ headers: [{ type: 'other' }] }, "SOAP header 0: type must be generic or wsse, not 'other'."],
  ])('refuses %j', (config, message) => {
    expect(() => soapOptions({ wsdl: 'x', ...config }, '/')).toThrow(message);
  });
});
