/** The sandbox's business-clock offset (one row, id 1); absent means real time. */
export interface SandboxClockTable {
  id: number;
  offset_ms: number;
  updated_at: string;
}

export interface SandboxClockTables {
  sandbox_clock: SandboxClockTable;
}
