/**
 * Databases that refuse or do not speak the expected protocol during `gen build`: one positioned
 * diagnostic per service, every one reported at once, never "a bug in Portico"; services are
 * introspected in parallel, so a slow or failing one does not hide the others. WSDLs that cannot
 * be read fail the same way; what a readable WSDL leaves out is a positioned warning.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { requireService } from '#test/helpers/require-service.js';
import { captureIo } from './cli-fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-introspect-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const servers = (await requireService('postgres')) && (await requireService('mysql'));

it.skipIf(!servers)(
  'reports a pgsql service on the MySQL port, a mysql service on the PostgreSQL port and a closed port, each at its entry',
  async () => {
    fs.writeFileSync(
      path.join(dir, 'platform.yaml'),
      [
        'platform:',
        '  name: wrong',
        'services:',
        '  - name: shop',
        '    type: pgsql',
        '    config:',
        '      url: postgres://postgres:secret@127.0.0.1:3306/test',
        '  - name: legacy',
        '    type: mysql',
        '    config:',
        '      url: mysql://root@127.0.0.1:5432/test',
        '  - name: gone',
        '    type: pgsql',
        '    config:',
        '      url: postgres://postgres@127.0.0.1:1/test',
        '',
      ].join('\n'),
    );
    const { io, out } = captureIo(dir);
    expect(await runCli(['build'], io)).toBe(1);
    expect(out.stderr).toMatch(/platform\.yaml:4:5: Introspection of service 'shop' \(pgsql\) failed: .* \[PCO201\]/);
    expect(out.stderr).toMatch(/platform\.yaml:8:5: Introspection of service 'legacy' \(mysql\) failed: .* \[PCO201\]/);
    // Why the database is unavailable, in the driver's words.
    expect(out.stderr).toContain(
      "platform.yaml:12:5: Introspection of service 'gone' (pgsql) failed: The database is unavailable; try again later. (connect ECONNREFUSED 127.0.0.1:1) [PCO201]",
    );
    expect(out.stderr).toContain('3 problems found.');
    expect(out.stderr).not.toMatch(/bug in Portico|\n\s+at /);
    expect(out.stderr).not.toContain('secret');

    // gen check tells "cannot introspect" (3) apart from drift (1).
    const check = captureIo(dir);
    expect(await runCli(['check'], check.io)).toBe(3);
    expect(check.out.stderr).toContain('[PCO201]');
  },
);

it('gen check --offline compares with the committed model.json without touching the databases', async () => {
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-offline-'));
  try {
    fs.mkdirSync(path.join(site, 'data'));
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(site, 'data', 'app.sqlite'));
    db.exec('create table item (id integer primary key, name text not null)');
    db.close();
    fs.writeFileSync(
      path.join(site, 'platform.yaml'),
      'platform:\n  name: offline\nservices:\n  - name: db\n    config:\n      database: data/app.sqlite\n',
    );
    expect(await runCli(['build'], captureIo(site).io)).toBe(0);
    // The database goes away: a live check cannot introspect, an offline one still judges the files.
    fs.rmSync(path.join(site, 'data', 'app.sqlite'));
    fs.writeFileSync(path.join(site, 'data', 'app.sqlite'), 'not a database');
    const live = captureIo(site);
    expect(await runCli(['check'], live.io)).toBe(3);
    const offline = captureIo(site);
    expect(await runCli(['check', '--offline'], offline.io)).toBe(0);
    // A config change is still drift offline.
    fs.writeFileSync(
      path.join(site, 'platform.yaml'),
      'platform:\n  name: offline\n  title: Renamed\nservices:\n  - name: db\n    config:\n      database: data/app.sqlite\n',
    );
    const drift = captureIo(site);
    expect(await runCli(['check', '--offline'], drift.io)).toBe(1);
    expect(drift.out.stderr).toMatch(/out of date/);
  } finally {
    fs.rmSync(site, { recursive: true, force: true });
  }
});

const CALCULATOR = path.resolve(import.meta.dirname, '../golden/scenarios/soap-calculator/calculator.wsdl');

it('reports an empty WSDL and one that declares entities in its DTD (never expanded), each at its entry', async () => {
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-wsdl-'));
  try {
    const calculator = fs.readFileSync(CALCULATOR, 'utf8').replace(/^<\?xml[^>]*\?>\s*/, '');
    fs.writeFileSync(path.join(site, 'empty.wsdl'), '\n');
    fs.writeFileSync(
      path.join(site, 'xxe.wsdl'),
      `<?xml version="1.0"?>\n<!DOCTYPE definitions [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n${calculator.replace('Adds two integers', '&xxe;')}`,
    );
    const services = ['empty', 'xxe'].map((name) => `  - name: ${name}\n    type: soap\n    config:\n      wsdl: ${name}.wsdl\n`);
    fs.writeFileSync(path.join(site, 'platform.yaml'), `platform:\n  name: wsdls\nservices:\n${services.join('')}`);
    const { io, out } = captureIo(site);
    expect(await runCli(['build'], io)).toBe(1);
    expect(out.stderr).toContain(
      "platform.yaml:4:5: Introspection of service 'empty' (soap) failed: 'empty.wsdl' is not well-formed XML: the document is empty [PCO201]",
    );
    expect(out.stderr).toMatch(
      /platform\.yaml:8:5: Introspection of service 'xxe' \(soap\) failed: 'xxe\.wsdl' is not well-formed XML: it uses the entity &xxe; of its DTD, and DTD entities are not read \(none is expanded\) \(line \d+, column \d+\) \[PCO201\]/,
    );
    expect(out.stderr).not.toMatch(/root:|bug in Portico|\n\s+at /);
  } finally {
    fs.rmSync(site, { recursive: true, force: true });
  }
});

it('builds a WSDL that offers no SOAP operation, and says why at the service entry', async () => {
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-wsdl-'));
  try {
    const calculator = fs.readFileSync(CALCULATOR, 'utf8');
    // The SOAP ports go; one port is left, whose binding is not defined.
    const httpOnly = calculator
      .replace(/<wsdl:port name="CalculatorSoap(12)?" [\s\S]*?<\/wsdl:port>/g, '')
      .replace(
        '</wsdl:service>',
        '<wsdl:port name="Lost" binding="tns:Nowhere"><soap:address location="http://127.0.0.1:1/"/></wsdl:port></wsdl:service>',
      );
    fs.writeFileSync(path.join(site, 'http-only.wsdl'), httpOnly);
    fs.writeFileSync(
      path.join(site, 'platform.yaml'),
      'platform:\n  name: wsdls\nservices:\n  - name: calc\n    type: soap\n    config:\n      wsdl: http-only.wsdl\n',
    );
    const { io, out } = captureIo(site);
    expect(await runCli(['build'], io)).toBe(0);
    expect(out.stderr).toContain(
      "platform.yaml:4:5: warning: service 'calc': Port 'Lost' of service 'Calculator' names the binding 'Nowhere', which is not defined; the port is left out.\n",
    );
    expect(out.stderr).toContain(
      "platform.yaml:4:5: warning: service 'calc': The WSDL offers no usable SOAP 1.1 or SOAP 1.2 operation, so the service has none.\n",
    );
    // gen check prints the same warnings, and they do not fail it.
    const checked = captureIo(site);
    expect(await runCli(['check'], checked.io)).toBe(0);
    expect(checked.out.stderr).toBe(out.stderr);
  } finally {
    fs.rmSync(site, { recursive: true, force: true });
  }
});
