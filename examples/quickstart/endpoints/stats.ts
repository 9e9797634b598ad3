/**
 * The quickstart's custom endpoint, `GET /api/v2/stats/contacts`: how many contacts the address
 * book holds and how many each group has. It reads the tables through the in-process API with
 * the caller's rights, so a role sees the figures of what it may read (platform.yaml grants the
 * reader role `_table/*` for scripts too).
 */
import { defineEndpoints } from 'portico/runtime';
import type { Api } from '../server/events.js';

export default defineEndpoints<Api>({
  routes: [
    {
      method: 'GET',
      path: '/contacts',
      summary: 'How many contacts there are, in all and per group.',
      response: {
        type: 'object',
        required: ['total', 'groups'],
        properties: {
          total: { type: 'integer', description: 'Contacts in the address book.' },
          groups: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'name', 'contacts'],
              properties: { id: { type: 'integer' }, name: { type: 'string' }, contacts: { type: 'integer' } },
            },
          },
        },
      },
      async handler(_request, ctx) {
        const [total, groups, members] = await Promise.all([
          ctx.api.table('db', 'contact').count(),
          ctx.api.table('db', 'contact_group').list({ fields: ['id', 'name'], order: 'name' }),
          ctx.api.table('db', 'contact_group_relationship').list({ fields: ['contact_group_id'] }),
        ]);
        const counts = new Map<number, number>();
        for (const { contact_group_id: group } of members) counts.set(group, (counts.get(group) ?? 0) + 1);
        ctx.log.debug({ groups: groups.length }, 'contact statistics');
        return { total, groups: groups.map(({ id, name }) => ({ id, name, contacts: counts.get(id) ?? 0 })) };
      },
    },
  ],
});
