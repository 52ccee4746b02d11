/** The confined file primitives every file tool opens its files through: they live in @kosong/workspace (its file journal uses them too). */
export {
  appendText,
  FolderCursor,
  HardLinkError,
  listDirInside,
  lstatInside,
  NotRegularFileError,
  openForRead,
  openForWrite,
  readWhole,
  replaceWhole,
  resolveExisting,
  resolveInside,
  type ConfinedFile,
  type ListedEntry,
  type WriteOpenOptions,
} from "@kosong/workspace";
