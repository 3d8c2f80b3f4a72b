export { cancelImport, createImport, getImport, listImports, runImport, stageImport, importBatchRows, type StagedImport } from './imports.service.js';
export { templateColumns, typeHandlers } from './import-types.js';
export { importsModule } from './imports.module.js';
