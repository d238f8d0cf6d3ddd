// Package cgroup bounds one subprocess call's whole process tree with a
// control group: murmur's cgroup_memory_bytes, cgroup_pids_max,
// cgroup_cpu_percent and (best effort) cgroup_io_bytes_per_sec.
//
// murmur puts a session's subprocesses in one cgroup v2 scope. murmur-eval
// makes a group per call (shell tool, native tool, dataset check or setup)
// inside one group per run, so a limit that kills or refuses something is
// attributed to the call that met it. It uses cgroup v2 where the host's
// unified hierarchy has the memory, pids and cpu controllers, and the v1
// controllers (pids, memory, cpu, blkio) where those are what the host
// mounts. Every group is made below this process's own cgroup in each
// hierarchy, never beside it.
//
// Detect finds a usable hierarchy or says why there is none (murmur-eval's
// W-SEC-010). A Hierarchy makes a Run; a Run makes a Group per call; the
// caller puts the call's first process in the group (Join) before that
// process may fork, reads Killed once the process has exited, and closes
// the group, which kills whatever is left and removes its folders.
//
// A murmur-eval killed before Run.Close leaves its run's folders behind,
// empty (its calls' processes die with their PID namespaces); they are
// not swept by a later run, which cannot tell a dead run's folder from
// that of a live murmur-eval in another PID namespace. rmdir removes them.
//
// Run.NewGroup, Group.Close and Run.Close may be called from many
// goroutines at once; one Group's methods are for one goroutine at a time.
// RATIONALE.md, "Why a cgroup per call, not per session?" and "Why does the
// cgroup package write what it writes, and read what it reads?", have the
// reasons for the choices made here.
package cgroup
