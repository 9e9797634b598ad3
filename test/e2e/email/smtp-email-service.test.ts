/**
 * smtp_email through nodemailer against a real SMTP server of the test's own (nodemailer's
 * smtp-server package, on 127.0.0.1, with login required; one server speaking STARTTLS, one TLS
 * from the first byte): the reference's send payload, templates from /system/email_template,
 * merge fields and lookups, attachments, the platform's own mail, and the failures.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { multipart } from '../files/multipart.js';

interface Received {
  envelope: SMTPServerEnvelope;
  mail: ParsedMail;
  user: string | undefined;
}

async function startSmtp(secure: boolean): Promise<{ server: SMTPServer; port: number; inbox: Received[] }> {
  const inbox: Received[] = [];
  const server = new SMTPServer({
    secure,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    // Permanent refusals of a sender or a recipient, as a real server words them.
    onMailFrom(from, _session, callback) {
      if (from.address.startsWith('blocked@')) callback(Object.assign(new Error('5.7.1 Sender address rejected'), { responseCode: 553 }));
      else callback();
    },
    onRcptTo(to, _session, callback) {
      if (to.address.startsWith('unknown@')) callback(Object.assign(new Error('5.1.1 Mailbox unknown'), { responseCode: 550 }));
      else callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 'mail-secret') callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then((mail) => {
        inbox.push({ envelope: session.envelope, mail, user: session.user as string | undefined });
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port, inbox };
}

let portico: TestServer;
let api: Api;
let plain: Awaited<ReturnType<typeof startSmtp>>;
let tls: Awaited<ReturnType<typeof startSmtp>>;
let smtpId: number;

beforeAll(async () => {
  [plain, tls] = await Promise.all([startSmtp(false), startSmtp(true)]);
  portico = await startTestServer();
  const token = await portico.adminToken();
  api = apiClient(portico.app, () => ({ key: portico.apiKey, token }));
  const created = await api('POST', '/system/service', {
    resource: [
      {
        name: 'mailer',
        label: 'SMTP',
        type: 'smtp_email',
        config: {
          host: '127.0.0.1',
          port: plain.port,
          username: 'mailer',
          password: 'mail-secret',
          ssl_verify: false,
          from_email: 'noreply@portico.test',
          from_name: 'Portico',
          parameters: [{ name: 'company', value: 'Acme' }],
        },
      },
      {
        name: 'mailer_tls',
        label: 'SMTP TLS',
        type: 'smtp_email',
        config: { host: '127.0.0.1', port: tls.port, encryption: 'ssl', username: 'mailer', password: 'mail-secret', ssl_verify: false },
      },
      {
        name: 'mailer_badpw',
        label: 'Bad',
        type: 'smtp_email',
        config: { host: '127.0.0.1', port: plain.port, username: 'mailer', password: 'wrong-password-77', ssl_verify: false },
      },
      { name: 'mailer_down', label: 'Down', type: 'smtp_email', config: { host: '127.0.0.1', port: 9, timeout: 5 } },
    ],
  });
  expect(created.status).toBe(201);
  smtpId = created.body.resource[0].id;
});
afterAll(async () => {
  await portico.close();
  await Promise.all(
    [plain, tls].map(
      (s) =>
        new Promise<void>((resolve) => {
          s.server.close(() => resolve());
        }),
    ),
  );
});

const last = (box: Received[]) => box[box.length - 1];

describe('smtp_email', () => {
  it('sends the reference payload and answers with the recipient count', async () => {
    const sent = await api('POST', '/mailer', {
      to: [{ name: 'Ann Lee', email: 'ann@example.com' }, 'bob@example.com'],
      cc: 'Carl <carl@example.com>',
      bcc: [{ email: 'dora@example.com' }],
      subject: 'Hello {first_name} from {company}',
      body_text: 'Dear {first_name},\nwelcome.',
      body_html: '<p>Dear {first_name}</p>',
      from_name: 'Sales',
      from_email: 'sales@portico.test',
      reply_to_name: 'Help',
      reply_to_email: 'help@portico.test',
      first_name: 'Ann <3',
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ count: 4 });
    const { mail, envelope, user } = last(plain.inbox);
    expect(user).toBe('mailer');
    expect(mail.subject).toBe('Hello Ann <3 from Acme');
    expect(mail.from?.value).toEqual([{ name: 'Sales', address: 'sales@portico.test' }]);
    expect(mail.replyTo?.value).toEqual([{ name: 'Help', address: 'help@portico.test' }]);
    expect((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value).toEqual([
      { name: 'Ann Lee', address: 'ann@example.com' },
      { name: '', address: 'bob@example.com' },
    ]);
    expect((Array.isArray(mail.cc) ? mail.cc[0] : mail.cc)?.value).toEqual([{ name: 'Carl', address: 'carl@example.com' }]);
    expect(mail.bcc).toBeUndefined();
    expect(envelope.rcptTo.map((r) => r.address).sort()).toEqual([
      'ann@example.com',
      'bob@example.com',
      'carl@example.com',
      'dora@example.com',
    ]);
    expect(mail.text?.trim()).toBe('Dear Ann <3,\nwelcome.');
    expect(mail.html).toContain('<p>Dear Ann &#60;3</p>');
  });

  it('sends over TLS from the first byte, and uses the default sender', async () => {
    expect((await api('POST', '/mailer_tls', { to: 'x@example.com', subject: 'over tls', body_text: 'secure' })).body).toEqual({
      count: 1,
    });
    expect(last(tls.inbox).mail.subject).toBe('over tls');
    await api('POST', '/mailer', { to: 'y@example.com', subject: 'no sender', body_text: 'x' });
    expect(last(plain.inbox).mail.from?.value).toEqual([{ name: 'Portico', address: 'noreply@portico.test' }]);
  });

  it('fills a template by name or id with merge fields and lookups', async () => {
    const template = await api('POST', '/system/email_template', {
      resource: [
        {
          name: 'welcome',
          to: ['templ@example.com'],
          subject: 'Welcome {first_name}',
          body_text: 'Hi {first_name} of {company}, see {site_url}.',
          body_html: '<b>{first_name}</b>',
          from_email: 'templates@portico.test',
        },
      ],
    });
    expect(template.status).toBe(201);
    const id = template.body.resource[0].id;
    const lookup = await api('POST', '/system/lookup', { resource: [{ name: 'site_url', value: 'https://portico.test' }] });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(201);
    expect((await api('POST', '/mailer', { template: 'welcome', first_name: 'Zoe' })).body).toEqual({ count: 1 });
    let { mail } = last(plain.inbox);
    expect(mail.subject).toBe('Welcome Zoe');
    expect(mail.text?.trim()).toBe('Hi Zoe of Acme, see https://portico.test.');
    expect(mail.from?.value[0].address).toBe('templates@portico.test');
    expect((await api('POST', `/mailer?template_id=${id}`, { first_name: 'Yan', to: 'other@example.com' })).status).toBe(200);
    ({ mail } = last(plain.inbox));
    expect(mail.subject).toBe('Welcome Yan');
    expect(last(plain.inbox).envelope.rcptTo.map((r) => r.address)).toEqual(['other@example.com']);
    expect((await api('POST', '/mailer', { template: 'nosuch' })).body.error).toEqual({
      code: 404,
      message: "Email Template 'nosuch' not found",
    });
    expect((await api('POST', '/mailer?template_id=9999', {})).body.error).toEqual({
      code: 404,
      message: "Email Template id '9999' not found",
    });
  });

  it('attaches uploaded files and files from URLs', async () => {
    const form = multipart([
      { field: 'attachment', name: 'report.csv', type: 'text/csv', content: 'a,b\n1,2\n' },
      { field: 'file', name: 'logo.bin', content: Buffer.from([1, 2, 3]) },
    ]);
    const fields = Buffer.from(
      form.body
        .toString('latin1')
        .replace(
          /^(--[^\r]+)\r\n/,
          (_whole, boundary: string) =>
            `${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\nfiles@example.com\r\n${boundary}\r\nContent-Disposition: form-data; name="subject"\r\n\r\nWith files\r\n${boundary}\r\n`,
        ),
      'latin1',
    );
    const token = await portico.adminToken();
    const sent = await portico.app.inject({
      method: 'POST',
      url: '/api/v2/mailer',
      payload: fields,
      headers: { 'content-type': form.type, 'x-service-api-key': portico.apiKey, 'x-service-session-token': token },
    });
    expect(sent.json()).toEqual({ count: 1 });
    let { mail } = last(plain.inbox);
    expect(mail.subject).toBe('With files');
    expect(mail.attachments.map((a) => [a.filename, a.content.toString('hex')])).toEqual([
      ['report.csv', Buffer.from('a,b\n1,2\n').toString('hex')],
      ['logo.bin', '010203'],
    ]);

    // From a file service, with the caller's GET grant on the path.
    await api('POST', '/files/mail/');
    await portico.app.inject({
      method: 'POST',
      url: '/api/v2/files/mail/',
      payload: 'stored attachment',
      headers: { 'x-file-name': 'note.txt', 'x-service-api-key': portico.apiKey, 'x-service-session-token': token },
    });
    expect(
      (
        await api('POST', '/mailer', {
          to: 'u@example.com',
          subject: 'stored',
          body_text: 'x',
          attachment: { service: 'files', path: 'mail/note.txt' },
        })
      ).status,
    ).toBe(200);
    ({ mail } = last(plain.inbox));
    expect(mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['note.txt', 'stored attachment']]);
    expect(
      (await api('POST', '/mailer', { to: 'u@example.com', subject: 'x', attachment: { service: 'files', path: 'mail/none.txt' } })).status,
    ).toBe(404);
    expect((await api('POST', '/mailer', { to: 'u@example.com', subject: 'x', attachment: { service: 'files' } })).status).toBe(400);
    // A service that is no file service: `system` (a type without a handler) was a 501, and the
    // down SMTP service was opened (a 503 after its timeout) only to be refused.
    for (const service of ['system', 'mailer_down', 'user']) {
      const refused = await api('POST', '/mailer', { to: 'u@example.com', subject: 'x', attachment: { service, path: 'a.txt' } });
      expect(refused.body.error, service).toEqual({
        code: 400,
        message: `Failed to get attachment file from storage service. Service '${service}' is not a file service.`,
      });
    }
    const service = (await api('GET', '/system/service?filter=name=mailer&fields=id')).body.resource[0].id;
    const role = (
      await api('POST', '/system/role', {
        resource: [{ name: 'mail-only', role_service_access_by_role_id: [{ service_id: service, component: '*', verb_mask: 2 }] }],
      })
    ).body.resource[0].id;
    const key = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'mail-app', role_id: role }] })).body.resource[0]
      .api_key;
    const denied = await api(
      'POST',
      '/mailer',
      { to: 'u@example.com', subject: 'x', attachment: { service: 'files', path: 'mail/note.txt' } },
      { key },
    );
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(
      'Failed to get attachment file from storage service. You do not have enough privileges to access file: mail/note.txt in service files',
    );

    const files = http.createServer((_request, response) => {
      response.setHeader('content-type', 'application/pdf');
      response.end('%PDF-1.4 fake');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/docs/terms.pdf`;
      expect((await api('POST', '/mailer', { to: 'u@example.com', subject: 'url', body_text: 'x', import_url: url })).status).toBe(200);
      ({ mail } = last(plain.inbox));
      expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
        ['terms.pdf', 'application/pdf', '%PDF-1.4 fake'],
      ]);
    } finally {
      files.close();
    }
  });

  it("sends the platform's password-reset mail through the email service the user service names", async () => {
    const userService = (await api('GET', '/system/service?filter=name=user&fields=id,config')).body.resource[0];
    expect(
      (await api('PATCH', `/system/service/${userService.id}`, { config: { ...userService.config, password_email_service_id: smtpId } }))
        .status,
    ).toBe(200);
    await api('POST', '/system/user', {
      resource: [{ name: 'Rita', first_name: 'Rita', email: 'rita@example.com', password: 'rita-password-1234567' }],
    });
    const before = plain.inbox.length;
    expect((await api('POST', '/user/password?reset=true', { email: 'rita@example.com' }, null)).body).toEqual({ success: true });
    expect(plain.inbox.length).toBe(before + 1);
    const { mail, envelope } = last(plain.inbox);
    expect(envelope.rcptTo.map((r) => r.address)).toEqual(['rita@example.com']);
    expect(mail.text).toMatch(/Hello Rita,[\s\S]*reset code is \S+/);
  });

  it('sends invitations (whose code sets the password) and registration mail through the services the user service names', async () => {
    const userService = (await api('GET', '/system/service?filter=name=user&fields=id,config')).body.resource[0];
    const config = {
      ...userService.config,
      allow_open_registration: true,
      invite_email_service_id: smtpId,
      open_reg_email_service_id: smtpId,
    };
    expect((await api('PATCH', `/system/service/${userService.id}`, { config })).status).toBe(200);

    const invited = await api('POST', '/system/user?send_invite=true', {
      resource: [{ name: 'Ivan', first_name: 'Ivan', email: 'ivan@example.com' }],
    });
    expect(invited.status).toBe(201);
    let { mail, envelope } = last(plain.inbox);
    expect(envelope.rcptTo.map((r) => r.address)).toEqual(['ivan@example.com']);
    expect(mail.subject).toBe('You are invited to Test platform');
    const code = /the code (\S+) and a new password/.exec(mail.text ?? '')?.[1];
    expect(code).toBeDefined();
    expect(
      (await api('POST', '/user/password', { email: 'ivan@example.com', code, new_password: 'ivan-password-12345678' }, null)).body.success,
    ).toBe(true);
    expect(
      (await api('POST', '/user/session', { email: 'ivan@example.com', password: 'ivan-password-12345678' }, { key: portico.apiKey }))
        .status,
    ).toBe(200);

    expect(
      (
        await api(
          'POST',
          '/user/register',
          { email: 'nora@example.com', password: 'nora-password-12345678', first_name: 'Nora' },
          { key: portico.apiKey },
        )
      ).status,
    ).toBe(201);
    ({ mail, envelope } = last(plain.inbox));
    expect(envelope.rcptTo.map((r) => r.address)).toEqual(['nora@example.com']);
    expect(mail.subject).toBe('Welcome to Test platform');
    expect(mail.text).toContain('Hello Nora');
  });

  it('answers bad input with 400 and a failing server with 503 naming it, without credentials', async () => {
    expect((await api('POST', '/mailer', { subject: 'nobody' })).body.error.code).toBe(400);
    expect((await api('POST', '/mailer', { to: 'not an address', subject: 'x' })).body.error.code).toBe(400);
    // nodemailer read `:''(x@example.com` as a group and a comment, had no recipient left, and the send was a 502.
    expect((await api('POST', '/mailer', { to: ":''(x@example.com", subject: 'x', body_text: 'x' })).body.error).toEqual({
      code: 400,
      message: "Field 'to' holds an invalid email address: ':''(x@example.com'.",
      context: { field: 'to' },
    });
    expect((await api('POST', '/mailer', {})).body.error).toEqual({ code: 400, message: 'No valid data in request.' });
    expect((await api('GET', '/mailer')).body.error.code).toBe(400);
    // A template named by an object or a list: the 404 said `Email Template '[object Object]' not found`.
    const before = plain.inbox.length;
    for (const [field, value] of [
      ['template', { name: 'welcome' }],
      ['template', ['welcome']],
      ['template_id', { id: 1 }],
    ] as const) {
      expect((await api('POST', '/mailer', { to: 'a@example.com', subject: 'x', [field]: value })).body.error, field).toEqual({
        code: 400,
        message: `Field '${field}' must be the ${field === 'template' ? 'name' : 'id'} of an email template.`,
        context: { field },
      });
    }
    expect(plain.inbox.length).toBe(before);
    const refused = await api('POST', '/mailer_badpw', { to: 'a@example.com', subject: 'x', body_text: 'x' });
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toBe("The SMTP server of service 'mailer_badpw' refused the login.");
    expect(JSON.stringify(refused.body)).not.toContain('wrong-password-77');
    const down = await api('POST', '/mailer_down', { to: 'a@example.com', subject: 'x', body_text: 'x' });
    expect(down.status).toBe(503);
    expect(down.body.error.message).toMatch(/^The SMTP server of service 'mailer_down' is unreachable/);
  });

  // The 400 said nodemailer's own words: "... refused the message: Can't send mail - all recipients were rejected: 550 ...".
  it("answers a server's permanent refusal of the recipients or the sender with 400 in our words and the server's reply", async () => {
    const recipients = await api('POST', '/mailer', { to: 'unknown@example.com', subject: 'x', body_text: 'x' });
    expect(recipients.body.error).toEqual({
      code: 400,
      message: "The SMTP server of service 'mailer' refused every recipient of the message; it answered '550 5.1.1 Mailbox unknown'.",
    });
    const sender = await api('POST', '/mailer', { to: 'a@example.com', from_email: 'blocked@example.com', subject: 'x', body_text: 'x' });
    expect(sender.body.error).toEqual({
      code: 400,
      message: "The SMTP server of service 'mailer' refused the message's sender; it answered '553 5.7.1 Sender address rejected'.",
    });
  });

  it('refuses a line break in an address or one too long for SMTP, and reads attachment URLs with odd names or endless answers safely', async () => {
    // A line break made `a@b.io\r\nRCPT TO:<x@y.io>` a display name, and the message went to x@y.io only.
    const before = plain.inbox.length;
    const injected = await api('POST', '/mailer', { to: 'ann@example.com\r\nRCPT TO:<evil@example.net>', subject: 'x', body_text: 'x' });
    expect(injected.status).toBe(400);
    expect(injected.body.error.message).toMatch(/^Field 'to' holds an invalid email address/);
    expect(plain.inbox.length).toBe(before);

    // An address too long for SMTP: the server dropped the connection, and the answer was a 503 saying it was unreachable.
    for (const [to, shown] of [
      [`${'x'.repeat(70_000)}@example.com`, `${'x'.repeat(100)}…`],
      [`${'l'.repeat(65)}@example.com`, `${'l'.repeat(65)}@example.com`],
      [`a@${'d'.repeat(250)}.com`, `a@${'d'.repeat(98)}…`],
    ]) {
      const long = await api('POST', '/mailer', { to: 'ann@example.com', cc: to, subject: 'x', body_text: 'x' });
      expect(long.body.error).toEqual({
        code: 400,
        message: `Field 'cc' holds an email address longer than SMTP allows (64 bytes before the @, 254 in all): '${shown}'.`,
        context: { field: 'cc' },
      });
    }
    expect(plain.inbox.length).toBe(before);

    const remote = http.createServer((request, response) => {
      if (request.url === '/endless') {
        response.writeHead(200);
        const timer = setInterval(() => response.write(Buffer.alloc(1024 * 1024)), 1);
        request.on('close', () => clearInterval(timer));
        return;
      }
      response.end('content');
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    try {
      // Malformed percent-encoding in the name was a 500 (URIError); the name stays as written.
      const odd = await api('POST', '/mailer', { to: 'ann@example.com', subject: 'odd', import_url: `${base}/a%zz.txt` });
      expect(odd.status).toBe(200);
      expect(last(plain.inbox).mail.attachments.map((a) => a.filename)).toEqual(['a%zz.txt']);
      // An endless answer was buffered whole until the 30 s timeout, then a 500.
      const started = Date.now();
      const endless = await api('POST', '/mailer', { to: 'ann@example.com', subject: 'big', import_url: `${base}/endless` });
      expect(endless.body.error).toEqual({ code: 413, message: 'The attachment is too large.' });
      expect(Date.now() - started).toBeLessThan(10_000);
      // fetch refuses a URL with credentials and names it whole in its message: the caller's password came back in the 400.
      const secret = await api('POST', '/mailer', {
        to: 'ann@example.com',
        subject: 'creds',
        import_url: `http://ann:hunter2@127.0.0.1:${(remote.address() as AddressInfo).port}/a.txt?token=t0k`,
      });
      expect(secret.status).toBe(400);
      expect(secret.body.error.message).toContain('Failed to import attachment file from url.');
      expect(secret.body.error.message).not.toMatch(/hunter2|ann:|t0k/);
    } finally {
      remote.closeAllConnections();
      remote.close();
    }
  });

  it('is listed with its group and configuration, and documented', async () => {
    const type = (await api('GET', '/system/service_type/smtp_email')).body;
    expect(type).toMatchObject({ name: 'smtp_email', label: 'SMTP', group: 'Email' });
    expect(type.config_schema.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['host', 'port', 'encryption', 'username', 'password', 'parameters']),
    );
    expect(Object.keys((await api('GET', '/mailer/_spec')).body.paths)).toEqual(['/']);
  });
});

describe('email: the request body limit', () => {
  /** A local email service on a server with the given body limit; the JSON message has a body_text of `size` bytes. */
  async function send(bodyLimit: number, size: number) {
    const limited = await startTestServer(undefined, { bodyLimit });
    try {
      const headers = { 'x-service-api-key': limited.apiKey, 'x-service-session-token': await limited.adminToken() };
      const response = await limited.app.inject({
        method: 'POST',
        url: '/api/v2/email',
        headers,
        payload: { to: 'ann@example.com', subject: 'limit', body_text: 'x'.repeat(size) },
      });
      return { status: response.statusCode, body: response.json() };
    } finally {
      await limited.close();
    }
  }

  it("reads a JSON message up to the server's configured body limit, not a fixed 10 MiB, and answers 413 beyond it", async () => {
    // A smaller limit holds for email as for every endpoint (a fixed 10 MiB was read before).
    expect(await send(4096, 1024)).toEqual({ status: 200, body: { count: 1 } });
    expect(await send(4096, 8192)).toEqual({ status: 413, body: { error: { code: 413, message: 'Request body is too large.' } } });
    // A larger one lets a message past 10 MiB through (a 413 before).
    expect(await send(12 * 1024 * 1024, 10 * 1024 * 1024 + 1024)).toEqual({ status: 200, body: { count: 1 } });
  });
});
