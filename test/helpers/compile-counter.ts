import type { KyselyPlugin } from 'kysely';

/** A plugin that counts the queries compiled through it (Kysely transforms each query as it compiles it). */
export function compileCounter(): { plugin: KyselyPlugin; compiled: () => number } {
  let compiled = 0;
  return {
    plugin: {
      transformQuery: (args) => {
        compiled++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    },
    compiled: () => compiled,
  };
}
