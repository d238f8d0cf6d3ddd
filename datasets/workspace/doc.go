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
// [Set.Clone] then gives a case's session folder the base's files. As
// root, in the private mount namespace [EnterPrivateMountNS] made for the
// process, it mounts an overlay on the session folder (the base its
// read-only lower layer, the upper and work folders in the run's
// harness-private .overlays): no file is created, and the mount vanishes
// with the process. Otherwise [Base.Clone] populates the folder: the
// folders, then the files in parallel, each by a reflink (FICLONE, on
// btrfs and XFS) or a plain copy (copy_file_range), never a hard link, so
// no case can change what another sees, nor the base. Either way files
// and folders belong to the tool user so its shell tools can rewrite them
// in place.
//
// [Base.Diff] compares a case's session folder with its base after the
// loop (an overlay by its upper layer alone) and writes a unified diff of
// the text files (binary files named) through package sessionfs: the
// session is hostile by then. [Set.Release] then unmounts an overlay and
// moves what the case wrote into the session folder; [Set.Close], at the
// end of the run, puts the base's unchanged files back (hard links) into
// the sessions still there.
package workspace
