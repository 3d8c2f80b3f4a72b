export { documentRoutes } from './documents.routes.js';
export { documentText } from './documents.repository.js';
export { DocumentFiles } from './document-files.js';
export { documentHousekeeping } from './documents.jobs.js';
// The AI platform's knowledge upload reads files the way pet documents are read.
export { receiveUpload, type ReceivedFile } from './document-upload.js';
export { extractPdfText, type PdfTextLimits } from './pdf-text.js';
export { sanitizeFilename, extensionOf } from './document-files.js';
export { getDocument } from './documents.service.js';
export { documentsModule } from './documents.module.js';
