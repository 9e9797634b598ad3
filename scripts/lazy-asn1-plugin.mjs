// An esbuild plugin of the runtime bundle (scripts/build-package.mjs).

/**
 * fast-jwt defines its key models with asn1.js as it loads, which runs asn1.js and bn.js at every
 * start; they read only PEM private and public keys, which an HMAC secret (the session tokens')
 * never is. fast-jwt gets a stand-in whose models load asn1.js at their first decode (`root`:
 * where asn1.js resolves from).
 */
export const lazyAsn1ForFastJwt = (root) => ({
  name: 'lazy-asn1-for-fast-jwt',
  setup(build) {
    build.onResolve({ filter: /^asn1\.js$/ }, (args) =>
      /[\\/]fast-jwt[\\/]/.test(args.importer) ? { path: 'asn1.js', namespace: 'lazy-asn1' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-asn1' }, () => ({
      resolveDir: root,
      contents: [
        'let asn1;',
        "const real = () => (asn1 ??= require('asn1.js'));",
        'exports.define = (name, body) => {',
        '  let model;',
        '  const get = () => (model ??= real().define(name, body));',
        '  return { decode: (...args) => get().decode(...args), encode: (...args) => get().encode(...args) };',
        '};',
      ].join('\n'),
    }));
  },
});
