// Import rules of CONTRIBUTING.md, checked by `npm run lint:deps` in CI (.ci/run).
// A module is a folder of src/modules; others reach it only through its index.ts.
// Type-only imports count too (tsPreCompilationDeps): a cycle of types is still a cycle of design.
const fs = require('node:fs');
const path = require('node:path');

/**
 * No cycle between modules, one rule per module folder: a file of module m that reaches m's own
 * index.ts has gone out through another module and come back (files never import their own index,
 * below). The file-level `no-cycles` misses such a cycle when it passes through different files.
 * One rule each because dependency-cruiser's reachable rules take no back-reference ($1).
 */
function moduleCycleRules() {
  const modules = fs.readdirSync(path.join(__dirname, 'src/modules'), { withFileTypes: true }).filter((d) => d.isDirectory());
  return modules.map(({ name }) => ({
    name: 'no-module-cycles',
    severity: 'error',
    comment: `No import cycle between modules (through ${name}).`,
    from: { path: `^src/modules/${name}/`, pathNot: `^src/modules/${name}/index\\.ts$` },
    to: { path: `^src/modules/${name}/index\\.ts$`, reachable: true },
  }));
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycle, between modules or inside one.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'module-through-index',
      severity: 'error',
      comment: "A module imports another module only through that module's index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'],
      },
    },
    ...moduleCycleRules(),
    {
      name: 'module-not-through-own-index',
      severity: 'error',
      comment: "Inside a module, import the file itself: its own index.ts is the face it shows others.",
      from: { path: '^src/modules/([^/]+)/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: '^src/modules/$1/index\\.ts$' },
    },
    {
      name: 'app-through-index',
      severity: 'error',
      comment: "Code outside src/modules (app.ts, the CLI, …) also reaches a module only through its index.ts.",
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'core-imports-no-module',
      severity: 'error',
      comment: 'src/http, src/db and src/jobs are the core the modules build on: they import no module.',
      from: { path: '^src/(http|db|jobs)/' },
      to: { path: '^src/modules/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
