package component

import (
	"context"
	"os"
	"sort"
)

// addFS adds wasi:filesystem/preopens and the part of wasi:filesystem/types
// murmur's tools use.
func addFS(all map[string]iface) {
	addPreopens(all)
	addFSTypes(all)
}

// addPreopens gives the guest one preopen, ".", when Env.Root is set.
func addPreopens(all map[string]iface) {
	all["wasi:filesystem/preopens"] = iface{
		"get-directories": {sig(i32), nil, func(ctx context.Context, s *state, st []uint64) {
			ret := uint32(st[0])
			if s.env.Root == nil {
				s.u32(ret, 4)
				s.u32(ret+4, 0)
				return
			}
			h := s.h.add(&descriptor{root: s.env.Root, path: ".", dir: true, flags: dfRead | dfWrite | dfMutateDir})
			p := s.alloc(ctx, 4, 12)
			np, nn := s.putString(ctx, ".")
			s.u32(p, h)
			s.u32(p+4, np)
			s.u32(p+8, nn)
			s.u32(ret, p)
			s.u32(ret+4, 1)
		}},
	}
}

// addFSTypes adds the descriptor and directory-entry-stream methods.
func addFSTypes(all map[string]iface) {
	desc := func(s *state, v uint64) *descriptor { return get[*descriptor](&s.h, uint32(v), "descriptor") }
	fail, okHandle := fsFail, fsOkHandle
	all["wasi:filesystem/types"] = iface{
		"[resource-drop]descriptor":             {sig(i32), nil, dropFn[*descriptor]("descriptor")},
		"[resource-drop]directory-entry-stream": {sig(i32), nil, dropFn[*dirStream]("directory-entry-stream")},
		"[method]descriptor.read-via-stream": {sig(i32, i64, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			stream(ctx, s, desc(s, st[0]), uint32(st[2]), false, false, st[1])
		}},
		"[method]descriptor.write-via-stream": {sig(i32, i64, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			stream(ctx, s, desc(s, st[0]), uint32(st[2]), true, false, st[1])
		}},
		"[method]descriptor.append-via-stream": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			stream(ctx, s, desc(s, st[0]), uint32(st[1]), true, true, 0)
		}},
		"[method]descriptor.get-type": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			fi, err := d.stat()
			if err != nil {
				fail(s, ret, 1, errorCode(err))
				return
			}
			s.u8(ret, 0)
			s.u8(ret+1, descType(fi.Mode()))
		}},
		"[method]descriptor.get-flags": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			s.u8(ret, 0)
			s.u8(ret+1, byte(d.flags))
		}},
		"[method]descriptor.stat": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			fi, err := d.stat()
			if err != nil {
				fail(s, ret, 8, errorCode(err))
				return
			}
			s.u8(ret, 0)
			s.putStat(ret+8, fi)
		}},
		"[method]descriptor.stat-at": {sig(i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[4])
			fi, ec := statAt(s, d, uint32(st[1]), s.str(uint32(st[2]), uint32(st[3])))
			if fi == nil {
				fail(s, ret, 8, ec)
				return
			}
			s.u8(ret, 0)
			s.putStat(ret+8, fi)
		}},
		"[method]descriptor.metadata-hash": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			fi, err := d.stat()
			if err != nil {
				fail(s, ret, 8, errorCode(err))
				return
			}
			putHash(s, ret, fi)
		}},
		"[method]descriptor.metadata-hash-at": {sig(i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[4])
			fi, ec := statAt(s, d, uint32(st[1]), s.str(uint32(st[2]), uint32(st[3])))
			if fi == nil {
				fail(s, ret, 8, ec)
				return
			}
			putHash(s, ret, fi)
		}},
		"[method]descriptor.open-at": {sig(i32, i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[6])
			nd, ec := s.openAt(d, uint32(st[1]), s.str(uint32(st[2]), uint32(st[3])), uint32(st[4]), uint32(st[5]))
			if nd == nil {
				fail(s, ret, 4, ec)
				return
			}
			okHandle(s, ret, s.h.add(nd))
		}},
	}
	for k, v := range fsDirFuncs() {
		all["wasi:filesystem/types"][k] = v
	}
}

// fsOkHandle stores ok(handle) in a result<own<_>, error-code>.
func fsOkHandle(s *state, ret, h uint32) { s.u8(ret, 0); s.u32(ret+4, h) }

// fsFail stores err(ec) in a result whose payload is at ret+off.
func fsFail(s *state, ret, off uint32, ec byte) { s.u8(ret, 1); s.u8(ret+off, ec) }

