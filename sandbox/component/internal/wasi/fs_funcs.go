package wasi

import (
	"context"
	"os"
	"sort"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// addFS adds wasi:filesystem/preopens and the part of wasi:filesystem/types
// murmur's tools use.
func addFS(all map[string]iface) {
	addPreopens(all)
	addFSTypes(all)
}

// addPreopens gives the guest one preopen, ".", when Config.Root or
// OpenRoot is set.
func addPreopens(all map[string]iface) {
	all["wasi:filesystem/preopens"] = iface{
		"get-directories": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			ret := uint32(st[0])
			root := s.preopen()
			if root == nil {
				s.U32(ret, 4)
				s.U32(ret+4, 0)
				return
			}
			h := s.H.Add(&descriptor{root: root, path: ".", dir: true, flags: dfRead | dfWrite | dfMutateDir})
			p := s.Alloc(ctx, 4, 12)
			np, nn := s.PutString(ctx, ".")
			s.U32(p, h)
			s.U32(p+4, np)
			s.U32(p+8, nn)
			s.U32(ret, p)
			s.U32(ret+4, 1)
		}},
	}
}

// addFSTypes adds the descriptor and directory-entry-stream methods.
func addFSTypes(all map[string]iface) {
	desc := func(s *Host, v uint64) *descriptor { return abi.Get[*descriptor](&s.H, uint32(v), "descriptor") }
	fail, okHandle := fsFail, fsOkHandle
	all["wasi:filesystem/types"] = iface{
		"[resource-drop]descriptor":             {abi.Sig(i32), nil, dropFn[*descriptor]("descriptor")},
		"[resource-drop]directory-entry-stream": {abi.Sig(i32), nil, dropFn[*dirStream]("directory-entry-stream")},
		"[method]descriptor.read-via-stream": {abi.Sig(i32, i64, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			stream(ctx, s, desc(s, st[0]), uint32(st[2]), false, false, st[1])
		}},
		"[method]descriptor.write-via-stream": {abi.Sig(i32, i64, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			stream(ctx, s, desc(s, st[0]), uint32(st[2]), true, false, st[1])
		}},
		"[method]descriptor.append-via-stream": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			stream(ctx, s, desc(s, st[0]), uint32(st[1]), true, true, 0)
		}},
		"[method]descriptor.get-type": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			fi, err := d.stat()
			if err != nil {
				fail(s, ret, 1, errorCode(err))
				return
			}
			s.U8(ret, 0)
			s.U8(ret+1, descType(fi.Mode()))
		}},
		"[method]descriptor.get-flags": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			s.U8(ret, 0)
			s.U8(ret+1, byte(d.flags))
		}},
		"[method]descriptor.stat": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			fi, err := d.stat()
			if err != nil {
				fail(s, ret, 8, errorCode(err))
				return
			}
			s.U8(ret, 0)
			s.putStat(ret+8, fi)
		}},
		"[method]descriptor.stat-at": {abi.Sig(i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[4])
			fi, ec := statAt(s, d, uint32(st[1]), s.Str(uint32(st[2]), uint32(st[3])))
			if fi == nil {
				fail(s, ret, 8, ec)
				return
			}
			s.U8(ret, 0)
			s.putStat(ret+8, fi)
		}},
		"[method]descriptor.metadata-hash": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[1])
			fi, err := d.stat()
			if err != nil {
				fail(s, ret, 8, errorCode(err))
				return
			}
			putHash(s, ret, fi)
		}},
		"[method]descriptor.metadata-hash-at": {abi.Sig(i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[4])
			fi, ec := statAt(s, d, uint32(st[1]), s.Str(uint32(st[2]), uint32(st[3])))
			if fi == nil {
				fail(s, ret, 8, ec)
				return
			}
			putHash(s, ret, fi)
		}},
		"[method]descriptor.open-at": {abi.Sig(i32, i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d, ret := desc(s, st[0]), uint32(st[6])
			nd, ec := s.openAt(d, uint32(st[1]), s.Str(uint32(st[2]), uint32(st[3])), uint32(st[4]), uint32(st[5]))
			if nd == nil {
				fail(s, ret, 4, ec)
				return
			}
			okHandle(s, ret, s.H.Add(nd))
		}},
	}
	for k, v := range fsDirFuncs() {
		all["wasi:filesystem/types"][k] = v
	}
}

