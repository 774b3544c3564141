// Which way imports may go (`npm test` runs these rules: test/build/import-rules.test.ts).
//
//   shared/   what more than one side needs: imports nothing of the repository
//   widget/   the browser's element: shared/ only (not its gateway or webhook code)
//   server/   the published SDK: shared/ only
//   console/  the merchant console's pages (a bundle of their own): shared/ and the SDK's typed
//             client (server/); nothing imports it, so none of it reaches a shopper's bundle
//   worker/   the product Worker: shared/ (never widget/, server/, the sandbox or the demo)
//   worker/sandbox/  the sandbox gateway, a Worker of its own: shared/ only
//   worker/demo/     the demo shop, a Worker of its own: the SDK (server/) and shared/
//   tools/    what tests and benchmarks share; bench/ and test/ may import anything but each other
//             (bench/ never test/)
//
// Inside the Worker, HTTP stays at the edge:
//   routes/      the HTTP handlers: may use everything below
//   middleware/  may not import routes/; of the Durable Objects only their types (stub types)
//   schemas/     the request schemas: neither middleware/ nor routes/
//   checkout/, sessions/, payments/, registrations/, guards/, ... (the objects and what they use):
//                never routes/ or middleware/; request schemas only where the pay validates its
//                body inside the session (sessions/pay-request.ts: SECURITY.md R21), or as types
//
// A type-only import counts as much as any other: it ties the two sides' code together all the same.
// The two exceptions are inside the Worker and say so: middleware may name a Durable Object's stub type,
// and an object may name a request schema's output type.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-is-a-leaf',
      comment: 'shared/ is what the widget, the Worker, the SDK and the sandbox all use: it depends on none of them.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(widget|worker|server|tools|test|bench|scripts)/' },
    },
    {
      name: 'widget-only-shared',
      comment:
        "The element runs in shoppers' browsers: nothing of the Worker, the SDK or the tests may reach its bundles.",
      severity: 'error',
      from: { path: '^widget/' },
      to: { path: '^(worker|server|tools|test|bench|scripts)/' },
    },
    {
      name: 'widget-not-gateway-code',
      comment:
        "The gateway checksum (MD5, which browsers lack) and the webhook signing are the Worker's and the SDK's: no shopper bundle carries them.",
      severity: 'error',
      from: { path: '^widget/' },
      to: { path: '^shared/(gateway|webhooks)/' },
    },
    {
      name: 'console-only-shared-and-sdk',
      comment:
        "The console runs in merchants' staff's browsers on the merchant API: shared/ and the SDK's typed client, never the Worker's or the widget's code.",
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(worker|widget|tools|test|bench|scripts)/' },
    },
    {
      name: 'nothing-imports-the-console',
      comment: 'The console is a bundle of its own: no shopper bundle, SDK or Worker carries any of it.',
      severity: 'error',
      from: { path: '^(widget|worker|server|shared|tools|bench|scripts)/' },
      to: { path: '^console/' },
    },
    {
      name: 'sdk-only-shared',
      comment:
        'pay-checkout/server ships to merchants: it may not pull in the Worker (what both need lives in shared/).',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^(worker|widget|tools|test|bench|scripts)/' },
    },
    {
      name: 'worker-not-widget-or-sdk',
      comment:
        "The product Worker serves the widget's built files, never its sources; the SDK is its client, not its code.",
      severity: 'error',
      from: { path: '^worker/', pathNot: '^worker/demo/' },
      to: { path: '^(widget|server|tools|test|bench)/' },
    },
    {
      name: 'product-not-sandbox-or-demo',
      comment: 'The sandbox and the demo are Workers of their own that production never deploys.',
      severity: 'error',
      from: { path: '^worker/', pathNot: '^worker/(sandbox|demo)/' },
      to: { path: '^worker/(sandbox|demo)/' },
    },
    {
      name: 'sandbox-only-shared',
      comment:
        "The sandbox stands in for the gateway: it checks what the Worker sends with shared/ code, not with the Worker's own.",
      severity: 'error',
      from: { path: '^worker/sandbox/' },
      to: { path: '^(worker/(?!sandbox/)|widget/|server/|tools/|test/|bench/)' },
    },
    {
      name: 'demo-through-the-sdk',
      comment:
        "The demo is a merchant's site and server: it uses the product through the SDK (server/) and nothing else of " +
        "this repository but shared/ (its expired invoice comes from the sandbox's test controls, over HTTP).",
      severity: 'error',
      from: { path: '^worker/demo/' },
      to: { path: '^(worker/(?!demo/)|widget/|tools/|test/|bench/)' },
    },
    {
      name: 'middleware-not-routes',
      comment: 'Middleware runs before the routes and knows nothing of them (what both need is a module of its own).',
      severity: 'error',
      from: { path: '^worker/middleware/' },
      to: { path: '^worker/routes/' },
    },
    {
      name: 'middleware-objects-by-type',
      comment:
        'Middleware fronts the Durable Objects through their stubs: it may name their types, never run their code.',
      severity: 'error',
      from: { path: '^worker/middleware/' },
      to: {
        path: '^worker/(checkout|sessions|payments|registrations|guards|outbox|search|retention|webhooks)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'schemas-not-edge',
      comment: 'Request schemas describe requests: the middleware and routes use them, not the other way round.',
      severity: 'error',
      from: { path: '^worker/schemas/' },
      to: { path: '^worker/(middleware|routes)/' },
    },
    {
      name: 'objects-not-http',
      comment:
        "Durable Objects and what they use answer typed results (reply.ts); HTTP is the routes' and middleware's.",
      severity: 'error',
      from: {
        path: '^worker/(checkout|sessions|payments|registrations|guards|outbox|search|retention|webhooks|gateway)/',
      },
      to: { path: '^worker/(middleware|routes)/' },
    },
    {
      name: 'objects-not-request-schemas',
      comment:
        'Objects take checked input. The one exception is the pay, which validates its body inside the session after ' +
        'the origin and secret checks (SECURITY.md R21: nothing is looked at before them) in the one round trip it makes.',
      severity: 'error',
      from: {
        path: '^worker/(checkout|sessions|payments|registrations|guards|outbox|search|retention|webhooks|gateway)/',
        pathNot: '^worker/sessions/pay-request[.]ts$',
      },
      to: { path: '^worker/schemas/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'tools-not-tests',
      comment: 'tools/ is what tests and benchmarks share: it may not reach into either.',
      severity: 'error',
      from: { path: '^tools/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'bench-not-test',
      comment: 'Benchmarks share helpers with the tests through tools/, not by importing test code.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import the cruiser cannot resolve would pass every rule unseen.',
      severity: 'error',
      from: { pathNot: '^node_modules/' },
      to: { couldNotResolve: true, pathNot: '^(cloudflare:|virtual:)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|[.]wrangler)/' },
    // Type-only imports too (they are erased before bundling, but they are still a dependency).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
}
