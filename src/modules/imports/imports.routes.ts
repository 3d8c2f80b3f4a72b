import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { JobRunner } from '../../jobs/runner.js';
import { ImportFiles } from './import-files.js';
import { templateColumns } from './import-types.js';
import { presentImport } from './imports.presenter.js';
import { ImportFormSchema, ImportParams, ImportSchema, ListImportsQuery, TemplateParams } from './imports.schema.js';
import { cancelImport, createImport, getImport, listImports, stageImport } from './imports.service.js';

const tags = ['Imports'];
const confinedNote =
  'A client confined to locations sees only the imports into one of its locations made by a client confined within its locations (a report may name every location its maker reaches); the others only a client of the whole tenant (404 otherwise).';

export function importRoutes(deps: { config: Config; clock: Clock; runner: JobRunner }): AnyRoute[] {
  const files = new ImportFiles(deps.config.dataDir);
  const max = deps.config.importMaxBytes;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/imports',
      operationId: 'createImport',
      summary: 'Import a file of pet parents, pets, vaccinations, medical-record notes, appointments or providers',
      description:
        'Admin only. multipart/form-data: `file` (CSV with a header row, or NDJSON: one JSON object a line; UTF-8, a byte order mark is fine), `type`, ' +
        '`dryRun` (true|false), `mapping` (a JSON object renaming source columns to ours) and `locationId` (where rows without their own go; ' +
        'required for a client confined to locations). The file is streamed to the data dir, never held in memory; limit ' +
        `${max} bytes (PETCARE_IMPORT_MAX_BYTES), else 413. Refused at once (400): a file that is not UTF-8 (UTF-16, Latin-1: code ` +
        '`import_encoding_unsupported`), an empty file, a header row without a required column (named). Then 202 and the import runs in the ' +
        'background: GET it for progress (processed of total) and the row errors. Rows go in through the repositories: no events, webhooks or ' +
        'reminders fire for history. A re-run of the same file updates the records imported before (by externalId) instead of duplicating them.',
      tags,
      access: { scope: 'admin', roles: ['admin'] },
      body: ImportFormSchema,
      bodyTypes: ['multipart/form-data'],
      response: { status: 202, description: 'The queued import', schema: ImportSchema },
      errors: ['payload_too_large', 'resource_missing', 'locations_required', 'import_encoding_unsupported'],
      stage: async ({ actor, db, ctx }) => stageImport(files, { env: actor.env, actor, db, req: ctx.req, maxBytes: max }),
      handler: async ({ db, actor, staged, afterCommit }) => {
        const row = await createImport(db, actor, staged, deps.clock.now());
        afterCommit(() => deps.runner.kick());
        return { status: 202, body: presentImport(row) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/imports',
      operationId: 'listImports',
      summary: 'List imports',
      description: `Admin only. Newest first. ${confinedNote}`,
      tags,
      access: { scope: 'admin.read', roles: ['admin'] },
      query: ListImportsQuery,
      response: { status: 200, description: 'A page of imports', schema: pageSchema(ImportSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listImports(db, actor, page), page, presentImport) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/imports/templates/:type',
      operationId: 'getImportTemplate',
      summary: "An import type's CSV template (the header row)",
      description: 'Admin only. The header row of a CSV file for the type: its columns, required ones first as documented in the README.',
      tags,
      access: { scope: 'admin.read', roles: ['admin'] },
      params: TemplateParams,
      response: { status: 200, description: 'The header row', schema: Type.String(), contentType: 'text/csv' },
      handler: async ({ params }) => ({
        body: `${templateColumns(params.type)
          .map((c) => c.name)
          .join(',')}\r\n`,
        headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${params.type}-template.csv"` },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/imports/:id',
      operationId: 'getImport',
      summary: 'Get an import and its progress',
      description: `Admin only. Counts, the first 1,000 row errors and the status. ${confinedNote}`,
      tags,
      access: { scope: 'admin.read', roles: ['admin'] },
      params: ImportParams,
      response: { status: 200, description: 'The import', schema: ImportSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentImport(await getImport(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/imports/:id/cancel',
      operationId: 'cancelImport',
      summary: 'Cancel an import',
      description: `Admin only. Stops it before its next batch; the batches committed stay. 409 once it has ended. ${confinedNote}`,
      tags,
      access: { scope: 'admin', roles: ['admin'] },
      params: ImportParams,
      response: { status: 200, description: 'The cancelled import', schema: ImportSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => ({ body: presentImport(await cancelImport(db, actor, params.id, deps.clock.now())) }),
    }),
  ];
}
