package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRecordMatchesMarshal: the journal record is json.Marshal's bytes for
// records whose every field is filled from random bytes (fill), and
// EntryIn fails exactly when json.Marshal does.
func TestRecordMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for range 3000 {
		data := make([]byte, rng.IntN(4096))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		buf = checkRecordIsMarshal(t, data, buf)
	}
}

// FuzzRecordMatchesMarshal is TestRecordMatchesMarshal with the fuzzer's
// bytes.
func FuzzRecordMatchesMarshal(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\x02\x03<script>&\u2028\u2029\xff\xfe\"\\\n\t\x00 é"))
	f.Add(bytes.Repeat([]byte{0xff, 0x00, 0x7f, 0x80}, 64))
	f.Add(bytes.Repeat([]byte(`{"event_type":"inference","turn":1}`), 8))
	var buf []byte
	f.Fuzz(func(t *testing.T, data []byte) { buf = checkRecordIsMarshal(t, data, buf) })
}

// checkRecordIsMarshal fills a record from data and compares EntryIn's
// record, in the reused buf, with json.Marshal's.
func checkRecordIsMarshal(t *testing.T, data []byte, buf []byte) []byte {
	t.Helper()
	var rec Record
	src := &entropy{data: data}
	src.fill(reflect.ValueOf(&rec).Elem())
	if len(rec.Attempts) == 0 {
		rec.Attempts = append(rec.Attempts, Attempt{}) // EntryIn reads the final attempt
	}
	want, werr := json.Marshal(rec)
	e, err := rec.EntryIn(buf)
	switch {
	case werr != nil && err == nil:
		t.Fatalf("EntryIn encoded %.200q..., json.Marshal failed: %v", e.Record, werr)
	case werr != nil && !strings.Contains(err.Error(), werr.Error()):
		t.Fatalf("EntryIn error %q, want json.Marshal's %q", err, werr)
	case werr == nil && err != nil:
		t.Fatalf("EntryIn failed: %v; json.Marshal: %s", err, want)
	case werr == nil && !bytes.Equal(e.Record, want):
		i := 0
		for i < len(want) && i < len(e.Record) && want[i] == e.Record[i] {
			i++
		}
		t.Fatalf("record differs from json.Marshal at byte %d:\n got %q\nwant %q", i, e.Record[i:min(len(e.Record), i+80)], want[i:min(len(want), i+80)])
	}
	if e.Record == nil {
		return buf
	}
	return e.Record[:0] // the next record is encoded into this one's array, as the collector does
}

// entropy fills values from a fuzzer's bytes (zeros once they run out),
// by reflection, so every field of the rows gets values, a field added
// later included. It leans to the values json.Marshal treats specially.
type entropy struct{ data []byte }

func (e *entropy) byte() byte {
	if len(e.data) == 0 {
		return 0
	}
	b := e.data[0]
	e.data = e.data[1:]
	return b
}

func (e *entropy) uint64() uint64 {
	var w [8]byte
	n := copy(w[:], e.data)
	e.data = e.data[n:]
	return binary.LittleEndian.Uint64(w[:])
}

// fill sets v, a Record or a part of one.
func (e *entropy) fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(e.time()))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			e.fill(v.Field(i))
		}
	case reflect.Slice:
		n := int(e.byte())
		switch {
		case n < 32:
			return // nil
		case n < 48:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // empty, not nil
			return
		}
		s := reflect.MakeSlice(v.Type(), n%4, n%4)
		for i := range s.Len() {
			e.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Pointer:
		if e.byte()%3 == 0 {
			return // nil
		}
		p := reflect.New(v.Type().Elem())
		e.fill(p.Elem())
		v.Set(p)
	case reflect.String:
		v.SetString(e.string())
	case reflect.Int32, reflect.Int64:
		v.SetInt(e.int())
	case reflect.Float64:
		v.SetFloat(e.float())
	case reflect.Bool:
		v.SetBool(e.byte()%2 == 1)
	default:
		panic("entropy: no filler for " + v.Type().String() + ": extend fill and appendRecord")
	}
}

// string is raw bytes (any byte, valid UTF-8 or not), a trace line with
// its quotes, or pieces json.Marshal escapes.
func (e *entropy) string() string {
	pieces := []string{`"`, `\`, "<", ">", "&", "\u2028", "\u2029", "\x00", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t",
		"\xff", "\xe2\x80", "\xe2\x80\xa8", "é", "\U0001F600", "\xed\xa0\x80", "plain text", `{"event_type":"tool_call","input":{"q":"a\"b"}}`}
	n := int(e.byte())
	if n < 128 { // raw bytes
		b := make([]byte, n)
		for i := range b {
			b[i] = e.byte()
		}
		return string(b)
	}
	var s strings.Builder
	for range n % 16 {
		s.WriteString(pieces[int(e.byte())%len(pieces)])
	}
	return s.String()
}

func (e *entropy) int() int64 {
	switch e.byte() % 4 {
	case 0:
		return int64(int8(e.byte()))
	case 1:
		return math.MinInt64 + int64(e.byte()%2)*math.MaxInt64 // the extremes (the caller cuts an int32)
	}
	return int64(e.uint64())
}

// float is now and then a NaN or an infinity, which json.Marshal refuses
// (rarely, so that most records are whole).
func (e *entropy) float() float64 {
	refused := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.1 + 0.2, 1e-6, -1e-6, 1e-7, 9.99e-7, 1e20, 1e21, -1e21, 1.5e21, 1e-300, 5e-324,
		math.MaxFloat64, -math.MaxFloat64, 123456789012345680000, 1e100, 12.5, 1e-10, 2.5e-8}
	switch b := e.byte(); {
	case b < 3:
		return refused[b]
	case b < 96:
		return special[int(b)%len(special)]
	case b < 160:
		return float64(int64(e.uint64())%1_000_000) / 1000 // milliseconds
	default:
		return math.Float64frombits(e.uint64()) // any bits, NaNs included
	}
}

// time is an instant of years 0 to 9999 in a zone, and now and then one
// json.Marshal refuses: a year outside those, a zone 24 hours or more off.
func (e *entropy) time() time.Time {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("X", 5*3600+30*60),
		time.FixedZone("Y", -(11*3600 + 59*60 + 59)), time.FixedZone("V", 23*3600+59*60+30), time.FixedZone("Z", 24*3600), time.FixedZone("W", -25*3600)}
	zone := zones[:6][int(e.byte())%6]
	if b := e.byte(); b < 2 {
		zone = zones[6+b]
	}
	const year0, years = -62167219200, 10000 * 365 * 86400 // 0000-01-01 UTC; not quite 10,000 years
	switch b := e.byte(); {
	case b < 2:
		return time.Unix(int64(e.uint64()>>1)*(1-2*int64(b)), int64(e.uint64())) // far from years 0 to 9999
	case b < 40:
		return time.Time{}
	case b < 140:
		return time.UnixMilli(1_700_000_000_000 + int64(e.uint64()%1_000_000_000)).In(zone)
	}
	return time.Unix(year0+int64(e.uint64()%years), int64(e.uint64()%1_000_000_000)).In(zone)
}
