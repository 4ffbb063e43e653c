// Package proxy builds minifolio's reverse proxies (Okapi's gateway, Kong and the sidecars) the one
// way they share: one keep-alive transport per process, one pool of copy buffers, the target's
// host on the request, and nothing logged when the client has gone. Each caller adds what its
// original does differently: the headers it sets and the error it answers with.
package proxy

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// Transport is a proxy process's client side: kept-alive connections to loopback upstreams, up
// to idle in all and perHost to one upstream (a gateway fans out to every module), and bodies
// passed as they come (the clients ask for compression themselves when they want it).
func Transport(idle, perHost int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: perHost,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// To proxies to target (a base URL) through tr. rewrite, if not nil, changes the outgoing
// request after its URL and Host are set; failed answers a request the upstream did not, unless
// the client gave up first (then there is no one to answer).
func To(target string, tr http.RoundTripper, rewrite func(*httputil.ProxyRequest),
	failed func(w http.ResponseWriter, r *http.Request, err error)) *httputil.ReverseProxy {
	u, _ := url.Parse(target)
	return &httputil.ReverseProxy{
		Transport:  tr,
		BufferPool: pool,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = u.Host
			if rewrite != nil {
				rewrite(pr)
			}
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return
			}
			failed(w, r, err)
		},
	}
}

// pool holds the copy buffers every proxy shares (an httputil.BufferPool): without it,
// httputil.ReverseProxy allocates (and the runtime zeroes) a 32 KB buffer for every response it
// copies, a tenth of the gateway's CPU under a CICO load.
var pool = &buffers{}

type buffers struct{ p sync.Pool }

func (b *buffers) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *buffers) Put(buf []byte) { b.p.Put(&buf) }
