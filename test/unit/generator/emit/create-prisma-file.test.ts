import { describe, expect, it } from 'vitest';
import { createPrismaFile } from '#generator/emit/create-prisma-file.js';
import type { SqlServiceModel } from '#runtime/model/platform-model.js';
import { prismaSchemaError } from '#test/golden/validators.js';
import { awkwardModel } from './awkward-model.js';
import { loadTemplates } from '#generator/load-templates.js';

const services = awkwardModel.services.filter((service): service is SqlServiceModel => service.kind === 'sql');
const schema = (name: string) => createPrismaFile(services.find((service) => service.name === name)!, loadTemplates().prismaSchema);
/** A model block, whitespace collapsed. */
const block = (text: string, model: string) => (new RegExp(`model ${model} \\{[^}]*\\}`).exec(text)?.[0] ?? '').replace(/\s+/g, ' ');

describe('createPrismaFile', () => {
  it.each(services.map((service) => [service.name, service.dialect]))('%s (%s) passes prisma validate', (name) => {
    expect(prismaSchemaError(schema(name))).toBeNull();
  });

  it('the validator does reject a broken schema', () => {
    expect(prismaSchemaError(schema('my_db').replace('model Error {', 'model 1Error {'))).toMatch(/must not start with a number/);
  });

  it('has a datasource without url and the prisma-client generator with the output Prisma 7 requires', () => {
    const text = schema('my_db');
    expect(text).toContain('datasource db {\n  provider = "sqlite"\n}');
    expect(text).toContain('generator client {\n  provider = "prisma-client"\n  output   = "./client/my_db"\n}');
    expect(text).not.toMatch(/url\s*=/);
  });

  it.each([
    ['a table name Prisma cannot take, mapped', 'Model2faCodes', '@@map("2FA Codes")'],
    ['a column name Prisma cannot take, mapped', 'Model2faCodes', 'User_ID Int? @map("User ID")'],
    ['an unknown column type', 'Model2faCodes', 'geom Unsupported("geometry")?'],
    ['a reserved scalar name', 'String2', '@@map("string")'],
    ['a composite key', 'Membership', '@@id([group_id, person_id])'],
    [
      'a composite relation',
      'MembershipNote',
      '@relation(fields: [group_id, person_id], references: [group_id, person_id], onDelete: Cascade, onUpdate: Cascade)',
    ],
    ['a one-to-one back relation', 'Person', 'profile_by_person_id Profile?'],
    ['a self relation, named', 'Node', 'node_by_parent_id2 Node[] @relation("Node_node_by_parent_id")'],
    ['two relations to one table, named', 'Person', 'message_by_sender_id Message[] @relation("Message_person_by_sender_id")'],
    ['a relation to a unique key', 'Message', 'references: [email]'],
    [
      'no SetNull on a required column',
      'Message',
      '@relation("Message_person_by_recipient_id", fields: [recipient_id], references: [id], onUpdate: NoAction)',
    ],
    ['a table without a usable key, ignored', 'NoKey', '@@ignore'],
    ['no relation to an ignored model', 'Link', 'code Int @@map("link") }'],
  ])('maps %s', (_, model, text) => {
    expect(block(schema('my_db'), model)).toContain(text);
  });

  it('leaves views out, saying so', () => {
    expect(schema('my_db')).toContain('// View "odd_view" is not included');
    expect(schema('my_db')).not.toContain('OddView');
  });

  it('lists PostgreSQL schemas and places each model', () => {
    const text = schema('pg');
    expect(text).toContain('schemas  = ["public", "sales"]');
    expect(block(text, 'Contact')).toContain('@@schema("sales")');
    expect(block(text, 'Contact')).toContain('name String @db.VarChar(80)');
    expect(block(text, 'Audit')).toContain('id BigInt @id @default(autoincrement())');
  });

  it('turns an enumerated column into an enum, its values mapped where they are no identifiers', () => {
    const text = schema('pg');
    expect(block(text, 'Contact')).toMatch(/mood\s+mood\?\s+@default\(so_so\)/);
    const enumBlock = /^enum mood \{\n([\s\S]*?)^\}/m.exec(text)![1];
    expect(
      enumBlock
        .split('\n')
        .map((line) => line.trim().replace(/\s+/g, ' '))
        .filter(Boolean),
    ).toEqual(['happy', 'so_so @map("so-so")', 'EMPTY_ENUM_VALUE @map("")', '@@schema("sales")']);
  });
});