// stream opens a read, write or append stream on file descriptor d.
func stream(ctx context.Context, s *state, d *descriptor, ret uint32, write, appendMode bool, off uint64) {
	if d.f == nil {
		// wasmtime answers bad-descriptor for a stream on a directory.
		fsFail(s, ret, 4, ecBadDescriptor)
		return
	}
	if write {
		if d.flags&dfWrite == 0 {
			fsFail(s, ret, 4, ecAccess)
			return
		}
		// The stream owns its own open file, so it outlives a
		// dropped descriptor as in wasmtime.
		f, err := d.root.OpenFile(d.path, os.O_WRONLY, 0)
		if err != nil {
			fsFail(s, ret, 4, errorCode(err))
			return
		}
		w := &offsetWriter{f: f, off: int64(min(off, 1<<62))}
		if appendMode {
			fi, err := f.Stat()
			if err != nil {
				_ = f.Close()
				fsFail(s, ret, 4, errorCode(err))
				return
			}
			w.off = fi.Size()
		}
		fsOkHandle(s, ret, s.h.add(&outStream{w: w, c: f}))
		return
	}
	if d.flags&dfRead == 0 {
		fsFail(s, ret, 4, ecAccess)
		return
	}
	f, err := d.root.Open(d.path)
	if err != nil {
		fsFail(s, ret, 4, errorCode(err))
		return
	}
	fsOkHandle(s, ret, s.h.add(&inStream{r: offsetReader(f, off), c: f}))
}

// statAt stats path p under d, following a final symlink if pf says so.
func statAt(s *state, d *descriptor, pf uint32, p string) (os.FileInfo, byte) {
	full, ec, ok := d.resolve(p)
	if !ok {
		return nil, ec
	}
	var fi os.FileInfo
	var err error
	if pf&pfSymlinkFollow != 0 {
		fi, err = d.root.Stat(full)
	} else {
		fi, err = d.root.Lstat(full)
	}
	if err != nil {
		return nil, errorCode(err)
	}
	return fi, 0
}

// putHash stores ok(metadata-hash-value) at ret.
func putHash(s *state, ret uint32, fi os.FileInfo) {
	lo, hi := metaHash(fi)
	s.u8(ret, 0)
	s.u64(ret+8, lo)
	s.u64(ret+16, hi)
}

// pathAt runs a directory mutation on path p under d.
func pathAt(ctx context.Context, s *state, d *descriptor, ret uint32, p string, do func(string) error) {
	full, ec, ok := d.resolve(p)
	if !ok {
		fsFail(s, ret, 1, ec)
		return
	}
	if d.flags&dfMutateDir == 0 {
		fsFail(s, ret, 1, ecNotPermitted)
		return
	}
	if err := do(full); err != nil {
		fsFail(s, ret, 1, errorCode(err))
		return
	}
	s.u8(ret, 0)
}

// fsDirFuncs are the directory functions of wasi:filesystem/types:
// listing and the mutations under a descriptor.
func fsDirFuncs() iface {
	desc := func(s *state, v uint64) *descriptor { return get[*descriptor](&s.h, uint32(v), "descriptor") }
	fail, okHandle := fsFail, fsOkHandle
	return iface{
		"[method]descriptor.read-directory": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			if !d.dir {
				fail(s, ret, 4, ecNotDirectory)
				return
			}
			f, err := d.root.Open(d.path)
			if err != nil {
				fail(s, ret, 4, errorCode(err))
				return
			}
			entries, err := f.ReadDir(-1)
			_ = f.Close()
			if err != nil {
				fail(s, ret, 4, errorCode(err))
				return
			}
			sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
			okHandle(s, ret, s.h.add(&dirStream{entries: entries}))
		}},
		"[method]directory-entry-stream.read-directory-entry": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			ds, ret := get[*dirStream](&s.h, uint32(st[0]), "directory-entry-stream"), uint32(st[1])
			s.u8(ret, 0)
			if len(ds.entries) == 0 {
				s.u8(ret+4, 0)
				return
			}
			e := ds.entries[0]
			ds.entries = ds.entries[1:]
			s.u8(ret+4, 1)
			s.u8(ret+8, descType(e.Type()))
			p, n := s.putString(ctx, e.Name())
			s.u32(ret+12, p)
			s.u32(ret+16, n)
		}},
		"[method]descriptor.create-directory-at": {sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d := desc(s, st[0])
			pathAt(ctx, s, d, uint32(st[3]), s.str(uint32(st[1]), uint32(st[2])), func(p string) error { return d.root.Mkdir(p, 0o755) })
		}},
		"[method]descriptor.unlink-file-at": {sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d := desc(s, st[0])
			pathAt(ctx, s, d, uint32(st[3]), s.str(uint32(st[1]), uint32(st[2])), func(p string) error { return d.root.Remove(p) })
		}},
		"[method]descriptor.remove-directory-at": {sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			d := desc(s, st[0])
			pathAt(ctx, s, d, uint32(st[3]), s.str(uint32(st[1]), uint32(st[2])), func(p string) error { return d.root.Remove(p) })
		}},
		"[method]descriptor.sync-data": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			desc(s, st[0])
			s.u8(uint32(st[1]), 0)
		}},
		"[method]descriptor.sync": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			desc(s, st[0])
			s.u8(uint32(st[1]), 0)
		}},
		"filesystem-error-code": {sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			s.u8(uint32(st[1]), 0) // none: stream errors carry no filesystem code here
		}},
	}
}
