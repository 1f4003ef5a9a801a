// What the backup thread and the microblog.pub import both speak of, as plain data: the thread
// runs the import's look at a folder (backup.ts BackupJob 'inspectImport'), and the import hands
// its jobs to the thread (microblogpub-import.ts). Here so that neither imports the other's types.

/** Rows whose enumeration value Tern does not have (microblog.pub's later notification kinds…). */
export interface LeftBehind {
  table: string;
  column: string;
  value: string;
  rows: number;
}

/** Tern's enumerations of some tables (column, allowed values), as plain data for the thread. */
export type TernEnums = Record<string, [column: string, values: string[]][]>;

/** A look at a microblog.pub folder: its revision, rows per table, and what would be left behind. */
export interface ImportInspection {
  revision: string;
  counts: Record<string, number>;
  leftBehind: LeftBehind[];
}