// fsOkHandle stores ok(handle) in a result<own<_>, error-code>.
func fsOkHandle(s *Host, ret, h uint32) { s.U8(ret, 0); s.U32(ret+4, h) }

// fsFail stores err(ec) in a result whose payload is at ret+off.
func fsFail(s *Host, ret, off uint32, ec byte) { s.U8(ret, 1); s.U8(ret+off, ec) }

// stream opens a read, write or append stream on file descriptor d.
func stream(ctx context.Context, s *Host, d *descriptor, ret uint32, write, appendMode bool, off uint64) {
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
		fsOkHandle(s, ret, s.H.Add(&outStream{w: w, c: f}))
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
	fsOkHandle(s, ret, s.H.Add(&inStream{r: offsetReader(f, off), c: f}))
}

// statAt stats path p under d, following a final symlink if pf says so.
func statAt(s *Host, d *descriptor, pf uint32, p string) (os.FileInfo, byte) {
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
func putHash(s *Host, ret uint32, fi os.FileInfo) {
	lo, hi := metaHash(fi)
	s.U8(ret, 0)
	s.U64(ret+8, lo)
	s.U64(ret+16, hi)
}

// pathAt runs a directory mutation on path p under d.
func pathAt(ctx context.Context, s *Host, d *descriptor, ret uint32, p string, do func(string) error) {
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
	s.U8(ret, 0)
}

// fsDirFuncs are the directory functions of wasi:filesystem/types:
// listing and the mutations under a descriptor.
func fsDirFuncs() iface {
	desc := func(s *Host, v uint64) *descriptor { return abi.Get[*descriptor](&s.H, uint32(v), "descriptor") }
	fail, okHandle := fsFail, fsOkHandle
	return iface{
		"[method]descriptor.read-directory": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
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
			okHandle(s, ret, s.H.Add(&dirStream{entries: entries}))
		}},
		"[method]directory-entry-stream.read-directory-entry": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			ds, ret := abi.Get[*dirStream](&s.H, uint32(st[0]), "directory-entry-stream"), uint32(st[1])
			s.U8(ret, 0)
			if len(ds.entries) == 0 {
				s.U8(ret+4, 0)
				return
			}
			e := ds.entries[0]
			ds.entries = ds.entries[1:]
			s.U8(ret+4, 1)
			s.U8(ret+8, descType(e.Type()))
			p, n := s.PutString(ctx, e.Name())
			s.U32(ret+12, p)
			s.U32(ret+16, n)
		}},
		"[method]descriptor.create-directory-at": {abi.Sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d := desc(s, st[0])
			pathAt(ctx, s, d, uint32(st[3]), s.Str(uint32(st[1]), uint32(st[2])), func(p string) error { return d.root.Mkdir(p, 0o755) })
		}},
		"[method]descriptor.unlink-file-at": {abi.Sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d := desc(s, st[0])
			pathAt(ctx, s, d, uint32(st[3]), s.Str(uint32(st[1]), uint32(st[2])), func(p string) error { return d.root.Remove(p) })
		}},
		"[method]descriptor.remove-directory-at": {abi.Sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			d := desc(s, st[0])
			pathAt(ctx, s, d, uint32(st[3]), s.Str(uint32(st[1]), uint32(st[2])), func(p string) error { return d.root.Remove(p) })
		}},
		"[method]descriptor.sync-data": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			desc(s, st[0])
			s.U8(uint32(st[1]), 0)
		}},
		"[method]descriptor.sync": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			desc(s, st[0])
			s.U8(uint32(st[1]), 0)
		}},
		"filesystem-error-code": {abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			s.U8(uint32(st[1]), 0) // none: stream errors carry no filesystem code here
		}},
	}
}
