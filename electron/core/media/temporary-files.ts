// Files in uploads/ still being written: an upload being received (media/store.ts
// saveUploadFile, incoming-<uuid>.tmp) or a write before its rename (<hash>.<uuid>.tmp). Not
// uploads: removed at start (removeOrphanFiles) and left out of backups (data/backup.ts).
export const isTemporaryFile = (name: string): boolean => name.endsWith('.tmp');
