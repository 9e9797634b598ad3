/**
 * The emitted OpenAPI documents as a client generator meets them: openapi-typescript turns a
 * PostgreSQL service's document into types, a client built with openapi-fetch calls list, get,
 * create and update against them (a create without a required column must not compile), and the
 * OpenAPI-derived record types agree with the generated types.ts in both directions.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { buildScenario } from '#test/golden/scenario-build.js';
import { repoRoot } from '#test/helpers/quickstart-copy.js';
import { typecheckProject } from '#test/helpers/typecheck.js';

const dir = path.join(repoRoot, `.tmp-openapi-${randomBytes(4).toString('hex')}`);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './shop-api.js';
import type { Order, OrderInsert, OrderUpdate, Product } from './server/services/shop/types.js';

type Schemas = components['schemas'];
/** An interface as a plain object type (interfaces have no implicit index signature). */
type Plain<T> = { [K in keyof T]: T[K] };
const agree = <A, B extends A>() => true;

// The OpenAPI-derived types and types.ts agree, both ways.
agree<Plain<Order>, Schemas['order']>();
agree<Schemas['order'], Plain<Order>>();
agree<Plain<Product>, Schemas['product']>();
agree<Schemas['product'], Plain<Product>>();
agree<Plain<OrderInsert>, Schemas['order.insert']>();
agree<Schemas['order.insert'], Plain<OrderInsert>>();
agree<Plain<OrderUpdate>, Schemas['order.update']>();
agree<Schemas['order.update'], Plain<OrderUpdate>>();

export async function calls(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  const list = await client.GET('/_table/order', { params: { query: { filter: "status = 'paid'", limit: 10 } } });
  const orders: Order[] = list.data?.resource ?? [];
  const one = await client.GET('/_table/order/{id}', { params: { path: { id: '1' } } });
  const status: 'new' | 'paid' | 'shipped' | 'cancelled' | undefined = one.data?.status;
  const price: number | 'NaN' | 'Infinity' | '-Infinity' | undefined = (await client.GET('/_table/product/{id}', { params: { path: { id: '1' } } })).data?.price;
  const productId: number | string | undefined = (await client.GET('/_table/product/{id}', { params: { path: { id: '9007199254740993' } } })).data?.id;
  await client.POST('/_table/order', { body: { resource: [{ customer_id: 1, reference: '0b5e5f0e-5f9a-4a43-9e62-2a0a0c7e8a11' }] } });
  // @ts-expect-error a new order needs its reference: the database has no default for it
  await client.POST('/_table/order', { body: { resource: [{ customer_id: 1 }] } });
  await client.PATCH('/_table/order/{id}', { params: { path: { id: '1' } }, body: { status: 'shipped' } });
  // @ts-expect-error a status is one of the enum's values
  await client.PATCH('/_table/order/{id}', { params: { path: { id: '1' } }, body: { status: 'lost' } });
  void [orders, status, price, productId];
}
`;

describe('OpenAPI documents with openapi-typescript and openapi-fetch', () => {
  it('type a client that lists, gets, creates and updates, in agreement with types.ts', { timeout: 180_000 }, async () => {
    const files = await buildScenario('postgres-enums');
    for (const [file, text] of files) {
      if (!file.endsWith('.ts')) continue;
      fs.mkdirSync(path.dirname(path.join(dir, 'server', file)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'server', file), text);
    }
    const document = JSON.parse(files.get('openapi/shop.json')!) as Parameters<typeof openapiTS>[0];
    fs.writeFileSync(path.join(dir, 'shop-api.ts'), astToString(await openapiTS(document)));
    fs.writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
    const result = await typecheckProject(path.join(dir, 'tsconfig.json'));
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
