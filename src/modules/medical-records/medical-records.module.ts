import type { ModuleManifest } from '../../module-manifest.js';
import type { MedicalRecordsTables } from './medical-records.table.js';
import { eraseMedicalRecords } from './medical-records.repository.js';
import { medicalRecordRoutes } from './medical-records.routes.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends MedicalRecordsTables {}
}

export const medicalRecordsModule: ModuleManifest<Parameters<typeof medicalRecordRoutes>[0]> = {
  name: 'medical-records',
  sdk: {
    pets: {
      medicalRecords: {
        create: 'createMedicalRecord',
        list: 'listPetMedicalRecords',
        amend: 'amendMedicalRecord',
      },
    },
    medicalRecords: {
      get: 'getMedicalRecord',
    },
  },
  routes: (deps) => medicalRecordRoutes(deps),
  tags: { 'Medical records': 'Append-only clinical records (med_ ids); corrections are amendments. Doctors and admins write.' },
  tables: ['medical_records', 'medical_record_erasures'],
  access: {
    // Visible when its pet is: a record follows its pet when the pet moves (location_id is where it was written).
    medical_records: { parent: 'pets', key: 'pet_id' },
    medical_record_erasures: { location: null, why: "markers that let an erasure through the records' append-only trigger" },
  },
  // Append-only: the erasure row lets the DELETEs through the trigger.
  reset: { erase: { tables: ['medical_records', 'medical_record_erasures'], run: (db, tenantId) => eraseMedicalRecords(db, tenantId, 'sandbox reset') } },
};
