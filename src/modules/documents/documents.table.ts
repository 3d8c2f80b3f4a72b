/** Tables of the documents module (rows follow the conventions at the top of src/db/database.ts). */
export interface DocumentsTable {
  id: string;
  tenant_id: string;
  /** Visibility follows the pet (and so the pet's current location). */
  pet_id: string;
  title: string;
  kind: string;
  /** Decided by content sniffing, never taken from the client. */
  content_type: string;
  /** The part's Content-Type as the client sent it (essence only), or null. */
  declared_content_type: string | null;
  /** The client's filename, sanitized and length-limited; metadata only, never a path. */
  filename: string | null;
  size_bytes: number;
  sha256: string;
  /** File name inside `<dataDir>/documents/<env>/`: `<id>.<ext>`. */
  storage_key: string;
  /** extracted | truncated | empty | failed | not_applicable */
  text_status: string;
  extracted_text: string | null;
  /** Characters of extracted_text (0 when none), so lists need not load the text. */
  text_length: number;
  page_count: number | null;
  /** The API client (cli_…) that uploaded it. */
  created_by: string;
  created_at: string;
}

export interface DocumentsTables {
  documents: DocumentsTable;
}
