// Package workspace gives each case of a dataset line with a "workspace"
// field its own copy of that workspace's files (docs/workspaces.md).
//
// A workspace (a folder, or a .tar, .tar.gz or .zip archive) is read once
// per run into a base under the run folder, <run>/.workspaces/<hash>/, by
// [Set.Base]: every entry is checked on the way in, as a .mur.zip entry is
// (no absolute or ".." names, links that stay inside, no devices or FIFOs,
// entry-count and size limits, names the session reserves refused), each
// refusal with a stable code (errcode.WorkspaceEntry, errcode.WorkspaceLimit).
// The source is only read, never written.
//
// [Base.Clone] then populates a case's session folder from the base: the
// folders, then the files in parallel, each by a reflink (FICLONE, on
// btrfs and XFS) or a plain copy (copy_file_range), never a hard link, so
// no case can change what another sees, nor the base. Files and folders are
// given to the tool user so its shell tools can rewrite them in place.
//
// [Diff] compares a case's session folder with its base after the loop and
// writes a unified diff of the text files (binary files named) through
// package sessionfs: the session is hostile by then.
package workspace
