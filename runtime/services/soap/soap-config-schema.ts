/**
 * JSON Schema of a `soap` service's config, checked by `gen build` and when a service is saved
 * through the API. It refuses the stream_context switches that turn off TLS certificate checks.
 */

const text = (description: string) => ({ type: 'string', description });

/** An XML element name without a prefix (ASCII letters, digits, `_`, `-`, `.`): a generic header's name. */
export const XML_NAME = '^[A-Za-z_][A-Za-z0-9_.-]*$';

/**
 * An object, or its JSON text (parsed when the options are read); the object keywords apply to
 * objects only. The text must look like an object and must not hold the switches refused below,
 * so that a service saved through the API with the text is refused as with the object.
 */
const streamContextSchema = {
  type: ['object', 'string'],
  pattern: '^\\s*(\\{[\\s\\S]*\\})?\\s*$',
  patternErrorMessage: 'must be a JSON object or its text',
  not: {
    type: 'string',
    pattern: '"(verify_peer|verify_peer_name)"\\s*:\\s*(false|0|"false")|"allow_self_signed"\\s*:\\s*(true|1|"true")',
  },
  additionalProperties: false,
  description:
    'Transport options, as an object or JSON text: `ssl` (cafile, local_cert, local_pk, passphrase, peer_name) and `http` (header, user_agent).',
  properties: {
    ssl: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cafile: text('PEM file of the certificate authorities to trust, relative to the platform directory.'),
        local_cert: text('PEM file of the client certificate (and its key, unless local_pk is given).'),
        local_pk: text("PEM file of the client certificate's private key."),
        passphrase: text('Passphrase of the private key.'),
        peer_name: text('Host name to verify the server certificate against.'),
        verify_peer: { enum: [true], description: 'Certificates are always verified; false is refused.' },
        verify_peer_name: { enum: [true], description: 'Host names are always verified; false is refused.' },
        allow_self_signed: { enum: [false], description: 'Self-signed certificates are refused; trust them with cafile.' },
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      properties: {
        header: {
          anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
          description: 'Extra HTTP headers, `Name: value` lines.',
        },
        user_agent: text('User-Agent header.'),
      },
    },
  },
};

/** JSON Schema of a `soap` service's config. */
export const soapConfigSchema: Record<string, unknown> = {
  type: 'object',
  required: ['wsdl'],
  additionalProperties: true,
  properties: {
    wsdl: {
      type: 'string',
      minLength: 1,
      description: "The WSDL: an http(s) URL, a file name of the platform's wsdl/ directory, or a path relative to the platform directory.",
    },
    options: {
      type: 'object',
      additionalProperties: false,
      properties: {
        soap_version: {
          enum: ['1.1', '1.2', 1.1, 1.2, 'SOAP_1_1', 'SOAP_1_2'],
          description: 'SOAP version of the requests; default: the version of the binding (1.1 when both exist).',
        },
        login: text('User name for HTTP Basic authentication.'),
        password: text('Password for HTTP Basic authentication.'),
        ntlm_username: text('User name for NTLM authentication (WSDL and calls).'),
        ntlm_password: text('Password for NTLM authentication.'),
        ntlm_domain: text('NTLM domain.'),
        ntlm_workstation: text('NTLM workstation.'),
        location: {
          type: 'string',
          pattern: '^https?://',
          patternErrorMessage: 'must be an http(s) URL',
          description: "Endpoint address; overrides the WSDL's.",
        },
        cache_wsdl: {
          enum: ['memory', 'none', 'WSDL_CACHE_NONE', 'WSDL_CACHE_DISK', 'WSDL_CACHE_MEMORY', 'WSDL_CACHE_BOTH', 0, 1, 2, 3],
          description:
            'memory (default): the WSDL read at run time is kept until refresh=true or a cache clear; none: read it again for every call.',
        },
        connection_timeout: { type: 'number', exclusiveMinimum: 0, description: 'Seconds to wait for the remote host (default 60).' },
        stream_context: streamContextSchema,
      },
    },
    headers: {
      type: 'array',
      description:
        'SOAP headers sent with every request: generic ones, or two `wsse` rows (`username`, `password`) for a WS-Security UsernameToken.',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          type: { enum: ['generic', 'wsse'], default: 'generic' },
          namespace: { type: 'string' },
          name: { type: 'string', pattern: XML_NAME, patternErrorMessage: 'must be an XML element name' },
          data: { description: 'A JSON object (or its text), a text, or `svc:<param>` for the value of that query parameter.' },
          mustunderstand: { type: ['boolean', 'integer', 'string'] },
          actor: { type: 'string' },
        },
      },
    },
    wsse_username_token: text('wsu:Id of the WS-Security UsernameToken.'),
    wsse_password_type: {
      enum: ['PasswordDigest', 'PasswordText'],
      default: 'PasswordDigest',
      description: 'How the UsernameToken carries the password.',
    },
    cache_enabled: { type: 'boolean', default: false, description: 'Cache the results of GET calls.' },
    cache_ttl: { type: 'integer', minimum: 0, default: 300, description: 'Seconds a cached GET result is kept; 0 caches nothing.' },
    cache_service: {
      type: 'string',
      description: 'A cache_redis service to keep cached GET results in (shared by every instance); default: in process.',
    },
  },
};
