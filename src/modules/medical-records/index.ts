export { medicalRecordRoutes } from './medical-records.routes.js';
export { eraseMedicalRecords, findMedicalRecord } from './medical-records.repository.js';
export { medicalRecordsModule } from './medical-records.module.js';
export { kindSchemas as medicalRecordKindSchemas } from './medical-records.schema.js';
