package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
)

// socketPage pings an echo server over a WebSocket 200 times, 20 ms apart,
// from the page's main thread or from a worker, and reports each round trip
// measured to the reply's MessageEvent.timeStamp and to the handler's own
// performance.now(). With busy, the main thread also spends 25 ms of every
// animation frame on other work, as a page drawing in software does.
const socketPage = `<!doctype html><script>
const code = ` + "`" + `
self.run = (url, n) => new Promise((done) => {
  const ws = new WebSocket(url); ws.binaryType = "arraybuffer";
  const stamp = [], handler = []; let sent = 0, k = 0;
  ws.onopen = () => { sent = performance.now(); ws.send(new Uint8Array(8)); };
  ws.onmessage = (e) => {
    stamp.push(e.timeStamp - sent); handler.push(performance.now() - sent);
    if (++k === n) { ws.close(); done({stamp, handler}); return; }
    setTimeout(() => { sent = performance.now(); ws.send(new Uint8Array(8)); }, 20);
  };
});
self.onmessage = async (e) => self.postMessage(await self.run(e.data.url, e.data.n));
` + "`" + `;
eval(code.replace("self.onmessage", "self.ignored"));
window.inWorker = (url, n) => new Promise((done) => {
  const w = new Worker(URL.createObjectURL(new Blob([code], {type: "text/javascript"})));
  w.onmessage = (e) => done(e.data);
  w.postMessage({url, n});
});
window.busy = () => { const f = () => { const t = performance.now(); while (performance.now() - t < 25) {} requestAnimationFrame(f); }; requestAnimationFrame(f); };
</script>`

// TestBrowserMeasureSocket measures what docs/netcode.md section 2 reports:
// a WebSocket message's timeStamp on a busy page's main thread, and in a
// worker, against the round trip a Go client measures on the same loopback
// echo server. It asserts only that it measured; the figures are logged.
func TestBrowserMeasureSocket(t *testing.T) {
	browserTests(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/echo" {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, socketPage)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, b, err := c.Read(r.Context())
			if err != nil || c.Write(r.Context(), typ, b) != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()
	url := "ws://" + ln.Addr().String() + "/echo"

	var goRTT []float64
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		t0 := time.Now()
		if err := c.Write(ctx, websocket.MessageBinary, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
		goRTT = append(goRTT, float64(time.Since(t0).Microseconds())/1000)
		time.Sleep(20 * time.Millisecond)
	}
	c.CloseNow()
	t.Logf("Go client:                      p50 %5.2f ms  p90 %5.2f ms  max %5.2f ms", pctl(goRTT, 50), pctl(goRTT, 90), slices.Max(goRTT))

	p := openPage(t, browser(t), base+"/")
	type result struct {
		Stamp   []float64 `json:"stamp"`
		Handler []float64 `json:"handler"`
	}
	for _, run := range []struct{ name, js string }{
		{"main thread, idle", `run(%q, 200)`},
		{"worker, page idle", `inWorker(%q, 200)`},
		{"main thread, busy page", `(busy(), run(%q, 200))`},
		{"worker, busy page", `inWorker(%q, 200)`},
	} {
		r, err := chromedp.Run(p.ctx, chromedp.Evaluate[result](fmt.Sprintf(run.js, url), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Stamp) == 0 {
			t.Fatalf("%s: no round trips", run.name)
		}
		t.Logf("%-30s  timeStamp p50 %5.2f ms  p90 %5.2f ms  max %5.2f ms; handler p50 %5.2f ms", run.name+":",
			pctl(r.Stamp, 50), pctl(r.Stamp, 90), slices.Max(r.Stamp), pctl(r.Handler, 50))
	}
}

func pctl(v []float64, p int) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
