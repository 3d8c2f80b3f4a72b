export {
  cancelImport,
  createImport,
  getImport,
  listImports,
  runImport,
  stageImport,
  stageImportFile,
  importBatchRows,
  type ImportJobContext,
  type StagedImport,
} from './imports.service.js';
export { ImportFiles } from './import-files.js';
export { presentImport } from './imports.presenter.js';
export { templateColumns, typeHandlers } from './import-types.js';
export { importsModule } from './imports.module.js';
