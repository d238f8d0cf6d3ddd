package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
)

// The viewport the page is shot in.
const shotWidth, shotHeight = 1280, 2000

// checkInBrowser opens the page in Debian's headless Chromium (installed by
// .ci/run): it must render with no console message, fetch nothing, show its
// findings and charts, and its screenshot must be a non-blank PNG of the
// viewport's size. Without chromium the test fails, unless the run opted
// out (internal/tooltest), when only this check is left out.
func checkInBrowser(t *testing.T, page string) {
	t.Helper()
	bin, ok := tooltest.Find(t, "chromium")
	if !ok {
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-quic", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first Run starts the browser: its context must not time out
	// (chromedp.Run); a watchdog bounds the whole check instead.
	watchdog := time.AfterFunc(2*time.Minute, cancelAlloc)
	defer watchdog.Stop()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(shotWidth, shotHeight)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}

	// Every console message, uncaught exception and browser log entry (a
	// failed load is one) is collected until the probe written last.
	const probe = "murmur-eval-report-probe"
	var mu sync.Mutex
	var messages []string
	listen, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	seq := chromedp.Console(listen)
	go func() {
		defer close(done)
		for m, err := range seq {
			if err != nil {
				return
			}
			mu.Lock()
			messages = append(messages, m.String())
			mu.Unlock()
			if strings.Contains(m.Text, probe) {
				return
			}
		}
	}()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	eval := func(expr string) int {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v
	}
	if n := eval(`document.querySelectorAll('#findings li').length`); n != 3 {
		t.Errorf("the browser shows %d findings, want 3", n)
	}
	if n := eval(`document.querySelectorAll('figure > svg').length`); n != 4 {
		t.Errorf("the browser shows %d charts, want 4", n)
	}
	if n := eval(`performance.getEntriesByType('resource').length`); n != 0 {
		t.Errorf("the page fetched %d resources, want none", n)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	eval(`console.info("` + probe + `"), 0`)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("the console probe never arrived: console messages were not collected")
	}
	stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(messages) != 1 || !strings.Contains(messages[0], probe) {
		t.Errorf("console messages (want only the probe):\n%s", strings.Join(messages, "\n"))
	}
	checkScreenshot(t, shot)
}

// checkScreenshot decodes a PNG and checks that it has the viewport's size
// and is not blank: many colours, and no single colour over 97% of it.
func checkScreenshot(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != shotWidth || b.Dy() != shotHeight {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), shotWidth, shotHeight)
	}
	counts := map[uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			counts[colorKey(img, x, y)]++
		}
	}
	total, most := 0, 0
	for _, n := range counts {
		total += n
		most = max(most, n)
	}
	if len(counts) < 16 || float64(most) > 0.97*float64(total) {
		t.Errorf("the screenshot looks blank: %d colours, the commonest covering %d of %d pixels", len(counts), most, total)
	}
	if dir := os.Getenv("MURMUR_EVAL_SCREENSHOT_DIR"); dir != "" { // to look at it
		_ = os.WriteFile(filepath.Join(dir, "report.png"), data, 0o644)
	}
}

func colorKey(img image.Image, x, y int) uint32 {
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8<<16 | g>>8<<8 | b>>8
}
